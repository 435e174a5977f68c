// Copyright 2026 The bigfoot Authors. All rights reserved.

package shadow

import (
	"runtime"
	"testing"
	"unsafe"
	"weak"
)

// slotOf returns the granule in the slot of p, or nil.
func slotOf(s *Space, p unsafe.Pointer) *granule {
	a := uintptr(p)
	pg := s.pages.Load(a >> pageShift)
	if pg == nil {
		return nil
	}
	return pg.slot((a & (pageSize - 1)) >> 3)
}

// A granule one goroutine touched is off the heap; the second goroutine
// promotes it to the heap before it gets a read vector clock and a weak
// pointer, and the heap granule, reachable only through the off-heap slot
// array and the page's keep list, survives collections with its state.
func TestPromoteSurvivesGC(t *testing.T) {
	untracked(t)
	s := granuleSpace()
	a := thread(1, 1, nil)
	b := thread(2, 1, nil)
	c := thread(3, 1, map[uint32]uint64{1: 1, 2: 1}) // after a and b
	d := thread(4, 1, nil)                           // unordered with all
	x := escape(new([4]int64))
	p := unsafe.Pointer(&x[1])
	s.Read(a, p, 8, 0)
	if gr := slotOf(s, p); gr == nil || !gr.off {
		t.Fatal("state of one goroutine not off the heap")
	}
	s.Read(b, p, 8, 0) // read-shared: a read vector clock
	if gr := slotOf(s, p); gr == nil || gr.off || gr.id == nil || gr.whole.rvc.Load() == nil {
		t.Fatalf("shared state not promoted: %+v", gr)
	}
	// Only the slot refers to the granule now.
	for range 3 {
		runtime.GC()
	}
	Quiesce()
	var junk []*[8]uintptr
	for range 10000 { // reuse what the collector may have freed
		g := new([8]uintptr)
		for i := range g {
			g[i] = ^uintptr(0)
		}
		junk = append(junk, g)
	}
	runtime.KeepAlive(junk)
	if gr := slotOf(s, p); gr == nil || gr.lo != 0 || gr.hi != 8 || gr.id == nil || gr.whole.rvc.Load().get(2) != 1 {
		t.Fatal("promoted granule lost across collections")
	}
	if _, race := s.Write(c, p, 8, 0); race {
		t.Fatal("write ordered after both reads reported")
	}
	if _, race := s.Write(d, p, 8, 0); !race {
		t.Fatal("unordered write after the shared reads not reported")
	}
	runtime.KeepAlive(x)
}

// An adopted granule (a second goroutine's access, ordered after the
// first's, as in a pipeline's handoff) moves to the heap with its weak
// pointer: across collections that free and reuse the memory of many
// other handles, the weak pointer still yields the object, the state
// survives, and an unordered write after the cycles races with it.
func TestAdoptedSurvivesGC(t *testing.T) {
	untracked(t) // the first write gets no weak pointer of its own
	s := NewSpace()
	a := thread(1, 1, nil)
	b := thread(2, 1, map[uint32]uint64{1: 1}) // after a
	c := thread(3, 1, nil)                     // unordered with both
	x := escape(new([4]int64))
	p := unsafe.Pointer(&x[2])
	s.Write(a, p, 8, 0)
	if _, race := s.Read(b, p, 8, 0); race {
		t.Fatal("read ordered after the write races")
	}
	gr := slotOf(s, p)
	if gr == nil || gr.off || gr.id == nil || gr.id.value() != (*byte)(unsafe.Pointer(x)) {
		t.Fatalf("adopted granule not on the heap with a weak pointer to its object: %+v", gr)
	}
	// Only the granule refers to the handle now.
	identSlot(uintptr(unsafe.Pointer(x))).Store(nil)
	a.tracked, b.tracked = trackMemo{}, trackMemo{}
	for range 3 {
		// Handles of objects that die at once: their memory is freed
		// and reused, as an unreachable handle's would be.
		for range 10000 {
			_ = weak.Make(new([2]int64))
		}
		runtime.GC()
	}
	Quiesce()
	s.Sweep()
	gr = slotOf(s, p)
	if gr == nil || gr.id == nil || gr.id.value() != (*byte)(unsafe.Pointer(x)) {
		t.Fatalf("adopted state or its weak pointer lost across collections: %+v", gr)
	}
	if _, race := s.Write(c, p, 8, 0); !race {
		t.Fatal("unordered write after the cycles not reported")
	}
	runtime.KeepAlive(x)
}

var handleSink *[4]int64

// After an adopted object dies, the runtime drops its special, and only
// the weak pointer refers to its handle, which the heap granule that
// holds it keeps (set to nil) while the granule is in its slot: however
// long the sweep of the space lags (here it never runs) and however much
// the collector reuses freed handles' memory, the weak pointer reads nil,
// never another object's bytes, which would keep the dead object's state
// alive.
func TestAdoptedHandleKept(t *testing.T) {
	untracked(t)
	s := new(Space) // not registered: no sweep after the cycles
	a := thread(1, 1, nil)
	b := thread(2, 1, map[uint32]uint64{1: 1})
	handleSink = new([4]int64)
	addr := uintptr(unsafe.Pointer(&handleSink[2]))
	s.Write(a, unsafe.Pointer(&handleSink[2]), 8, 0)
	s.Read(b, unsafe.Pointer(&handleSink[2]), 8, 0)
	identSlot(uintptr(unsafe.Pointer(handleSink))).Store(nil)
	a.tracked, b.tracked = trackMemo{}, trackMemo{}
	handleSink = nil
	slot := func() *granule {
		return s.pages.Load(addr >> pageShift).slot((addr & (pageSize - 1)) >> 3)
	}
	if gr := slot(); gr == nil || gr.off || gr.id == nil {
		t.Fatalf("adopted granule not on the heap with a weak pointer: %+v", gr)
	}
	live := escape(new(int64)) // a heap object
	var junk []*[2]uintptr
	for range 4 {
		runtime.GC()
		// Fill freed 16-byte blocks, the handles' size, with a pointer.
		for range 20000 {
			j := new([2]uintptr)
			j[0], j[1] = uintptr(unsafe.Pointer(live)), uintptr(unsafe.Pointer(live))
			junk = append(junk, j)
		}
	}
	Quiesce()
	if gr := slot(); gr == nil || gr.id.value() != nil {
		t.Fatalf("weak pointer of a dead object reads %p", gr.id.value())
	}
	runtime.KeepAlive(live)
	runtime.KeepAlive(junk)
}

// The shadow of objects that are dropped is recycled: however many
// rounds of fresh objects one goroutine touches, the off-heap granules in
// use stay at what one round needs.
func TestFreshObjectsRecycled(t *testing.T) {
	if !recycleGranules {
		t.Skip("granules are not recycled under go test -race")
	}
	s := NewSpace()
	a := thread(1, 1, nil)
	round := func() {
		objs := make([]*[6]int64, 20000)
		for i := range objs {
			objs[i] = new([6]int64)
			s.Write(a, unsafe.Pointer(&objs[i][0]), 8, 0)
		}
		runtime.KeepAlive(objs)
	}
	var inUse []int64
	for range 8 {
		Quiesce()
		round()
		runtime.GC()
		Quiesce()
		s.Sweep()
		inUse = append(inUse, granulePool.inUse.Load())
	}
	if first, last := inUse[1], inUse[len(inUse)-1]; last > first+poolBatch*4 {
		t.Fatalf("granules in use grow with rounds of fresh objects: %v", inUse)
	}
}

// The first access of fresh memory (page.first) records the same state
// as the locked path: its epoch and site, the owner, the generation, and
// the rule it applies; later conflicting accesses find it.
func TestFirstAccess(t *testing.T) {
	quiet(t)
	untracked(t)
	s := granuleSpace()
	for _, write := range []bool{true, false} {
		a := thread(1, 3, nil)
		b := thread(2, 1, nil)                     // unordered with a
		c := thread(3, 1, map[uint32]uint64{1: 3}) // after a
		x := escape(new([4]int64))
		p := unsafe.Pointer(&x[2])
		if _, race := s.Access(a, p, 8, write, 7); race {
			t.Fatal("first access reported a race")
		}
		gr := slotOf(s, p)
		if gr == nil || !gr.off || gr.lo != 0 || gr.hi != 8 || gr.owner.Load() != 2 || gr.gen.Load() != uint32(lagGen.Load()) {
			t.Fatalf("write=%v: first access left %+v", write, gr)
		}
		rule, same, cell := ReadExclusive, ReadSameEpoch, &gr.whole.r
		if write {
			rule, same, cell = WriteExclusive, WriteSameEpoch, &gr.whole.w
		}
		if a.Stats.Checks != 1 || a.Stats.Rules[rule] != 1 || Epoch(cell.Load()) != a.Epoch {
			t.Fatalf("write=%v: stats %+v, cell %v", write, a.Stats, Epoch(cell.Load()))
		}
		if _, race := s.Access(a, p, 8, write, 7); race || a.Stats.Rules[same] != 1 {
			t.Fatalf("write=%v: second access by the same thread: race %v, stats %+v", write, race, a.Stats)
		}
		if _, race := s.Write(c, p, 8, 0); race {
			t.Fatalf("write=%v: ordered write reported", write)
		}
		r, race := s.Write(b, p, 8, 0)
		if !race || r.Prev != c.Epoch {
			t.Fatalf("write=%v: unordered write: race %v with %v, want one with %v", write, race, r.Prev, c.Epoch)
		}
		x2 := escape(new([4]int64))
		q := unsafe.Pointer(&x2[0])
		s.Access(a, q, 8, write, 9)
		r, race = s.Write(b, q, 8, 0)
		if !race || r.Prev != a.Epoch || r.PrevSite != 9 || r.PrevWrite != write {
			t.Fatalf("write=%v: conflict with a first access: race %v, %+v", write, race, r)
		}
	}
}

// untracked leaves the first state of heap memory without a proof
// (trackOff) until the test ends, so that state one goroutine records
// stays off the heap and adoption decides what it becomes.
func untracked(t *testing.T) {
	trackOff.Store(true)
	t.Cleanup(func() { trackOff.Store(false) })
}

// slotsW hands out the page's one slot array: a fresh one holds full's
// value (nil) in every slot, and the array compress dropped is refilled
// from the full of the moment, whatever it held before, since slotsW
// stores only the slots that differ from full.
func TestSlotsWRefill(t *testing.T) {
	pg := new(page)
	a := pg.slotsW()
	for i := range a {
		if a[i].Load() != nil {
			t.Fatalf("fresh array: slot %d = %p, want nil", i, a[i].Load())
		}
	}
	g1, g2 := &granule{hi: 8}, &granule{hi: 8}
	storeSlot(&a[3], g1)
	// As compress leaves it: no array, full covers every slot.
	pg.full.Store(g2)
	pg.arr.Store(nil)
	if b := pg.slotsW(); b != a {
		t.Fatal("the page's array was not reused")
	}
	for i := range a {
		if a[i].Load() != g2 {
			t.Fatalf("refilled array: slot %d = %p, want full %p", i, a[i].Load(), g2)
		}
	}
	// Dropped again, with a clean page behind it.
	pg.full.Store(nil)
	pg.arr.Store(nil)
	pg.slotsW()
	for i := range a {
		if a[i].Load() != nil {
			t.Fatalf("cleared array: slot %d = %p, want nil", i, a[i].Load())
		}
	}
	runtime.KeepAlive(g1)
}

// retire zeroes the epoch words of an off-heap granule that hold an
// epoch and leaves a heap granule as it is.
func TestRetire(t *testing.T) {
	th := thread(1, 5, nil)
	for _, write := range []bool{true, false} {
		gr := newGranule(th, 0, 8, 0)
		if write {
			gr.whole.w.Store(uint64(th.Epoch))
		} else {
			gr.whole.r.Store(uint64(th.Epoch))
		}
		if !retire(gr) {
			t.Fatal("off-heap granule: retire false")
		}
		if w, r := gr.whole.w.Load(), gr.whole.r.Load(); w != 0 || r != 0 {
			t.Fatalf("write %v: retired granule holds w=%#x r=%#x", write, w, r)
		}
		freeGranule(th, gr)
	}
	h := &granule{hi: 8}
	h.whole.w.Store(uint64(th.Epoch))
	if retire(h) || h.whole.w.Load() != uint64(th.Epoch) {
		t.Fatal("heap granule retired")
	}
}

// granuleSpace returns a new space that records the first access of a
// granule in a granule, not a fresh entry (fresh.go): for tests of what
// happens to granules.
func granuleSpace() *Space {
	s := NewSpace()
	s.noFresh = true
	return s
}

// TestFreeSlotsPushOnly: freeSlots, which runs on the runtime's cleanup
// goroutine where a program listing its goroutines sees it, only pushes
// (no allocation, no pool lock); the arrays it pushed return to the pool,
// all of them, at the next newSlots.
func TestFreeSlotsPushOnly(t *testing.T) {
	reclaimSlots()
	const n = poolBatch + 3 // more than one batch of the pool
	var b [n]uintptr
	slotsPool.get(b[:])
	inUse := slotsPool.inUse.Load()
	i := 0
	// AllocsPerRun calls the function once more than it counts.
	if allocs := testing.AllocsPerRun(n-1, func() { freeSlots(b[i]); i++ }); allocs != 0 {
		t.Errorf("freeSlots allocates %v times", allocs)
	}
	if i != n {
		t.Fatalf("%d arrays freed, want %d", i, n)
	}
	if got := slotsPool.inUse.Load(); got != inUse {
		t.Errorf("freeSlots returned arrays to the pool at once: %d in use, want %d", got, inUse)
	}
	// The cleanup goroutine may push arrays of pages an earlier test
	// dropped at any time, so the list holds at least this test's arrays,
	// and newSlots returns at least those to the pool.
	mine := make(map[uintptr]bool, n)
	for _, p := range b {
		mine[p] = true
	}
	for p := slotsFreed.Load(); p != 0; p = *(*uintptr)(ptrOf(p)) {
		delete(mine, p)
	}
	if len(mine) != 0 {
		t.Fatalf("%d of %d freed arrays not on slotsFreed", len(mine), n)
	}
	pg := new(page)
	a := newSlots(pg)
	if got, want := slotsPool.inUse.Load(), inUse-n+1; got > want {
		t.Errorf("after newSlots %d arrays in use, want at most %d", got, want)
	}
	for i := range a {
		if a[i].Load() != nil {
			t.Fatalf("slot %d of a reused array is not clear", i)
		}
	}
}
