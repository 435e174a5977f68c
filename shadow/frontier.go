// Copyright 2026 The bigfoot Authors. All rights reserved.

package shadow

// Dropping settled state.
//
// The sweep drops the state of dead objects (gc.go); memory that stays
// alive keeps its state for the rest of the run, although most of it can
// never be part of a race again. A state whose epochs all happen before
// every goroutine that can still access memory passes FastTrack's check
// for every future access: each later access is by a goroutine whose
// vector clock covers those epochs. Dropping it (the slot becomes nil, as
// for a dead object) therefore changes no future verdict, and bounds
// shadow memory by what was accessed since the last synchronization every
// live goroutine took part in (a barrier, a WaitGroup.Wait followed by the
// next fork), not by the run's history: the pivot column of an LU
// factorization after the next step's barrier, the results a worker pool
// hands to the main goroutine.
//
// The detector knows the goroutines and their clocks; the shadow asks it
// through one hook (SetFrontier) for a frontier: a vector clock that every
// goroutine's clock, now and later, is at least (see detector/frontier.go
// for how it is kept a lower bound). A state is settled when every epoch
// in it, of every cell (the whole granule, each part of a split one, each
// class or entry of a run) and of every read vector clock, is covered by
// the frontier.

import "sync/atomic"

// SetFrontier registers f, which each sweep calls once to get the frontier:
// a vector clock, indexed by thread id, such that every goroutine that
// accesses memory from now on has a vector clock at least as large, and
// no goroutine's current (unfinished) epoch is covered. f returns nil when
// it knows no such clock; the sweep then drops dead state only. f runs on
// the sweeper's goroutine and must not access shadow memory.
func (s *Space) SetFrontier(f func() []uint64) {
	s.frontier.Store(&f)
}

// frontierNow returns the frontier for one sweep, nil if there is none.
func (s *Space) frontierNow() []uint64 {
	if f := s.frontier.Load(); f != nil {
		return (*f)()
	}
	return nil
}

type frontierHook = atomic.Pointer[func() []uint64]

// SetSnapshotRequest registers f, which the shadow calls ahead of a sweep
// it starts outside a GC cycle (settle.go): f asks the goroutines to make
// the snapshots the frontier is computed from, so that the sweep finds
// recent ones. f may be called with shadow locks held: it must not block
// or access shadow memory.
func (s *Space) SetSnapshotRequest(f func()) {
	s.snapshots.Store(&f)
}

// askAll calls the snapshot request hook of every space.
func askAll() {
	spacesMu.Lock()
	ss := append([]*Space(nil), spaces...)
	spacesMu.Unlock()
	for _, s := range ss {
		if f := s.snapshots.Load(); f != nil {
			(*f)()
		}
	}
}

// settled reports whether every epoch c records is covered by the frontier
// f (HB: a zero epoch is covered). The lock that guards c's updates is held.
func (c *cell) settled(f []uint64) bool {
	if !HB(Epoch(c.w.Load()), f) {
		return false
	}
	r := c.r.Load()
	if r != shared {
		return HB(Epoch(r), f)
	}
	v := c.rvc.Load()
	if v == nil {
		return true
	}
	for i := range v.ents {
		if x := v.ents[i].e.Load(); x != 0 && (x == frozen || !HB(Epoch(x), f)) {
			return false
		}
	}
	return true
}

// settled reports whether every cell of gr (its parts, if it is split)
// is settled under f. For a run, its cells are its classes or entries.
// The lock that guards gr's cells is held.
func (gr *granule) settled(f []uint64) bool {
	if len(f) == 0 {
		return false
	}
	var cs []cell
	if gr.isRun() {
		cs = asRun(gr).cells
	} else {
		cs = gr.cells()
	}
	for i := range cs {
		if !cs[i].settled(f) {
			return false
		}
	}
	return true
}
