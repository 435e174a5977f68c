// Copyright 2026 The bigfoot Authors. All rights reserved.

package shadow

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"testing"
	"unsafe"
)

var global [4]int64

func TestClassify(t *testing.T) {
	if k := classify(unsafe.Pointer(&global[1])); k != kindImmortal {
		t.Errorf("global: kind %d", k)
	}
	h := new([64]byte)
	if k := classify(unsafe.Pointer(&h[9])); k != kindHeap {
		t.Errorf("heap interior pointer: kind %d", k)
	}
	runtime.KeepAlive(h)
}

// TestClassifyHeapAllocatesNothing checks that classifying a heap
// pointer allocates nothing: the detector's allocations count in the
// program's MemStats.Mallocs, which allocation-counting tests compare
// (testing.AllocsPerRun), and a new heap page is classified on its first
// access.
func TestClassifyHeapAllocatesNothing(t *testing.T) {
	objs := make([]*[64]byte, 100)
	for i := range objs {
		objs[i] = new([64]byte)
	}
	i := 0
	if n := testing.AllocsPerRun(100, func() {
		if classify(unsafe.Pointer(&objs[i%len(objs)][3])) != kindHeap {
			t.Fatal("not the heap")
		}
		i++
	}); n != 0 {
		t.Errorf("classify of a heap pointer: %v allocations, want 0", n)
	}
}

// TestReuseAfterFree checks the two ways stale state is dropped: by the
// GC generation (state of one thread) and by weak pointer (shared state).
func TestReuseAfterFree(t *testing.T) {
	s := NewSpace()
	a := thread(1, 1, nil)
	b := thread(2, 1, map[uint32]uint64{1: 1})
	c := thread(3, 1, nil) // unordered with a and b
	const n = 10000
	var objs []*[2]int64
	for range n {
		o := new([2]int64)
		s.Write(a, unsafe.Pointer(&o[0]), 8, 0)
		s.Read(b, unsafe.Pointer(&o[1]), 8, 0) // shared after the fork-like edge
		s.Write(a, unsafe.Pointer(&o[1]), 8, 0)
		objs = append(objs, o)
	}
	old := map[uintptr]bool{}
	for _, o := range objs {
		old[uintptr(unsafe.Pointer(o))] = true
	}
	objs = nil
	runtime.GC()
	runtime.GC()
	reused := 0
	for range n {
		o := new([2]int64)
		if old[uintptr(unsafe.Pointer(o))] {
			reused++
		}
		if r, race := s.Write(c, unsafe.Pointer(&o[0]), 16, 0); race {
			t.Fatalf("stale state reported at %#x: %+v", uintptr(unsafe.Pointer(o)), r)
		}
		objs = append(objs, o)
	}
	runtime.KeepAlive(objs) // none of the new objects was freed while the loop ran
	if reused == 0 {
		t.Skip("the allocator reused no memory")
	}
	t.Logf("%d of %d objects reused freed memory", reused, n)
}

func TestSweepReclaims(t *testing.T) {
	s := NewSpace()
	a := thread(1, 1, nil)
	b := thread(2, 1, map[uint32]uint64{1: 1})
	func() {
		for range 20000 {
			o := escape(new([4]int64))
			s.Write(a, unsafe.Pointer(o), 32, 0)
			s.Read(b, unsafe.Pointer(&o[2]), 8, 0)
		}
	}()
	sink = nil
	before := s.Len()
	// Two cycles: weak.Pointer.Value, which the sweeper calls, keeps an
	// object alive if it runs during a cycle's mark phase.
	for range 2 {
		Quiesce()
		runtime.GC()
	}
	Quiesce()
	s.Sweep()
	if after := s.Len(); after > before/10 {
		t.Errorf("pages: %d before, %d after sweep", before, after)
	}
}

var adoptSink []*[4]uint64

// TestAdoptIdentCache checks the cache of object idents used at adoption:
// a hit needs the entry's ident to be live and its generation to equal the
// state's stamp; otherwise the generation is read exactly.
func TestAdoptIdentCache(t *testing.T) {
	obj, other := new([4]uint64), new([4]uint64)
	adoptSink = append(adoptSink, obj, other) // heap objects
	defer func() { adoptSink = nil }()
	thr := thread(1, 1, nil)
	base := uintptr(unsafe.Pointer(obj))
	addr := uintptr(unsafe.Pointer(&obj[2]))
	// A GC cycle completing in between changes the generation: retry.
	var id *ident
	var same bool
	stamp := uint32(ExactGen())
	for i := 0; i < 100; i++ {
		stamp = uint32(ExactGen())
		if id, same = adoptIdent(thr, addr, stamp); same {
			break
		}
	}
	if !same || id.value() != (*byte)(unsafe.Pointer(obj)) {
		t.Fatalf("adoptIdent(current stamp) = %v, %v; want an ident of the object, true", id.value(), same)
	}
	if e := identSlot(base).Load(); e == nil || e.id.base != base || e.gen != stamp || &e.id != id {
		t.Fatalf("cache entry %+v, want base %#x gen %d", e, base, stamp)
	}
	if _, same := adoptIdent(thr, addr, stamp-1); same {
		t.Errorf("adoptIdent(older stamp) reports the state current")
	}
	// An entry whose ident is dead (its object died and another was
	// allocated there) is not used.
	dead := &identEntry{gen: stamp, id: ident{base: base}} // neither held nor with a weak pointer
	identSlot(base).Store(dead)
	id, same = adoptIdent(thr, addr, stamp)
	if !same || id == &dead.id || id.value() != (*byte)(unsafe.Pointer(obj)) {
		t.Errorf("dead entry used: adoptIdent = %v, %v", id.value(), same)
	}
	runtime.KeepAlive(obj)
	runtime.KeepAlive(other)
}

var straddleSink *[2]int64

// TestRaceAcrossGC checks that a race whose two accesses straddle GC
// cycles is reported, as Go's race runtime reports it, for a heap object
// and a global written by one thread before the cycles and by an
// unordered one after them; and that state of a dead object whose memory
// the allocator reused after the cycles is not (TestReuseAfterFree covers
// the same with many objects).
func TestRaceAcrossGC(t *testing.T) {
	Quiesce()
	s := NewSpace()
	a := thread(1, 1, nil)
	b := thread(2, 1, nil) // unordered with a
	straddleSink = new([2]int64)
	ptrs := map[string]unsafe.Pointer{
		"heap":   unsafe.Pointer(&straddleSink[1]),
		"global": unsafe.Pointer(&global[3]),
	}
	for name, p := range ptrs {
		if _, race := s.Write(a, p, 8, 1); race {
			t.Fatalf("%s: first write races", name)
		}
	}
	before := ExactGen()
	for range 3 {
		runtime.GC()
	}
	Quiesce()
	s.Sweep() // what the background sweeper does after each cycle
	if ExactGen() < before+3 {
		t.Fatalf("generation %d after three cycles from %d", ExactGen(), before)
	}
	for name, p := range ptrs {
		if _, race := s.Write(b, p, 8, 2); !race {
			t.Errorf("%s: race straddling three GC cycles missed", name)
		}
	}
	runtime.KeepAlive(straddleSink)
}

// TestTrackManyObjects: the first state of every new object is kept
// across a GC cycle, however many objects a cycle creates. A thread
// writes 200 new objects, a cycle completes, and an unordered thread's
// write of each races with the first's. The shadow used to track the
// first 64 objects of a generation only (trackBudget) and dropped the
// state of the others at the cycle. Where the runtime keeps allocation
// versions, the versions prove them (fresh entries and granules); else
// idents do.
func TestTrackManyObjects(t *testing.T) {
	for _, versioned := range []bool{false, true} {
		t.Run(fmt.Sprintf("versions=%v", versioned), func(t *testing.T) {
			quiet(t)
			s := &Space{}
			if versioned {
				fv := withVersions(t)
				s.versions = fv.page
				trackedObjects = make([]*[4]int64, 200)
				for i := range trackedObjects {
					trackedObjects[i] = new([4]int64)
					p := uintptr(unsafe.Pointer(trackedObjects[i]))
					fv.heap(p, 32)
					fv.advance(p, 32)
				}
			} else {
				trackedObjects = make([]*[4]int64, 200)
				for i := range trackedObjects {
					trackedObjects[i] = new([4]int64)
				}
			}
			a, b := thread(1, 1, nil), thread(2, 1, nil)
			for _, o := range trackedObjects {
				if _, race := s.Write(a, unsafe.Pointer(&o[1]), 8, 1); race {
					t.Fatal("first write races")
				}
			}
			cycle()
			s.Sweep() // what the background sweeper does after each cycle
			missed := 0
			for _, o := range trackedObjects {
				if _, race := s.Write(b, unsafe.Pointer(&o[1]), 8, 2); !race {
					missed++
				}
			}
			if missed != 0 {
				t.Errorf("%d of %d races across a GC cycle missed", missed, len(trackedObjects))
			}
			trackedObjects = nil
		})
	}
}

// trackedObjects keeps TestTrackManyObjects' objects reachable.
var trackedObjects []*[4]int64

var adoptSinkBench *[4]int64

// BenchmarkAdoptFresh measures the handoff of a fresh small object: one
// thread writes it, a second, ordered after the write, reads it (an
// adoption), as in a pipeline's stages. The state of earlier objects is
// dropped by the sweeps the collections start.
func BenchmarkAdoptFresh(b *testing.B) {
	s := NewSpace()
	ta := thread(1, 1, nil)
	tb := thread(2, 1, map[uint32]uint64{1: 1})
	for b.Loop() {
		x := new([4]int64)
		adoptSinkBench = x
		s.Write(ta, unsafe.Pointer(&x[1]), 8, 1)
		s.Read(tb, unsafe.Pointer(&x[1]), 8, 2)
	}
}

// TestSweepCountsDeadHeap checks that the sweeps after a cycle count the
// heap granules of dead objects they drop (offheap_pace.go): adopted state
// lives on the heap, and the cycle that found its object dead marked it.
func TestSweepCountsDeadHeap(t *testing.T) {
	saveDeadHeap(t)
	// No cycle but the test's: a cycle between the write and the read
	// would make the read the first state, off the heap.
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	Quiesce()
	s := NewSpace()
	a := thread(1, 1, nil)
	b := thread(2, 1, map[uint32]uint64{1: 1})
	total := func() int64 {
		deadHeap.mu.Lock()
		defer deadHeap.mu.Unlock()
		return deadHeap.total
	}
	before := total()
	const n = 2000
	func() {
		for range n {
			o := escape(new([4]int64))
			s.Write(a, unsafe.Pointer(&o[2]), 8, 0)
			s.Read(b, unsafe.Pointer(&o[2]), 8, 0) // adopted: a heap granule
		}
	}()
	sink = nil
	// Adoption holds the objects until a release; the cycle after it
	// finds them dead, and the sweep after that one drops them.
	want := int64(n/2) * heapGranuleBytes
	var dead int64
	for i := 0; i < 4 && dead < want; i++ {
		Quiesce()
		runtime.GC()
		Quiesce()
		dead = total() - before
	}
	if dead < want {
		t.Errorf("sweeps counted %d bytes of dead heap shadow, want at least %d", dead, want)
	}
}

// TestKeepListRecycled checks that the sweep gives the keep lists of the
// pages it removes to keepLists, and that a page's first heap granule
// takes one from there.
func TestKeepListRecycled(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	Quiesce()
	s := NewSpace()
	a := thread(1, 1, nil)
	b := thread(2, 1, map[uint32]uint64{1: 1})
	adopt := func(n int) (last uintptr) {
		for range n {
			o := escape(new([4]int64))
			s.Write(a, unsafe.Pointer(&o[2]), 8, 0)
			s.Read(b, unsafe.Pointer(&o[2]), 8, 0) // a heap granule, kept
			last = uintptr(unsafe.Pointer(&o[2]))
		}
		return last
	}
	pooled := func() int {
		keepLists.mu.Lock()
		defer keepLists.mu.Unlock()
		return len(keepLists.lists)
	}
	keepLists.mu.Lock()
	keepLists.lists = nil
	keepLists.mu.Unlock()
	adopt(2000)
	sink = nil
	for i := 0; i < 4 && pooled() == 0; i++ {
		Quiesce()
		runtime.GC()
		Quiesce()
	}
	n := pooled()
	if n == 0 {
		t.Fatal("no keep list recycled after the pages of dead objects were removed")
	}
	// A new page's first heap granule takes its list from the pool. Put
	// one known list there (the pool is LIFO, and what the sweeps left in
	// it, possibly a list of capacity 1, is not this test's business) and
	// adopt a granule on a page the space does not have yet.
	Quiesce()
	known := make([]*granule, 0, 37)
	keepLists.mu.Lock()
	keepLists.lists = append(keepLists.lists, known)
	keepLists.mu.Unlock()
	var o *[4]int64
	for {
		o = escape(new([4]int64))
		if s.pages.Load(uintptr(unsafe.Pointer(&o[2]))>>pageShift) == nil {
			break
		}
	}
	s.Write(a, unsafe.Pointer(&o[2]), 8, 0)
	s.Read(b, unsafe.Pointer(&o[2]), 8, 0)
	pg := s.pages.Load(uintptr(unsafe.Pointer(&o[2])) >> pageShift)
	pg.keepMu.Lock()
	got := pg.keep
	pg.keepMu.Unlock()
	if cap(got) != cap(known) || unsafe.SliceData(got[:1]) != unsafe.SliceData(known[:1]) {
		t.Errorf("a new page's first heap granule got a list of capacity %d, not the pooled one", cap(got))
	}
	sink = nil
}

// TestSweepAskedWhileRunning checks that a sweep asked for while one runs
// is not lost: the running sweep goes once more when it ends.
func TestSweepAskedWhileRunning(t *testing.T) {
	s := NewSpace()
	s.sweeping.Store(true) // a sweep is running
	s.startSweep()
	if !s.again.Load() || !s.sweeping.Load() {
		t.Fatalf("asked during a sweep: again %v, sweeping %v; want the running sweep told", s.again.Load(), s.sweeping.Load())
	}
	if !s.sweepDone() || !s.sweeping.Load() {
		t.Fatal("the running sweep ended without going again")
	}
	s.again.Store(false) // sweepLoop's next round
	if s.sweepDone() || s.sweeping.Load() {
		t.Fatal("a sweep went again, or stayed running, with nothing asked")
	}
	s.startSweep() // idle: a sweep of its own
	Quiesce()
	if s.sweeping.Load() || s.again.Load() {
		t.Fatalf("after an idle start and Quiesce: sweeping %v, again %v", s.sweeping.Load(), s.again.Load())
	}
}
