// Copyright 2026 The bigfoot Authors. All rights reserved.

package detector

import (
	"runtime"
	"unsafe"
)

// Package testing's edges (docs/runtime.md, "Package testing").
//
// bigfoot's driver adds calls of these hooks to package testing, at the
// channel operations and go statements that order tests as Go's race
// detector sees them (driver/testingedges.go): a release of a key before
// a send, close or go statement, an acquire of it after the receive or at
// the new goroutine's start. The key is a channel or a *T, *B or *F,
// keyed by its pointer. testing's files reach the variables through
// linknames.
//
// Two of the keys are handoffs, each release taken by exactly one
// acquire before the next release: a subtest's T, released at the go
// statement that starts it and acquired once, at its start; and its
// signal channel, which the subtest sends on when it calls Parallel and
// when it ends, the second send only after its parent received the first
// (the subtest resumes from Parallel after its parent's function
// returned, and Run returns only after the receive). testingTake is
// their acquire: it empties the key's clock, which the next release
// refills. Without it, every subtest's T and channel would keep a clock
// as wide as the goroutines live when it was released, and 4,000
// t.Parallel subtests, all live until their parent returns, would keep
// clocks of 4,000² entries. testingSignal is the subtest's release into
// its channel, and a test's into a parallel slot as it ends or before it
// closes its barrier (which publishes): the test then blocks in Parallel
// for the rest of its parent, or ends, so it does not publish its wider
// snapshot (publishIfWider) as a parent does before the go statement it
// blocks on in Run, which would copy its clock once more.
//
// testingOwns and testingWait link a test's goroutine blocked for a
// subtest's signal with the subtest's (waitowner.go): the subtest stores
// its state in the owner slot testing's common has, and the waiter marks
// itself as blocked for the signal key until its acquire or take, which
// end the wait.
//
//lint:ignore U1000 package testing reads them through linknames.
var testingAcquire, testingRelease, testingTake, testingSignal func(x any)

//lint:ignore U1000 package testing reads them through linknames.
var (
	testingOwns func(slot *unsafe.Pointer)
	testingWait func(key any, slot *unsafe.Pointer)
)

func init() {
	testingAcquire = func(x any) {
		g := Cur()
		g.endWait()
		g.acquire(dataWord(x))
		runtime.KeepAlive(x)
	}
	testingRelease = func(x any) {
		g := Cur()
		g.release(dataWord(x))
		g.publishIfWider()
		runtime.KeepAlive(x)
	}
	testingTake = func(x any) {
		g := Cur()
		g.endWait()
		g.take(dataWord(x))
		runtime.KeepAlive(x)
	}
	testingOwns = func(slot *unsafe.Pointer) {
		Cur().ownKey(slot)
	}
	testingWait = func(key any, slot *unsafe.Pointer) {
		Cur().waitFor(dataWord(key), slot)
		runtime.KeepAlive(key)
	}
	testingSignal = func(x any) {
		Cur().release(dataWord(x))
		runtime.KeepAlive(x)
	}
}

// testingEdges is set, in package testing's init, where bigfoot's driver
// added the edges to it: Run then passes the subtest's function as it is.
// The variable is that file's through a linkname: no other code writes
// it.
var testingEdges bool
