// Copyright 2026 The bigfoot Authors. All rights reserved.

package shadow

import (
	"testing"
	"unsafe"
)

// reuseSpace returns a Space whose allocation versions are fv (also the
// runtime's for the test, so that idents are proven by them), with a
// granule for every first access, and a heap object of n words, newly
// allocated.
func reuseSpace(t *testing.T, n int) (*Space, fakeVersions, unsafe.Pointer) {
	quiet(t)
	fv := withVersions(t)
	s := &Space{versions: fv.page, noFresh: true}
	x := escape(make([]int64, n))
	p := unsafe.Pointer(&x[0])
	fv.heap(uintptr(p), uintptr(8*n))
	fv.advance(uintptr(p), uintptr(8*n))
	t.Cleanup(func() { _ = x[0] })
	return s, fv, p
}

// TestSameEpochAfterReuse: a goroutine reads an object, the object dies
// and a GC cycle reuses its memory for another one, and the goroutine
// reads the new object in the same epoch (no synchronization between).
// Its state for the old object records that epoch, but the read of the
// new object must be recorded, and a write by another goroutine races
// with it. The same-epoch fast paths trusted state of an earlier
// generation and skipped the read (found by TestShadowDifferential).
func TestSameEpochAfterReuse(t *testing.T) {
	for _, tc := range []struct {
		name string
		read func(s *Space, th *Thread, p unsafe.Pointer)
	}{
		{"granule", func(s *Space, th *Thread, p unsafe.Pointer) { s.Read(th, p, 8, 1) }},
		{"same", func(s *Space, th *Thread, p unsafe.Pointer) {
			if !s.Same(th, uintptr(p), 8, false) {
				s.Read(th, p, 8, 1)
			}
		}},
		{"run", func(s *Space, th *Thread, p unsafe.Pointer) { s.AccessRange(th, p, 8, 0, 64, 1, false, 1) }},
		{"words", func(s *Space, th *Thread, p unsafe.Pointer) {
			s.Read(th, p, 8, 1) // per-granule state: the range's word loop
			s.AccessRange(th, p, 8, 0, 1, 1, false, 1)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, fv, p := reuseSpace(t, 64)
			a, b := thread(1, 1, nil), thread(2, 1, nil)
			tc.read(s, a, p)
			fv.advance(uintptr(p), 8*64) // a new object over the same words
			cycle()
			tc.read(s, a, p)
			if _, race := s.Write(b, p, 8, 2); !race {
				t.Error("a write unordered with the read of the new object is not reported")
			}
		})
	}
}

// TestRenewedStateTracked: state that replaces a dead object's (validate
// renews the granule for the new object) is first state, and must be
// kept across the next GC cycle like any first state: a race between a
// write before the cycle and one after it is reported. The renewed
// granule was left untracked and dropped at the cycle (found by
// TestShadowDifferential).
func TestRenewedStateTracked(t *testing.T) {
	s, fv, p := reuseSpace(t, 4)
	a, b := thread(1, 1, nil), thread(2, 1, nil)
	s.Write(a, p, 8, 1)
	fv.advance(uintptr(p), 32) // a new object over the same words
	cycle()
	if _, race := s.Write(b, p, 8, 2); race {
		t.Fatal("the new object's first write races with the old object's")
	}
	cycle()
	if _, race := s.Write(a, p, 8, 3); !race {
		t.Error("a race across a GC cycle on the new object is not reported")
	}
}

// TestFreshEntryAcrossReuse: a goroutine's first write of an object is a
// fresh entry; the object dies in a GC cycle, whose sweep of the shadow
// runs before the runtime's sweep frees the object (its version still
// holds), and then a new object takes the word and the same goroutine
// writes it in the same epoch. The entry kept across the cycle must not
// pass for that write (turnFresh makes it old): a write of the new object
// by another goroutine races with it. Renewing the kept entry as one of
// the new generation let the same-epoch check skip the write, and the
// race was missed.
func TestFreshEntryAcrossReuse(t *testing.T) {
	quiet(t)
	fv := withVersions(t)
	s := &Space{versions: fv.page}
	x := escape(make([]int64, 8))
	p := unsafe.Pointer(&x[0])
	fv.heap(uintptr(p), 64)
	fv.advance(uintptr(p), 64)
	a, b := thread(1, 1, nil), thread(2, 1, nil)
	s.Write(a, p, 8, 1)
	pg := s.pages.Load(uintptr(p) >> pageShift)
	if gi := (uintptr(p) & (pageSize - 1)) >> 3; pg.slot(gi) != nil || !pg.hasFresh(gi) {
		t.Fatal("the first write made no fresh entry")
	}
	cycle()
	s.Sweep()
	fv.advance(uintptr(p), 64) // freed and allocated again
	s.Write(a, p, 8, 2)
	if _, race := s.Write(b, p, 8, 3); !race {
		t.Error("a write of the new object unordered with the first goroutine's is not reported")
	}
}

// TestFreshPageReused: a page of fresh objects that died in a GC cycle,
// whose memory holds new objects after it, records their first accesses
// in fresh entries again, without a slot array or granules, though the
// shadow's sweep ran before the runtime freed the dead ones (their
// versions moved on only then). Old entries of the dead objects that the
// new ones' first accesses took to the locked path gave the page a slot
// array, and every later first access on it a granule.
func TestFreshPageReused(t *testing.T) {
	quiet(t)
	fv := withVersions(t)
	s := &Space{versions: fv.page}
	const n = 64 // 64-byte objects: a page
	buf := escape(make([]byte, 2*pageSize))
	base := (uintptr(unsafe.Pointer(&buf[0])) + pageSize - 1) &^ (pageSize - 1)
	fv.heap(base, pageSize)
	fv.advance(base, pageSize)
	a := thread(1, 1, nil)
	for i := range n {
		s.Write(a, ptrOf(base+uintptr(i)*64), 8, 1)
	}
	cycle()
	s.Sweep()                  // before the runtime's sweep: the versions hold
	fv.advance(base, pageSize) // the runtime frees them; new objects take the words
	b := thread(2, 1, nil)
	for i := range n {
		if _, race := s.Write(b, ptrOf(base+uintptr(i)*64), 8, 2); race {
			t.Fatalf("object %d: the new object's first write races with the dead one's", i)
		}
	}
	pg := s.pages.Load(base >> pageShift)
	if pg.own.Load() != nil || pg.nfresh != n {
		t.Errorf("page of new objects: slot array %v, %d fresh entries; want none and %d", pg.own.Load() != nil, pg.nfresh, n)
	}
	_ = buf[0]
}
