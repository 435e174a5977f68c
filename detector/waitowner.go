// Copyright 2026 The bigfoot Authors. All rights reserved.

package detector

import (
	"sync/atomic"
	"unsafe"
)

// Waits for a known releaser.
//
// A test's goroutine blocked in t.Run, in its wait for its parallel
// subtests, or in the wait for a fuzz target or a fuzz seed run, receives
// on the subtest's signal channel and then acquires the channel's clock
// (testingedges.go). Until then it accesses no memory; when it does, its
// clock is at least the clock the subtest released into the channel. And
// while the channel's key holds no release yet, the subtest's snapshot is
// a lower bound of the clock it will release: its clock only grows. So
// the frontier counts the waiter's snapshot joined with the key's clock
// once the key holds a release, and with the releaser's snapshot before
// (waitingSnapshot). Without that, a parent blocked in Run for the whole
// of a long subtest (a fuzz target's seed corpus, a suite's one big test)
// holds the frontier at its snapshot from before the subtest started, and
// every sweep keeps, and walks, every location the subtest wrote.
//
// The keys are handoffs (testingTake) or released once (a fuzz target's
// signal), and one goroutine releases into each: the subtest's, the key's
// owner. The owner stores its state in a slot the driver adds to package
// testing's common (ownKey), in the T or F the waiter holds, so that no
// table of addresses, which a dead channel's successor could inherit,
// links the two. An owner's snapshot is read only while the key is empty
// under the key's lock, so before the owner's release, which takes that
// lock.

// ownKey stores g in slot, the owner slot of the test whose signal
// channel g releases into.
func (g *G) ownKey(slot *unsafe.Pointer) {
	atomic.StorePointer(slot, unsafe.Pointer(g))
}

// waitFor marks g as blocked until it acquires the clock of the key at
// addr (endWait), which the goroutine in owner releases into. Its deferred
// checks are made first: from here until that acquire it checks nothing,
// and the frontier may count its clock as joined with the key's.
func (g *G) waitFor(addr uintptr, owner *unsafe.Pointer) {
	g.commitFootprints()
	v := g.lockSync(addr, true)
	g.waitOwner = owner
	g.waitOn.Store(v)
	v.mu.Unlock()
}

// endWait ends g's wait, if any, before g acquires the key's clock. It
// clears waitOn under the key's lock, so that a frontier computation that
// counted the wait (waitingSnapshot) has read what it joined before g
// goes on; until g's acquire, a frontier counts g's snapshot alone, a
// smaller bound.
func (g *G) endWait() {
	v := g.waitOn.Load()
	if v == nil {
		return
	}
	v.mu.Lock()
	g.waitOn.Store(nil)
	// The slot is in the waited-for test's testing.common: kept, it
	// would keep that test, its subtests and what their cleanups
	// reference reachable for as long as g lives.
	g.waitOwner = nil
	v.mu.Unlock()
}

// ownerSnapshot returns the snapshot of the goroutine that releases into
// the key g waits for, nil if none is known. The key's lock is held.
func (g *G) ownerSnapshot() []uint64 {
	if g.waitOwner == nil {
		return nil
	}
	o := (*G)(atomic.LoadPointer(g.waitOwner))
	if o == nil {
		return nil
	}
	if s := o.snap.Load(); s != nil {
		return *s
	}
	return nil
}
