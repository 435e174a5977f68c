// Copyright 2026 The bigfoot Authors. All rights reserved.

package detector

import (
	"runtime"
	"slices"
	"testing"
	"unsafe"
	"weak"
)

// TestWaitingForOwner checks minSnapshots with a goroutine blocked for a
// test's signal key: before the key holds a release its bound is its
// snapshot joined with the owner's, after it the key's clock instead of
// the owner's snapshot (which may have grown past the release), and
// nothing once it is awake.
func TestWaitingForOwner(t *testing.T) {
	a, b, c := &G{tid: 1}, &G{tid: 2}, &G{tid: 3}
	a.snap.Store(&[]uint64{0, 4, 1, 1})
	b.snap.Store(&[]uint64{0, 3, 7, 6})
	c.snap.Store(&[]uint64{0, 3, 5, 8})
	var slot unsafe.Pointer
	v := &syncVar{}
	a.waitOwner = &slot
	a.waitOn.Store(v)
	if f, want := minSnapshots([]*G{a, b, c}, nil), []uint64{0, 3, 1, 1}; !slices.Equal(f, want) {
		t.Errorf("frontier with no owner yet: %v, want %v", f, want)
	}
	b.ownKey(&slot)
	if f, want := minSnapshots([]*G{a, b, c}, nil), []uint64{0, 3, 5, 6}; !slices.Equal(f, want) {
		t.Errorf("frontier with a waiting for b: %v, want %v", f, want)
	}
	v.vc = []uint64{0, 2, 3, 1}
	if f, want := minSnapshots([]*G{a, b, c}, nil), []uint64{0, 3, 3, 1}; !slices.Equal(f, want) {
		t.Errorf("frontier with b's release in the key: %v, want %v", f, want)
	}
	if s := *a.snap.Load(); !slices.Equal(s, []uint64{0, 4, 1, 1}) {
		t.Errorf("the frontier changed a's snapshot: %v", s)
	}
	v.vc = nil
	a.endWait()
	if f, want := minSnapshots([]*G{a, b, c}, nil), []uint64{0, 3, 1, 1}; !slices.Equal(f, want) {
		t.Errorf("frontier with a awake: %v, want %v", f, want)
	}
}

// TestFrontierPastTestWaiter runs the shape of a parent blocked in t.Run
// through package testing's hooks: the subtest owns the signal key,
// writes, publishes, and the frontier covers the write although the
// parent's snapshot predates it; the parent takes the key (the wait
// ends) and its clock is then above that frontier, as every clock must
// be. A frontier above a clock would hide that goroutine's races.
func TestFrontierPastTestWaiter(t *testing.T) {
	expect(t, false, func(g *G) {
		x := new(int64)
		key := make(chan bool, 1)
		var slot unsafe.Pointer
		owned := make(chan struct{})
		var stid uint32
		var wclock uint64
		var f []uint64
		done := spawn(g, func(s *G) {
			testingOwns(&slot)
			close(owned)
			*W(s, x, 0) = 1
			stid, wclock = s.tid, s.t.VC[s.tid]
			s.release(addr(x)) // any release: a new epoch, then a snapshot
			s.publish(snapReq.Load())
			for g.waitOn.Load() == nil {
				<-owned // closed: a yield
			}
			f = frontierOf(g, s)
			testingSignal(key)
			key <- true
		})
		<-owned
		testingWait(key, &slot)
		if !bigfootTakenTest(key, <-key) {
			t.Fatal("no signal")
		}
		<-done
		if g.waitOn.Load() != nil {
			t.Error("waitOn still set after the take")
		}
		if int(stid) >= len(f) || f[stid] < wclock {
			t.Errorf("frontier %v does not cover the subtest's write %d@%d", f, stid, wclock)
		}
		for i, c := range f {
			if i >= len(g.t.VC) || c > g.t.VC[i] || (i == int(g.tid) && c == g.t.VC[i]) {
				t.Errorf("frontier %v above the waiter's clock %v after its take", f, g.t.VC)
				break
			}
		}
		_ = *R(g, x, 0) // ordered by the signal
	})
}

// bigfootTakenTest is package testing's bigfootTaken, through the hook.
func bigfootTakenTest(key any, v bool) bool {
	testingTake(key)
	return v
}

// TestEndWaitDropsOwner checks that a goroutine whose wait for a test's
// signal key ended keeps no pointer into the waited-for test: the owner
// slot is a field of testing.common, and a parent goroutine that kept it
// kept its last subtest reachable, with every subtest of that one and what
// their cleanups reference (otter's TestCache_KeyMutations: 1.2 GB of
// caches and their sync objects' clocks after the test ended).
func TestEndWaitDropsOwner(t *testing.T) {
	type common struct {
		_    [1 << 16]byte // the test's other fields: the slot points inside it
		slot unsafe.Pointer
	}
	expect(t, false, func(g *G) {
		c := new(common)
		w := weak.Make(c)
		key := new(int64)
		testingWait(key, &c.slot)
		testingTake(key)
		if g.waitOn.Load() != nil || g.waitOwner != nil {
			t.Fatalf("after the take: waitOn %p, waitOwner %p", g.waitOn.Load(), g.waitOwner)
		}
		c = nil
		runtime.GC()
		if w.Value() != nil {
			t.Error("the test's common is reachable after its wait ended")
		}
	})
}
