// Copyright 2026 The bigfoot Authors. All rights reserved.

package detector

import (
	"unsafe"

	"github.com/bigfoot-go/bigfoot/shadow"
)

// Finalizers and cleanups run on the runtime's own goroutines: one
// finalizer goroutine, and one or more cleanup goroutines, each running
// the cleanups of a batch one after another. Go's race runtime orders them
// as follows (runfinq in mfinal.go, runCleanups in mcleanup.go), and so
// does the detector where the driver patched the runtime to call the hooks
// below (driver/cleanuphook.go):
//
//   - At the start of each batch, the goroutine acquires what every
//     goroutine has done so far (racefingo, tsan's AcquireGlobal): finGo.
//   - The finalizers of a batch run on the finalizer goroutine's own
//     state, one after another, so they are ordered.
//   - Each cleanup of a batch runs in a race context of its own, started
//     from the cleanup goroutine's as a go statement starts a goroutine,
//     and ended after it as a goroutine ends (raceEnterNewCtx,
//     raceRestoreCtx): cleanupStart and cleanupEnd. So two cleanups of one
//     batch are not ordered (Go's TestRaceBetweenCleanups), while a cleanup
//     of a later batch, whose start acquires every ended context's last
//     epoch, is ordered after them.
//
// With the hooks, SetFinalizer and AddCleanup register the function as it
// is: the batch's acquisition holds what the registering goroutine had
// done by the registration. Without them (a toolchain whose runtime does
// not take the patches), they wrap it, and the wrapper acquires that
// (afterRegistration) and what every goroutine has done when it starts,
// on its goroutine's one state: the cleanups of a batch are then
// ordered.

// cleanupHooked is set by the runtime's init where the driver added the
// hooks; finGoHook, cleanupStartHook and cleanupEndHook are the hooks
// the runtime calls (nil until this package's init).
var (
	cleanupHooked bool
	//lint:ignore U1000 the runtime reads it through a linkname.
	finGoHook func()
	//lint:ignore U1000 the runtime reads it through a linkname.
	cleanupStartHook func()
	//lint:ignore U1000 the runtime reads it through a linkname.
	cleanupEndHook func()
)

func init() {
	if cleanupHooked {
		finGoHook, cleanupStartHook, cleanupEndHook = finGo, cleanupStart, cleanupEnd
	}
}

// finGo is racefingo: the calling finalizer or cleanup goroutine starts
// a batch, after everything every goroutine has done so far.
func finGo() {
	afterCycle()
	Cur().acquireGlobal()
}

// cleanupOuter maps a cleanup goroutine (its registry key) that is running
// a cleanup to its own state, from cleanupStart to cleanupEnd.
var cleanupOuter shadow.Map[G]

// cleanupStart prepares a new state for the cleanup the calling cleanup
// goroutine runs next. The state is forked from the goroutine's own when
// the cleanup first runs instrumented code (cleanupState, from curSlow),
// not here: most cleanups are the runtime's and the shadow's own (a
// shadow page's freeSlots), and a state for each would allocate on the
// heap at every collection (TestGCCountSameAsPlain).
func cleanupStart() {
	g := Cur()
	key, gp := curKey()
	registry.CompareAndDelete(key, g)
	if slotOff != 0 && *slot(gp) == g.slotWord() {
		*slot(gp) = 0
	}
	cleanupOuter.Store(key, g)
}

// cleanupState returns the state of the cleanup the calling goroutine
// (key, gp) runs, forked from the goroutine's own, or nil if it is not
// running a cleanup.
func cleanupState(key uintptr, gp unsafe.Pointer) *G {
	g := cleanupOuter.Load(key)
	if g == nil {
		return nil
	}
	c := g.Fork(0).g
	c.outer = g
	c.start(key, gp)
	return c
}

// cleanupEnd ends the state of the cleanup that the calling cleanup
// goroutine ran, if it made one, as a goroutine's ends (its last epoch
// stays for the next batch's finGo to acquire), and restores the
// goroutine's own.
func cleanupEnd() {
	key, gp := curKey()
	g := cleanupOuter.Load(key)
	if g == nil {
		return // cleanupStart did not run
	}
	cleanupOuter.CompareAndDelete(key, g)
	if c := registry.Load(key); c != nil && c.outer == g {
		c.Exit()
	}
	registry.Store(key, g)
	g.keep(gp)
}

// afterRegistration orders the calling goroutine, which is to run a
// finalizer or cleanup, after b, what the registering goroutine had done
// by the registration, and returns its state. Without the runtime's hooks
// it also stands in for the batch's start (finGo).
func afterRegistration(b *clockBox) *G {
	afterCycle()
	g := Cur()
	b.acquire(g)
	if !cleanupHooked {
		g.acquireGlobal()
	}
	return g
}
