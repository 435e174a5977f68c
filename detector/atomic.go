// Copyright 2026 The bigfoot Authors. All rights reserved.

package detector

//go:generate go run ./internal/genatomic -o atomic_gen.go

import (
	"unsafe"

	"github.com/bigfoot-go/bigfoot/shadow"
)

// An atomic variable is a sync object. The wrappers in atomic_gen.go run
// the operation with the variable's clock locked, so that the order of the
// operations and of their clocks agree: a load acquires what every earlier
// operation released, a store releases before its value is visible. Every
// operation (but a repeated load, below) both acquires and releases,
// which totally orders all atomic operations on one variable. That is more
// synchronization than the memory model's edges (a load does not happen
// before a later store), but it lets each atomic operation be checked
// against plain accesses to the same memory as an ordinary read (loads) or
// write (the others) without atomic operations ever racing with each
// other, so a plain access racing with an atomic one is reported.

type atomicOp uint8

const (
	atomicLoad atomicOp = iota
	atomicStore
	atomicRMW
)

// atomicBegin locks the sync object of the variable at p, acquires it and
// checks the access; atomicEnd releases and unlocks. A nil p locks
// nothing (the operation itself then panics); a repeated load
// (repeatLoad) only locks, and atomicEnd only unlocks.
func (g *G) atomicBegin(p unsafe.Pointer, size uintptr, op atomicOp) *syncVar {
	a := uintptr(p)
	if a == 0 {
		return nil
	}
	g.yield()
	if op == atomicLoad && a == g.atomicLast && g.t.Epoch == g.atomicEpoch {
		if v := g.repeatLoad(a, size); v != nil {
			return v
		}
	}
	g.countSync()
	v := g.lockSync(a, true)
	v.acquireBy(g)
	g.check(p, size, op != atomicLoad, hookSite(hookAtomic))
	g.atomicLast = a // atomicEnd sets atomicEpoch
	return v
}

func (g *G) atomicEnd(v *syncVar) {
	if v == nil {
		return
	}
	if g.repeating {
		g.repeating = false
		v.mu.Unlock()
		return
	}
	v.releaseAcquired(g)
	v.mu.Unlock()
	g.tick()
	g.atomicEpoch = g.t.Epoch
}

// releaseAcquired is releaseBy of a goroutine that acquired v under the
// same lock, its clock unchanged since: its clock includes v's, so the
// join is its clock, copied into v's own clock (one memmove, where a
// join compares every entry) when v has one.
func (v *syncVar) releaseAcquired(g *G) {
	if v.shared || len(v.vc) == 0 || len(g.t.VC) <= len(v.inline) {
		v.releaseBy(g)
		return
	}
	v.vc = trim(append(v.vc[:0], g.t.VC...), 0)
	v.dom = g.serial
}

// A repeated load.
//
// A goroutine that loads one atomic variable again and again (math/rand's
// global generator at each rand.Int63n, a buffer's length loaded at each
// lookup) synchronizes at each load: its pending checks are made, and
// the load's release ends its epoch, so that the accesses between two
// loads miss the same-epoch rules. Neither is needed when the load
// repeats the goroutine's last synchronization, an operation on the same
// variable (L0, its release at the goroutine's epoch E0), and nobody else
// has acquired the variable since:
//
//   - the acquire joins nothing: the variable's clock is L0's release,
//     which the goroutine's clock includes (syncVar.dom), so the pending
//     checks, made later, are judged against the clock their accesses had;
//   - the load is not made to release: Go's memory model orders nothing
//     after a load, and the release exists only so that the load's check
//     of the variable, as a read, is ordered before the operations that
//     follow it (atomic operations never race with each other). That
//     read is recorded already, at E0, if the shadow holds the
//     goroutine's read or write of the variable's bytes at E0 (the
//     same-epoch rules at E0; L0's check recorded it). Every goroutine
//     ordered after E0 learnt it from L0's release, the only release at
//     E0, through the variable: it acquired the variable after the load
//     decided, under the variable's lock, that nobody had. So an access
//     that conflicts with the load conflicts with the read at E0 too, and
//     is reported as it would be with the load's own read. (A write
//     recorded since is another goroutine's unordered with E0, which
//     reported the conflict with that read; the goroutine's own is
//     ordered.)
//
// Then the load only holds the variable's lock across the operation, as
// every atomic operation does, and counts itself (syncs, atomic_repeats):
// no commit, no acquire, no check, no release, no tick. The goroutine's
// epoch is still E0+1 (it released nothing since L0: atomicEpoch), and
// it neither synchronized nor published a snapshot since (countSyncAs
// and publish clear atomicLast), so the frontier cannot cover E0 either
// (frontier.go). A snapshot asked for is published by a load in full.
// Counting and verifying builds make every load in full, as they make
// every check. TestAtomicRepeatedLoad, TestAtomicRepeatedLoadUnrecorded,
// TestAtomicRepeatedLoadRaces.

// repeatLoad returns the sync object of the variable at a, locked, if a
// load of its size bytes, the variable of the goroutine's last
// synchronization (atomicLast) with no release since (atomicEpoch),
// repeats it (see above) and so need not synchronize; else nil. The
// object stays locked until atomicEnd, after the load (G.repeating): a
// store that slipped in between the decision and the load would give the
// load a value whose release it did not acquire.
func (g *G) repeatLoad(a, size uintptr) *syncVar {
	if countAccesses || verifyChecks || snapReq.Load() != g.snapSeen {
		return nil
	}
	v := g.lockSync(a, false)
	if v == nil {
		return nil
	}
	if v.dom != g.serial || !g.sameAt(g.t.Epoch-1, a, size) {
		v.mu.Unlock()
		return nil
	}
	g.syncs++
	g.atomicRepeats++
	g.repeating = true
	return v
}

// sameAt reports whether the shadow records the goroutine's access of the
// size bytes at a, of either kind, at its earlier epoch e.
func (g *G) sameAt(e shadow.Epoch, a, size uintptr) bool {
	cur := g.t.Epoch
	g.t.Epoch = e
	ok := space.Same(&g.t, a, size, false) || space.Same(&g.t, a, size, true)
	g.t.Epoch = cur
	return ok
}

// An acquire that joins nothing.
//
// The goroutine's deferred checks are made before each synchronization
// so that each is judged against the clock its access had, and before a
// release so that nobody ordered after the access checks the memory
// before the access is recorded. An acquire that releases nothing and
// joins nothing into the goroutine's clock needs neither: no clock
// changes. That is an acquire of an object never released (none) or of
// one whose clock the goroutine's is known to include (syncVar.dom: it
// acquired it last, or released into it what it had acquired): package
// reflect's type caches (sync.Map loads) at every call of a function
// that compares values by reflection, a mutex locked again by its last
// holder, a once done. It then only counts itself (syncs,
// acquires_spared): no commit, no snapshot (unless a sweep asked for
// one: the snapshot needs the commit, frontier.go), and the goroutine's
// span goes on.
// Counting and verifying builds make it in full.
// TestAcquireNothing, TestAcquireNothingRaces.

// acquiresNothing reports whether an acquire of the object at addr would
// join nothing into g's clock, and counts it if so.
func (g *G) acquiresNothing(addr uintptr) bool {
	if countAccesses || verifyChecks || snapReq.Load() != g.snapSeen {
		return false
	}
	v := g.lockSync(addr, false)
	if v != nil {
		dom := v.dom == g.serial
		v.mu.Unlock()
		if !dom {
			return false
		}
	}
	g.syncs++
	g.acquiresSpared++
	return true
}
