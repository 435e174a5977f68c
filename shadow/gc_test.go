// Copyright 2026 The bigfoot Authors. All rights reserved.

package shadow

import (
	"runtime"
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
