// Copyright 2026 The bigfoot Authors. All rights reserved.

package detector

import (
	"github.com/bigfoot-go/bigfoot/internal/ownheap"
	"reflect"
	"runtime"
	"runtime/debug"
	"unsafe"

	"github.com/bigfoot-go/bigfoot/shadow"
)

// snapshot releases the goroutine's clock into a new box.
func (g *G) snapshot() *clockBox {
	b := ownheap.New[clockBox]()
	b.release(g)
	return b
}

// snapshotKept is snapshot for a finalizer or a cleanup to keep: the
// clock's words are never a tiny allocation. The runtime's tiny allocator
// puts pointer-free objects under 16 bytes together in 16-byte blocks, so
// a one-word clock made right after the object the callback is registered
// on could share its block: the callback, a root until it runs, would keep
// the object reachable, and it would never run.
func (g *G) snapshotKept() *clockBox {
	b := ownheap.New[clockBox]()
	b.vc = ownheap.Make[uint64](0, max(2, len(g.t.VC)))
	b.release(g)
	return b
}

// GC is runtime.GC. A program that calls it expects the objects it
// dropped to be collected by it (a finalizer run, a weak pointer nil),
// so what the detector keeps of them goes first: the calling goroutine's
// pending checks and footprints, which keep their objects until they are
// checked (a decoder's last result, its ranges pending when it
// returned), are checked now, as at a synchronization, and the shadow's
// holds of small objects that two goroutines shared are released
// (shadow.ReleaseHolds).
func GC() {
	beforeGC()
	runtime.GC()
}

// FreeOSMemory is debug.FreeOSMemory, which runs a GC cycle: see GC.
func FreeOSMemory() {
	beforeGC()
	debug.FreeOSMemory()
}

// beforeGC drops what the detector keeps of objects the program may
// expect a forced collection to free (GC).
func beforeGC() {
	Cur().commitFootprints()
	shadow.ReleaseHolds()
}

// SetFinalizer is runtime.SetFinalizer(obj, finalizer): the finalizer runs
// after acquiring what the registering goroutine had done by the call.
//
// Where the driver added the runtime's hooks (cleanup.go), the start of
// the finalizer's batch acquires that already, and the finalizer is
// registered as it is, as under go -race. Otherwise it is wrapped with
// reflect.MakeFunc, which preserves its (arbitrary) type; reflect's first
// layout of the type allocates a few pointer-free bytes it keeps, which
// may share a 16-byte tiny-allocator block with obj, if obj is a tiny
// object too, and then the block never dies and the finalizer never runs
// (TestTinyObjectCallbacksRun: a struct of one byte).
func SetFinalizer(g *G, obj any, finalizer any) {
	fv := reflect.ValueOf(finalizer)
	if cleanupHooked || finalizer == nil || fv.Kind() != reflect.Func {
		runtime.SetFinalizer(obj, finalizer) // also clears, or panics as usual
		return
	}
	b := g.snapshotKept()
	wrapped := reflect.MakeFunc(fv.Type(), func(args []reflect.Value) []reflect.Value {
		afterRegistration(b)
		return fv.Call(args)
	})
	runtime.SetFinalizer(obj, wrapped.Interface())
}

// AddCleanup is runtime.AddCleanup(ptr, cleanup, arg): the cleanup runs
// after acquiring what the registering goroutine had done by the call,
// which with the runtime's hooks the start of its batch does (see
// SetFinalizer).
func AddCleanup[T, S any](g *G, ptr *T, cleanup func(S), arg S) runtime.Cleanup {
	if cleanupHooked {
		return runtime.AddCleanup(ptr, cleanup, arg)
	}
	b := g.snapshotKept()
	return runtime.AddCleanup(ptr, func(a S) {
		afterRegistration(b)
		cleanup(a)
	}, arg)
}

// acquireGlobal orders g after everything every goroutine has done so far,
// as Go's race runtime orders the finalizer and cleanup goroutines before
// each batch they run (runtime.racefingo, tsan's AcquireGlobal; finGo): a
// goroutine's writes after it registered a cleanup, up to the GC cycle
// that found the object unreachable, happen before the cleanup
// (TestNoRaceCleanup). It acquires each goroutine's published epoch (live
// ones, and exited ones whose thread id is not reused yet); the rest of a
// goroutine's current epoch is then ordered before g too, which may hide a
// race (never invent one). Until GC state survived cycles (shadow/gc.go,
// track), the missing edge was hidden: the cycle before a cleanup dropped
// the state its accesses would have raced with.
//
// g then publishes a snapshot of its clock, unasked: the finalizer
// goroutine may make no other synchronization operation, and its snapshot
// from before the acquisition (or from its registration) would hold the
// frontier, and with it the floor, there until its next one, so that no
// clock would be trimmed and every join and fork would carry every thread
// id used since (pond's suite: joins of 5,472 entries on average where
// 286 sufficed; TestAcquireGlobalPublishes).
func (g *G) acquireGlobal() {
	g.commitFootprints() // see publish
	vc := g.t.VC
	add := func(e shadow.Epoch) {
		t := int(e.TID())
		if t == int(g.tid) {
			return
		}
		vc = lengthen(vc, t+1)
		vc[t] = max(vc[t], e.Clock())
	}
	registry.Range(func(_ uintptr, o *G) bool {
		add(shadow.Epoch(o.pub.Load()))
		return true
	})
	tids.mu.Lock()
	for _, f := range tids.queue[tids.head:] {
		add(shadow.MakeEpoch(f.tid, f.final))
	}
	for _, f := range tids.spare {
		add(shadow.MakeEpoch(f.tid, f.final))
	}
	tids.mu.Unlock()
	g.t.VC = vc
	g.publish(snapReq.Load())
}

// afterCycle runs before a finalizer or cleanup: it runs after the GC
// cycle that found its object unreachable, possibly before the shadow's
// own finalizer has advanced the cheap GC generation, and what it records
// would then be stamped one generation low and dropped as stale when a
// second goroutine touches it (a missed race, TestRaceFinalizerNotRoot).
func afterCycle() { shadow.RefreshGen() }

// RaceDisable turns off access checks in the calling goroutine until the
// matching RaceEnable; calls nest. Synchronization is still tracked (fewer
// edges could only produce false reports).
func RaceDisable() { Cur().t.Disabled++ }

// RaceEnable undoes one RaceDisable.
func RaceEnable() {
	if g := Cur(); g.t.Disabled > 0 {
		g.t.Disabled--
	}
}

// RaceRead checks a one-byte read at addr, like runtime.RaceRead.
func RaceRead(addr unsafe.Pointer) { Cur().check(addr, 1, false, hookSite(hookAnnotation)) }

// RaceWrite checks a one-byte write at addr.
func RaceWrite(addr unsafe.Pointer) { Cur().check(addr, 1, true, hookSite(hookAnnotation)) }

// RaceReadRange checks a read of n bytes at addr.
func RaceReadRange(addr unsafe.Pointer, n int) {
	if n > 0 {
		Cur().check(addr, uintptr(n), false, hookSite(hookAnnotation))
	}
}

// RaceWriteRange checks a write of n bytes at addr.
func RaceWriteRange(addr unsafe.Pointer, n int) {
	if n > 0 {
		Cur().check(addr, uintptr(n), true, hookSite(hookAnnotation))
	}
}

// RaceAcquire acquires the clock of the sync object at addr.
func RaceAcquire(addr unsafe.Pointer) {
	Cur().acquire(uintptr(addr))
	runtime.KeepAlive(addr) // see acquireAt
}

// RaceRelease releases into the clock of the sync object at addr.
func RaceRelease(addr unsafe.Pointer) {
	Cur().release(uintptr(addr))
	runtime.KeepAlive(addr)
}

// RaceReleaseMerge is RaceRelease: releases always join clocks.
func RaceReleaseMerge(addr unsafe.Pointer) {
	Cur().release(uintptr(addr))
	runtime.KeepAlive(addr)
}
