// Copyright 2026 The bigfoot Authors. All rights reserved.

package detector

import (
	"path/filepath"
	"runtime"
	"sync/atomic"
	"unsafe"
)

// Hooks for instrumented standard-library packages (docs/build.md,
// "The standard library").
//
// A standard-library package cannot import a module, so the build driver
// gives each one it instruments a file of package-local hooks whose
// body-less declarations are linknamed to the functions below (the
// //go:linkname directives here let the linker accept those references).
// They are not generic, since a generic function cannot be linknamed, and
// they never create a goroutine's state: stdCur returns nil for a
// goroutine the detector does not know yet, and every hook ignores a nil
// goroutine. That keeps the detector from recursing into itself — it uses
// bytes, strconv and strings while it creates a goroutine's state, and
// those packages may be instrumented — and keeps hooks that run before
// the detector's own initialization (package initializers of the standard
// library) from touching its state.

//lint:file-ignore U1000 the hooks are called from the instrumented standard library through //go:linkname.

// stdQuietKey is the key (curKey) of the goroutine printing a report or
// the statistics, whose hooks in the standard library are off meanwhile:
// the printing uses fmt, bufio and strconv, whose hooks could otherwise
// commit the goroutine's footprints and report again under reportMu.
var stdQuietKey atomic.Uintptr

// stdQuiet turns the calling goroutine's standard-library hooks off until
// the returned function is called. The caller holds reportMu.
func stdQuiet() func() {
	if !stdHooksOn {
		return func() {}
	}
	key, _ := curKey()
	stdQuietKey.Store(key)
	return func() { stdQuietKey.Store(0) }
}

// stdCur returns the calling goroutine's state, or nil if it has none yet
// or is printing a report. The state a go statement prepared for the
// goroutine (ForkNext) is not its own yet: stdCur adopts it.
//
//go:linkname stdCur
func stdCur() *G {
	if !stdHooksOn {
		return nil
	}
	if g := curG(); g != nil {
		if g.stdOff == 0 && g.key != stdQuietKey.Load() {
			return g
		}
		return nil
	}
	key, gp := curKey()
	if key == stdQuietKey.Load() {
		return nil
	}
	if g := registry.Load(key); g != nil && (goidOff == 0 || goidOf(gp) == g.goid) {
		g.keep(gp)
		if g.stdOff == 0 {
			return g
		}
		return nil
	}
	// A goroutine an instrumented go statement created, whose first
	// instrumented code is the standard library's.
	return adopt(key, gp)
}

// stdChecks reports whether g's accesses in the standard library are
// checked: on every goroutine the detector knows, as Go's race runtime
// checks them on every goroutine. (Until the standard library's
// goroutines, channels and atomics were modelled, only goroutines started
// by instrumented code were.)
func stdChecks(g *G) bool { return g != nil }

// stdCheck checks an access of size bytes at p.
//
//go:linkname stdCheck
func stdCheck(g *G, p unsafe.Pointer, size uintptr, write bool, site uint32) {
	if stdChecks(g) {
		g.check(p, size, write, site)
	}
}

// stdCheckCur is stdCheck by the calling goroutine (the shim's R1, W1).
//
//go:linkname stdCheckCur
func stdCheckCur(p unsafe.Pointer, size uintptr, write bool, site uint32) {
	stdCheck(stdCur(), p, size, write, site)
}

// stdCheckGroupCur is stdCheckGroup by the calling goroutine (the shim's
// RG1, WG1).
//
//go:linkname stdCheckGroupCur
func stdCheckGroupCur(p unsafe.Pointer, size, anchor, lo, hi uintptr, write bool, site uint32) {
	stdCheckGroup(stdCur(), p, size, anchor, lo, hi, write, site)
}

// stdCheckRangeCur is stdCheckRange of n elements by the calling goroutine
// (the shim's ReadAll1, WriteAll1); none if n is 0.
//
//go:linkname stdCheckRangeCur
func stdCheckRangeCur(base unsafe.Pointer, elem uintptr, n int, write bool, site uint32) {
	if n > 0 {
		stdCheckRange(stdCur(), base, elem, 0, n, 1, write, site)
	}
}

// stdAccess announces an access whose check the static pass elided (A).
//
//go:linkname stdAccess
func stdAccess(g *G, p unsafe.Pointer, size uintptr, write bool, site uint32) {
	if stdChecks(g) {
		g.elided(p, size, write, site)
	}
}

// stdCheckGroup checks a field group (RG, WG).
//
//go:linkname stdCheckGroup
func stdCheckGroup(g *G, p unsafe.Pointer, size, anchor, lo, hi uintptr, write bool, site uint32) {
	if stdChecks(g) {
		g.checkGroup(p, size, anchor, lo, hi, write, site)
	}
}

// stdCheckRange checks the elements lo, lo+stride, ... < hi of an array of
// elem-byte elements at base (ReadRange, WriteRange).
//
//go:linkname stdCheckRange
func stdCheckRange(g *G, base unsafe.Pointer, elem uintptr, lo, hi, stride int, write bool, site uint32) {
	if stdChecks(g) {
		g.checkRange(base, elem, lo, hi, stride, write, site)
	}
}

// stdFootprint is g.Footprint; nil for a nil g.
//
//go:linkname stdFootprint
func stdFootprint(g *G, site uint32, write bool) *Footprint {
	if !stdChecks(g) {
		return nil
	}
	f := g.Footprint(site, write)
	g.fp.markStd(f)
	return f
}

// stdFootprintFrame is g.FootprintFrame; nil for a nil g.
//
//go:linkname stdFootprintFrame
func stdFootprintFrame(g *G, site uint32, write bool, frame **G) *Footprint {
	if !stdChecks(g) {
		return nil
	}
	f := g.FootprintFrame(site, write, frame)
	g.fp.markStd(f)
	return f
}

// stdPopFootprints is g.PopFootprints for the library's, checking the
// ranges at once, less those a nested return's seen sets hold
// (stdseen.go).
//
//go:linkname stdPopFootprints
func stdPopFootprints(g *G, f *Footprint) {
	if g != nil && f != nil {
		g.popFootprints(f, popStdReturn)
	}
}

// stdRecord is F: it records an access in footprint f.
//
//go:linkname stdRecord
func stdRecord(f *Footprint, p unsafe.Pointer, size uintptr, site uint32) {
	if f != nil {
		f.record(p, size, site)
	}
}

// stdRecordAt is FM: it records an access in footprint f and logs a
// change of its site.
//
//go:linkname stdRecordAt
func stdRecordAt(f *Footprint, p unsafe.Pointer, size uintptr, site uint32) {
	if f != nil {
		f.recordAt(p, size, site)
	}
}

// stdRegisterSites is RegisterSites; it may run before the detector's
// initialization (its state is initialized statically).
//
//go:linkname stdRegisterSites
func stdRegisterSites(pkgPath, file, table string) uint32 {
	return RegisterSites(pkgPath, file, table)
}

// stdPoolPut and stdPoolGet are called by sync.Pool's Put and Get in a
// build that instruments the standard library (the driver adds the calls):
// a Pool hands objects from one goroutine to the next, and the
// uninstrumented packages that pool objects of instrumented ones (fmt,
// encoding/json, net/http) would otherwise make their reuse look racy.
// They model the edge as PoolPut and PoolGet do for the user's calls;
// a user's call is thus announced twice, which changes no clock.
//
// stdPoolPut reports whether Put drops x instead of pooling it: one Put
// in four at random (poolDropOdds), as sync.Pool's Put does under go
// -race, which releases nothing for a dropped item. Without the drop a
// program whose pools' items stay reachable until the next collection
// keeps every item pooled since the last one, and a heap goal twice
// the live heap then lets more be pooled before the next: a pool per
// encoder made and dropped in a loop grew the live heap without bound
// (docs/runtime.md, "Synchronization model").
//
//go:linkname stdPoolPut
func stdPoolPut(x any) (drop bool) {
	if x == nil {
		return false
	}
	if runtimeRandn(poolDropOdds) == 0 {
		return true
	}
	if g := stdCur(); g != nil {
		g.release(dataWord(x))
	}
	return false
}

// poolDropOdds: stdPoolPut drops one item in poolDropOdds, sync.Pool's
// rate under go -race (race.Enabled in sync/pool.go).
const poolDropOdds = 4

// runtimeRandn is the runtime's random number below n, the one
// sync.Pool draws its drops from under go -race.
//
//go:linkname runtimeRandn runtime.randn
func runtimeRandn(n uint32) uint32

//go:linkname stdPoolGet
func stdPoolGet(x any) {
	if g := stdCur(); g != nil && x != nil {
		g.acquire(dataWord(x))
	}
}

// stdSyncAcquire and stdSyncRelease are called by sync's Mutex, RWMutex,
// WaitGroup and Once in a build that instruments the standard library
// (driver.syncSplices): uninstrumented packages synchronize through them
// (log's Mutex serializes the writes into a bytes.Buffer a user gave it),
// and the edges must exist for the instrumented code they call. p is the
// sync object, off selects its clock as Lock and RWLock do (0, or 1 for an
// RWMutex's readers). The runtime's own locks are spin.Mutex, never
// sync.Mutex, so these never run inside the runtime.
//
//go:linkname stdSyncAcquire
func stdSyncAcquire(p any, off uintptr) {
	if g := stdCur(); g != nil {
		g.acquire(dataWord(p) + off)
	}
}

//go:linkname stdSyncRelease
func stdSyncRelease(p any, off uintptr) {
	if g := stdCur(); g != nil {
		g.release(dataWord(p) + off)
	}
}

// stdShimName is the file of hooks the driver adds to an instrumented
// standard-library package (driver/stdshim.go).
const stdShimName = "zz_bigfoot_std.go"

// isStdShimFrame reports whether f is in such a file: reports leave those
// frames out, as they leave out the detector's.
func isStdShimFrame(f runtime.Frame) bool {
	return filepath.Base(f.File) == stdShimName
}
