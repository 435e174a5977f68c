// Copyright 2026 The bigfoot Authors. All rights reserved.

package shadow

import (
	"testing"
	"unsafe"
)

// TestPartsByElement checks that element accesses to 2- and 4-byte
// elements split granules into parts of the element size, never per byte,
// that a narrower access refines them, and that conflicts stay exact.
func TestPartsByElement(t *testing.T) {
	quiet(t)
	s := NewSpace()
	v := escape(make([]uint32, 64))
	h := escape(make([]uint16, 64))
	a, b := thread(1, 1, nil), thread(2, 1, nil)
	for i := range v {
		th := a
		if i%2 == 1 {
			th = b // odd elements: another goroutine, unordered
		}
		if _, race := s.Write(th, unsafe.Pointer(&v[i]), 4, 1); race {
			t.Fatalf("v[%d]: race between disjoint elements", i)
		}
		if _, race := s.Write(th, unsafe.Pointer(&h[i]), 2, 1); race {
			t.Fatalf("h[%d]: race between disjoint elements", i)
		}
	}
	st := s.ShapeStats()
	if st.Split != 0 || st.Parts != 64*4/8+64*2/8 {
		t.Fatalf("shape: %+v; want %d granules in parts, none per byte", st, 64*4/8+64*2/8)
	}
	// Same-epoch accesses of whole parts stay on the fast path.
	s.Write(a, unsafe.Pointer(&v[0]), 4, 1) // caches v's page
	s.Write(b, unsafe.Pointer(&h[1]), 2, 1) // and h's
	if !s.Same(a, uintptr(unsafe.Pointer(&v[2])), 4, true) {
		t.Fatal("same-epoch uint32 write missed the fast path")
	}
	if !s.Same(b, uintptr(unsafe.Pointer(&h[5])), 2, true) {
		t.Fatal("same-epoch uint16 write missed the fast path")
	}
	// A byte of b's element v[3]: a's write races, and refines the parts.
	if _, race := s.Write(a, unsafe.Add(unsafe.Pointer(&v[3]), 1), 1, 2); !race {
		t.Fatal("write of a byte of another goroutine's element: no race")
	}
	// The other bytes keep their state: v[2] is a's, v[3]'s byte 2 b's.
	if _, race := s.Write(a, unsafe.Pointer(&v[2]), 4, 2); race {
		t.Fatal("a's own element races after the refinement")
	}
	if _, race := s.Read(a, unsafe.Add(unsafe.Pointer(&v[3]), 2), 1, 2); !race {
		t.Fatal("read of b's byte: no race after the refinement")
	}
	if st := s.ShapeStats(); st.Split != 1 {
		t.Fatalf("shape after a byte access: %+v; want one granule per byte", st)
	}
}
