// Copyright 2026 The bigfoot Authors. All rights reserved.

package shadow

import (
	"testing"
	"unsafe"
)

// TestSweepBetweenCycles checks that making settleMin heap granules since
// the last sweep starts a sweep without a GC cycle (collection is off
// here), which drops settled state, and that the next sweep waits for as
// many granules as that sweep kept.
func TestSweepBetweenCycles(t *testing.T) {
	quiet(t)
	s := NewSpace()
	v := escape(new([4]int64))
	p := unsafe.Pointer(&v[1])
	a := thread(1, 1, nil)
	s.Write(a, p, 8, 1) // a@1
	s.SetFrontier(func() []uint64 { return []uint64{0, 1} })
	if !hasState(s, p) {
		t.Fatal("no state recorded")
	}
	for settle.made.Load()+1 < settle.next.Load() {
		madeHeapGranule()
	}
	if !hasState(s, p) {
		t.Fatal("settled state dropped before the sweep was due")
	}
	before := settle.made.Load()
	madeHeapGranule() // reaches next: a sweep starts
	Quiesce()
	if hasState(s, p) {
		t.Fatalf("the sweep between cycles kept settled state: %+v", slotAt(s, p))
	}
	if got := settle.next.Load() - before; got < settleMin {
		t.Errorf("next sweep %d heap granules after the last, want at least %d", got, settleMin)
	}
}

// TestSnapshotRequestHalfway checks that the shadow asks for snapshots
// once, halfway between a sweep and the next sweep between cycles, so that
// the next sweep's frontier is at most half an interval old.
func TestSnapshotRequestHalfway(t *testing.T) {
	quiet(t)
	s := NewSpace()
	s.SetFrontier(func() []uint64 { return nil })
	asked := 0
	s.SetSnapshotRequest(func() { asked++ })
	defer s.SetSnapshotRequest(func() {})
	const kept = 3 * settleMin
	sweptHeapGranules(kept) // as a sweep that kept kept heap granules
	start := settle.made.Load()
	if got := settle.next.Load() - start; got != kept {
		t.Fatalf("next sweep %d heap granules after the last, want %d", got, kept)
	}
	for settle.made.Load()-start < kept/2-1 {
		madeHeapGranule()
	}
	if asked != 0 {
		t.Fatalf("asked for snapshots %d times before halfway", asked)
	}
	madeHeapGranule()
	if asked != 1 {
		t.Fatalf("asked for snapshots %d times at halfway, want 1", asked)
	}
	for settle.made.Load()+1 < settle.next.Load() {
		madeHeapGranule()
	}
	if asked != 1 {
		t.Errorf("asked for snapshots %d times in one interval, want 1", asked)
	}
	madeHeapGranule() // the sweep
	Quiesce()
}
