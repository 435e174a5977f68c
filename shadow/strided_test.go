// Copyright 2026 The bigfoot Authors. All rights reserved.

package shadow

import (
	"testing"
	"unsafe"
)

// TestAccessStrided checks a field of every element of an array of structs
// against a neighbouring field, a strided array range, and a repeated
// location.
func TestAccessStrided(t *testing.T) {
	quiet(t)
	type pair struct {
		x int32
		y int16
		z [10]byte
	}
	s := NewSpace()
	v := escape(make([]pair, 300))
	p := unsafe.Pointer(&v[0])
	step := unsafe.Sizeof(pair{})
	a := thread(1, 1, nil)
	c := thread(2, 1, nil)
	if _, race := s.AccessStrided(a, p, 4, step, len(v), true, 1); race {
		t.Fatal("first strided write")
	}
	if _, race := s.AccessStrided(c, unsafe.Add(p, 4), 2, step, len(v), true, 2); race {
		t.Fatal("adjacent field races")
	}
	if _, race := s.AccessStrided(c, unsafe.Add(p, 6), 10, step, len(v), false, 2); race {
		t.Fatal("third field races")
	}
	r, race := s.Read(c, unsafe.Pointer(&v[299].x), 4, 3)
	if !race || r.Prev != MakeEpoch(1, 1) || r.PrevSite != 1 {
		t.Fatalf("last element: %+v %v", r, race)
	}
	if _, race := s.AccessStrided(c, unsafe.Pointer(&v[5].z[3]), 1, step, 10, true, 4); race {
		t.Fatal("a byte of z races with a read by the same thread")
	}

	// step%size == 0: every third int64.
	w := escape(make([]int64, 3000))
	q := unsafe.Pointer(&w[0])
	if _, race := s.AccessStrided(a, q, 8, 24, 1000, true, 1); race {
		t.Fatal("strided write")
	}
	if _, race := s.AccessStrided(c, unsafe.Add(q, 8), 8, 24, 1000, true, 1); race {
		t.Fatal("other residue races")
	}
	if _, race := s.Write(c, unsafe.Pointer(&w[2997]), 8, 1); !race {
		t.Fatal("no race on the last strided element")
	}
	if _, race := s.Write(c, unsafe.Pointer(&w[2999]), 8, 1); race {
		t.Fatal("race past the last strided element")
	}

	// step == 0: one location.
	x := escape(new([2]int64))
	if _, race := s.AccessStrided(a, unsafe.Pointer(&x[0]), 8, 0, 50, true, 1); race {
		t.Fatal("repeated location")
	}
	if _, race := s.AccessStrided(c, unsafe.Pointer(&x[1]), 8, 0, 50, true, 1); race {
		t.Fatal("neighbour")
	}
	if _, race := s.AccessStrided(c, unsafe.Pointer(&x[0]), 8, 0, 50, false, 1); !race {
		t.Fatal("no race on the repeated location")
	}
	if a.Stats.Checks == 0 {
		t.Fatal("no checks counted")
	}
}

// TestStridedPieceClasses is the false race of a stride run cut into a
// piece of fewer elements than it has classes: one thread writes every
// fourth element s[0], s[4], ..., s[20], another s[13] and s[14]. They
// share no element. The piece [13, 15) that the second check cuts out of
// the stride run keeps all four class cells, class 0's holding the first
// thread's write, and the check, which covers the piece whole, must look
// only at the classes that have bytes in it (1 and 2).
func TestStridedPieceClasses(t *testing.T) {
	quiet(t)
	for _, order := range []string{"stride first", "block first"} {
		for _, elem := range []uintptr{1, 2, 4, 8} {
			s := NewSpace()
			v := escape(make([]uint64, 64))
			p := unsafe.Pointer(&v[0])
			a, b := thread(1, 1, nil), thread(2, 1, nil)
			stride := func() (Race, bool) { return s.AccessStrided(a, p, elem, 4*elem, 6, true, 1) }
			block := func() (Race, bool) { return s.AccessRange(b, p, elem, 13, 15, 1, true, 2) }
			if order == "block first" {
				stride, block = block, stride
			}
			if r, race := stride(); race {
				t.Fatalf("%s, elem %d: first check: %+v", order, elem, r)
			}
			if r, race := block(); race {
				t.Fatalf("%s, elem %d: elements 13 and 14 race with 0, 4, ..., 20: %+v", order, elem, r)
			}
			// Both again, and a real conflict on element 16.
			if r, race := stride(); race {
				t.Fatalf("%s, elem %d: repeat: %+v", order, elem, r)
			}
			if r, race := s.AccessRange(b, p, elem, 16, 17, 1, false, 3); !race || r.Prev.TID() != 1 || !r.PrevWrite {
				t.Fatalf("%s, elem %d: element 16: %+v %v", order, elem, r, race)
			}
		}
	}
}

// TestSubWordSpanWholeGranules: a contiguous span of 1-, 2- or 4-byte
// elements over granules that already have state of their own (a buffer
// read word by word before its pending write was made) accesses each
// granule it covers whole, as [0, 8): no granule is split into parts of
// the element's size, and the span's ends, which cover granules only in
// part, keep their bytes exact.
func TestSubWordSpanWholeGranules(t *testing.T) {
	quiet(t)
	for _, elem := range []uintptr{1, 2, 4} {
		s := NewSpace()
		s.noRuns = true // per-granule state throughout, as after the reads
		buf := escape(make([]uint64, 64))
		base := unsafe.Pointer(&buf[0])
		a := thread(1, 1, nil)
		for i := range buf {
			if _, race := s.Read(a, unsafe.Pointer(&buf[i]), 8, 1); race {
				t.Fatal("read races")
			}
		}
		// From byte 4 to byte 508: partial granules at both ends.
		n := int((512 - 8) / elem)
		if _, race := s.AccessStrided(a, unsafe.Add(base, 4), elem, elem, n, true, 2); race {
			t.Fatalf("elem %d: the reader's own write races", elem)
		}
		if st := s.ShapeStats(); st.Split > 2 {
			t.Errorf("elem %d: %d granules split, want at most the 2 at the span's ends", elem, st.Split)
		}
		c := thread(2, 1, nil)
		// a only read the bytes outside the span: another reader
		// does not race there.
		if _, race := s.Read(c, base, 4, 3); race {
			t.Errorf("elem %d: bytes before the span race", elem)
		}
		if _, race := s.Read(c, unsafe.Add(base, 508), 4, 3); race {
			t.Errorf("elem %d: bytes after the span race", elem)
		}
		if _, race := s.Read(c, unsafe.Add(base, 256), 1, 3); !race {
			t.Errorf("elem %d: no race inside the span", elem)
		}
	}
}
