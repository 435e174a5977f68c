// Copyright 2026 The bigfoot Authors. All rights reserved.

package shadow

import (
	"testing"
	"unsafe"
)

// slotAt returns what the shadow holds for the granule of p: nil, a
// granule, or a run's embedded granule.
func slotAt(s *Space, p unsafe.Pointer) *granule {
	a := uintptr(p)
	pg := s.pages.Load(a >> pageShift)
	if pg == nil {
		return nil
	}
	return pg.slot((a & (pageSize - 1)) >> 3)
}

// hasState reports whether the shadow holds state for the granule of p:
// a granule, a run or a fresh entry of the current generation.
func hasState(s *Space, p unsafe.Pointer) bool {
	a := uintptr(p)
	pg := s.pages.Load(a >> pageShift)
	if pg == nil {
		return false
	}
	gi := (a & (pageSize - 1)) >> 3
	return pg.slot(gi) != nil || pg.hasFresh(gi) && pg.fgen.Load() == uint32(lagGen.Load())
}

// sweepWith runs a sweep of s with the frontier f.
func sweepWith(s *Space, f []uint64) {
	s.SetFrontier(func() []uint64 { return f })
	s.Sweep()
}

// TestFrontierGranule drops a granule whose write and read-shared epochs
// the frontier covers, and keeps it while any one epoch is above it.
func TestFrontierGranule(t *testing.T) {
	quiet(t)
	s := NewSpace()
	v := escape(new([4]int64))
	p := unsafe.Pointer(&v[1])
	ts := threads(3)
	a, b, c := ts[0], ts[1], ts[2]
	s.Write(a, p, 8, 1) // a@1
	barrier(ts...)
	s.Read(b, p, 8, 2) // b@2
	s.Read(c, p, 8, 3) // c@2: read-shared, a read vector clock
	if gr := slotAt(s, p); gr == nil || gr.whole.r.Load() != shared {
		t.Fatalf("no read-shared state: %+v", gr)
	}
	for _, f := range [][]uint64{
		nil,
		{0, 1, 2},    // c's read is above
		{0, 1, 1, 2}, // b's read is above
		{0, 0, 2, 2}, // a's write is above
	} {
		sweepWith(s, f)
		if slotAt(s, p) == nil {
			t.Fatalf("frontier %v dropped a state above it", f)
		}
	}
	sweepWith(s, []uint64{0, 1, 2, 2})
	if gr := slotAt(s, p); gr != nil {
		t.Fatalf("a settled state was kept: %+v", gr)
	}
	// Every thread is past the frontier: no access finds a race, as
	// with the state kept.
	barrier(ts...)
	if _, race := s.Write(c, p, 8, 4); race {
		t.Fatal("write after the drop races")
	}
}

// TestFrontierSplit drops a split granule only when every part is settled.
func TestFrontierSplit(t *testing.T) {
	quiet(t)
	s := NewSpace()
	v := escape(new([8]byte))
	ts := threads(2)
	a, b := ts[0], ts[1]
	s.Write(a, unsafe.Pointer(&v[0]), 2, 1) // a@1
	s.Write(b, unsafe.Pointer(&v[4]), 2, 2) // b@1
	release(b)
	s.Write(b, unsafe.Pointer(&v[6]), 1, 3) // b@2
	if gr := slotAt(s, unsafe.Pointer(&v[0])); gr == nil || gr.split.Load() == nil {
		t.Fatalf("granule not split: %+v", gr)
	}
	sweepWith(s, []uint64{0, 1, 1})
	if slotAt(s, unsafe.Pointer(&v[0])) == nil {
		t.Fatal("dropped a split granule with a part above the frontier")
	}
	sweepWith(s, []uint64{0, 1, 2})
	if gr := slotAt(s, unsafe.Pointer(&v[0])); gr != nil {
		t.Fatalf("a settled split granule was kept: %+v", gr)
	}
}

// TestFrontierRun drops coarse and mapped runs whose cells are settled.
func TestFrontierRun(t *testing.T) {
	quiet(t)
	s := NewSpace()
	const n = 2048 // 2 pages of uint32
	v := escape(make([]uint32, n))
	p := unsafe.Pointer(&v[0])
	ts := threads(2)
	a, b := ts[0], ts[1]
	s.AccessRange(a, p, 4, 0, n, 1, true, 1) // a@1
	if st := s.ShapeStats(); st.Coarse+st.Block == 0 || st.Fine != 0 {
		t.Fatalf("no runs: %+v", st)
	}
	sweepWith(s, []uint64{0, 0})
	if st := s.ShapeStats(); st.RunGranules != n/2 {
		t.Fatalf("dropped runs above the frontier: %+v", st)
	}
	sweepWith(s, []uint64{0, 1})
	if st := s.ShapeStats(); st.RunGranules != 0 || st.Pages != 0 {
		t.Fatalf("settled runs were kept: %+v", st)
	}

	// A mapped run: a block written by a, then a sparse set read by b.
	s.AccessRange(a, p, 4, 0, n, 1, true, 1) // a@1
	barrier(ts...)
	for i := 0; i < n; i += 4 {
		s.AccessSparse(b, unsafe.Pointer(&v[i]), 4, false, 2) // b@2
	}
	if st := s.ShapeStats(); st.Mapped == 0 {
		t.Fatalf("no mapped run: %+v", st)
	}
	sweepWith(s, []uint64{0, 1, 1}) // b's reads are above
	if st := s.ShapeStats(); st.Mapped == 0 {
		t.Fatalf("dropped a mapped run above the frontier: %+v", st)
	}
	sweepWith(s, []uint64{0, 1, 2})
	if st := s.ShapeStats(); st.RunGranules != 0 || st.Fine != 0 {
		t.Fatalf("settled mapped runs were kept: %+v", st)
	}
}

// TestFrontierLowerBound checks what a sweep may not do: with a frontier
// that is a lower bound of every thread's clock, a race between a thread
// that did not synchronize with the writer and the writer's settled-looking
// state is still found, because that thread keeps the frontier low.
func TestFrontierLowerBound(t *testing.T) {
	quiet(t)
	s := NewSpace()
	v := escape(new(int64))
	p := unsafe.Pointer(v)
	ts := threads(3)
	a, b, c := ts[0], ts[1], ts[2]
	s.Write(a, p, 8, 1)             // a@1
	acquire(b, release(a))          // b is past a@1, c is not
	f := []uint64{0, c.VC[1], 0, 0} // c's snapshot pins F[a] to 0
	for i, x := range b.VC {
		f[i] = min(f[i], x)
	}
	sweepWith(s, f)
	if _, race := s.Read(c, p, 8, 2); !race {
		t.Fatal("the race of c with a's write was lost")
	}
}
