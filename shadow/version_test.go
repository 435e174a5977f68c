// Copyright 2026 The bigfoot Authors. All rights reserved.

package shadow

import (
	"runtime"
	"testing"
	"unsafe"
)

// fakeVersions stands in for the runtime's allocation versions
// (runtimeVersionPage) in a Space under test: the pages it holds are
// in-use heap pages, and advance is what mallocgc does at an allocation.
type fakeVersions map[uintptr]*[512]uint8

func (fv fakeVersions) page(p uintptr) (*[512]uint8, uint8) { return fv[p], 0 }

// heap makes the pages of [p, p+n) in-use heap pages.
func (fv fakeVersions) heap(p, n uintptr) {
	for a := p &^ (pageSize - 1); a < p+n; a += pageSize {
		if fv[a] == nil {
			fv[a] = new([512]uint8)
		}
	}
}

// advance advances the versions of the words of [p, p+n), as the
// allocation of an object there does.
func (fv fakeVersions) advance(p, n uintptr) {
	for a := p; a < p+n; a += 8 {
		fv[a&^(pageSize-1)][a&(pageSize-1)>>3]++
	}
}

// versionSpace returns a Space that reads its versions from fv and makes
// a granule for every first access. It is not registered: no background
// sweep reads fv while the test changes it.
func versionSpace(t *testing.T) (*Space, fakeVersions) {
	quiet(t)
	untracked(t) // no ident at the first access: adoption decides
	fv := fakeVersions{}
	return &Space{versions: fv.page, noFresh: true}, fv
}

// granuleAt returns the granule in p's slot, nil if none.
func (s *Space) granuleAt(p unsafe.Pointer) *granule {
	a := uintptr(p)
	pg := s.pages.Load(a >> pageShift)
	if pg == nil {
		return nil
	}
	return pg.slot((a & (pageSize - 1)) >> 3)
}

// sharedObject returns a heap word that a wrote and b, ordered after a,
// then read: state two goroutines recorded, adopted by b's read.
func sharedObject(t *testing.T, s *Space, fv fakeVersions) (p unsafe.Pointer, a, b *Thread) {
	t.Helper()
	x := escape(new([2]int64))
	p = unsafe.Pointer(&x[0])
	fv.heap(uintptr(p), 16)
	fv.advance(uintptr(p), 16) // allocated
	a = thread(1, 1, nil)
	if _, race := s.Write(a, p, 8, 1); race {
		t.Fatal("first write races")
	}
	b = thread(2, 1, nil)
	acquire(b, release(a))
	if _, race := s.Read(b, p, 8, 2); race {
		t.Fatal("ordered read races")
	}
	return p, a, b
}

// Adoption of heap state by a second goroutine proves the object by its
// word's version: the granule keeps the version and stays off the heap,
// with no ident.
func TestVersionAdoption(t *testing.T) {
	s, fv := versionSpace(t)
	p, _, _ := sharedObject(t, s, fv)
	gr := s.granuleAt(p)
	if !gr.vok || gr.ver != 1 || gr.id != nil || !gr.off {
		t.Errorf("adopted granule: vok %v ver %d id %v off %v, want the version 1, no ident, off the heap", gr.vok, gr.ver, gr.id, gr.off)
	}
}

// A conflict with state whose word's version has moved on (the memory
// holds another object now) is not reported: the state is dropped and the
// access recorded afresh. With the version unchanged, it is reported.
func TestVersionConflictWithDeadObject(t *testing.T) {
	s, fv := versionSpace(t)
	p, _, _ := sharedObject(t, s, fv)
	c := thread(3, 1, nil) // unordered with a and b
	fv.advance(uintptr(p), 16)
	if r, race := s.Write(c, p, 8, 3); race {
		t.Fatalf("conflict with a dead object's state reported: %+v", r)
	}
	if gr := s.granuleAt(p); gr.vok {
		t.Error("state recorded afresh still carries the old proof")
	}

	p, _, _ = sharedObject(t, s, fv)
	if _, race := s.Write(c, p, 8, 3); !race {
		t.Error("conflict with the live object's state not reported")
	}
}

// A read that makes an adopted granule off the heap read-shared moves it
// to the heap first (a read vector clock is a heap object), and the reads
// it records are checked by a later write.
func TestVersionReadSharePromotes(t *testing.T) {
	s, fv := versionSpace(t)
	p, a, b := sharedObject(t, s, fv)
	if gr := s.granuleAt(p); !gr.off {
		t.Fatal("adopted granule not off the heap")
	}
	c := thread(3, 1, nil)
	acquire(c, []uint64{0, 1}) // a's write, not b's read
	_ = a
	if _, race := s.Read(c, p, 8, 3); race {
		t.Fatal("read after the write it knows races")
	}
	gr := s.granuleAt(p)
	if gr.off || gr.whole.r.Load() != shared || gr.whole.rvc.Load() == nil || !gr.vok {
		t.Fatalf("read-shared granule: off %v shared %v vok %v", gr.off, gr.whole.r.Load() == shared, gr.vok)
	}
	d := thread(4, 1, map[uint32]uint64{1: 1, 3: 1}) // knows a and c, not b
	r, race := s.Write(d, p, 8, 4)
	if !race || r.Prev != b.Epoch || r.PrevWrite {
		t.Errorf("write after unordered reads: %+v %v, want a race with b's read", r, race)
	}
}

// readMay without share records nothing where the read would need a read
// vector clock, and reports it; reads that need none are recorded.
func TestReadMayWithoutShare(t *testing.T) {
	var c cell
	a, b := thread(1, 1, nil), thread(2, 1, nil)
	if _, ok := c.readMay(a, 1, new(Race), false); !ok || c.r.Load() != uint64(a.Epoch) {
		t.Fatalf("first read: ok %v r %#x", ok, c.r.Load())
	}
	if _, ok := c.readMay(b, 2, new(Race), false); ok || c.r.Load() != uint64(a.Epoch) || c.rvc.Load() != nil {
		t.Errorf("unordered read without share: ok %v r %#x rvc %v", ok, c.r.Load(), c.rvc.Load())
	}
	acquire(b, release(a))
	if _, ok := c.readMay(b, 2, new(Race), false); !ok || c.r.Load() != uint64(b.Epoch) {
		t.Errorf("ordered read: ok %v r %#x", ok, c.r.Load())
	}
}

// The sweep keeps a versioned granule while its word's version stands and
// drops it once the version moved on or its page left the heap.
func TestSweepVersions(t *testing.T) {
	s, fv := versionSpace(t)
	p, _, _ := sharedObject(t, s, fv)
	s.Sweep()
	if s.granuleAt(p) == nil {
		t.Fatal("sweep dropped the live object's state")
	}
	fv.advance(uintptr(p), 16)
	s.Sweep()
	if s.granuleAt(p) != nil {
		t.Error("sweep kept a dead object's state (version moved on)")
	}

	p, _, _ = sharedObject(t, s, fv)
	delete(fv, uintptr(p)&^(pageSize-1))
	s.Sweep()
	if s.granuleAt(p) != nil {
		t.Error("sweep kept state on a page that is no longer in the heap")
	}
}

// A word's version is its own plus its page's, modulo 256: the runtime
// counts a large object's allocation and free once per page.
func TestVersionSourceAddsPageVersion(t *testing.T) {
	var words [512]uint8
	words[3] = 250
	f := versionSource(func(p uintptr) (*[512]uint8, uint8) {
		if p != 0x10000 {
			return nil, 0
		}
		return &words, 10
	})
	if v, ok := f.at(0x10000 + 3*8 + 5); !ok || v != 4 {
		t.Errorf("version of word 3: %d, %v; want 4, true (250 + 10, modulo 256)", v, ok)
	}
	if _, ok := f.at(0x20000); ok {
		t.Error("a page outside the heap has a version")
	}
}

// refined returns a heap array of n words that a wrote whole (a run) and
// b, ordered after a, then read at word 5 alone: the read cuts the run,
// and word 5 gets per-granule state.
func refined(t *testing.T, s *Space, fv fakeVersions, n int) (x []uint64, a, b *Thread) {
	t.Helper()
	x = escape(make([]uint64, n))
	p := unsafe.Pointer(&x[0])
	fv.heap(uintptr(p), uintptr(8*n))
	fv.advance(uintptr(p), uintptr(8*n))
	a, b = thread(1, 1, nil), thread(2, 1, nil)
	if _, race := s.AccessRange(a, p, 8, 0, n, 1, true, 1); race {
		t.Fatal("first write races")
	}
	if st := s.ShapeStats(); st.Fine != 0 || st.Coarse+st.Block == 0 {
		t.Fatalf("a whole write made no run: %+v", st)
	}
	acquire(b, release(a))
	if _, race := s.Read(b, unsafe.Pointer(&x[5]), 8, 2); race {
		t.Fatal("ordered read races")
	}
	return x, a, b
}

// The per-granule state a check cuts out of a run lives off the heap
// (offProof): a run proven by an ident gives its granules its object's
// word versions, one stamped with its generation only gives them that
// (and validate the version, once a second goroutine reads). Either way
// the races are the run's.
func TestRefineOffHeap(t *testing.T) {
	for _, tracked := range []bool{true, false} {
		quiet(t)
		if !tracked {
			untracked(t)
		}
		fv := fakeVersions{}
		s := &Space{versions: fv.page, noFresh: true}
		x, _, _ := refined(t, s, fv, 1024)
		gr := s.granuleAt(unsafe.Pointer(&x[5]))
		if gr == nil || gr.isRun() || !gr.off || gr.id != nil {
			t.Fatalf("tracked %v: word 5's state: %+v, want an off-heap granule without an ident", tracked, gr)
		}
		// Untracked, b's read adopts the granule with its version
		// (validate).
		if !gr.vok || gr.ver != 1 {
			t.Errorf("tracked %v: vok %v ver %d, want the word's version", tracked, gr.vok, gr.ver)
		}
		c := thread(3, 1, nil) // unordered with a and b
		if _, race := s.Write(c, unsafe.Pointer(&x[5]), 8, 3); !race {
			t.Errorf("tracked %v: write after the unordered read: no race", tracked)
		}
		if _, race := s.Write(c, unsafe.Pointer(&x[9]), 8, 3); !race {
			t.Errorf("tracked %v: write after the unordered write: no race", tracked)
		}
	}
}

// A refined granule's version says when its object died: the state of a
// dead object's word conflicts with nothing.
func TestRefineOffHeapDeadObject(t *testing.T) {
	quiet(t)
	fv := fakeVersions{}
	s := &Space{versions: fv.page, noFresh: true}
	x, _, _ := refined(t, s, fv, 1024)
	fv.advance(uintptr(unsafe.Pointer(&x[0])), 8*1024) // freed and allocated again
	c := thread(3, 1, nil)
	if r, race := s.Write(c, unsafe.Pointer(&x[5]), 8, 3); race {
		t.Fatalf("conflict with a dead object's state reported: %+v", r)
	}
}

// First state of the heap is proven by its word's version where the
// runtime keeps them (track): the granule stays off
// the heap with no ident, and its state outlives a GC cycle while the
// version holds, so a race whose accesses straddle the cycle is found;
// once the word is allocated again, the state is the dead object's.
func TestTrackedFirstVersion(t *testing.T) {
	quiet(t)
	fv := fakeVersions{}
	s := &Space{versions: fv.page, noFresh: true}
	x := escape(new([4]int64))
	p := unsafe.Pointer(&x[0])
	fv.heap(uintptr(p), 32)
	fv.advance(uintptr(p), 32)
	a, b := thread(1, 1, nil), thread(2, 1, nil)
	if _, race := s.Write(a, p, 8, 1); race {
		t.Fatal("first write races")
	}
	gr := s.granuleAt(p)
	if gr == nil || !gr.off || gr.id != nil || !gr.vok || gr.ver != 1 {
		t.Fatalf("first state of a tracked object: %+v, want an off-heap granule proven by version 1", gr)
	}
	runtime.GC()
	RefreshGen() // the cycle completed: the generation moved on
	if _, race := s.Read(b, p, 8, 2); !race {
		t.Error("unordered read after a GC cycle: no race")
	}

	// Another object allocated over the word: its state starts afresh.
	q := unsafe.Pointer(&x[1])
	if _, race := s.Write(a, q, 8, 3); race {
		t.Fatal("first write of the second word races")
	}
	fv.advance(uintptr(p), 32)
	if r, race := s.Read(b, q, 8, 4); race {
		t.Errorf("conflict with a dead object's state reported: %+v", r)
	}
}
