// Copyright 2026 The bigfoot Authors. All rights reserved.

package shadow

import (
	"runtime"
	"testing"
	"unsafe"
)

var (
	globalArray [64]int64
	heapSink    any // what tests store here is a heap object
)

func TestObjectBounds(t *testing.T) {
	if elemsizeOff == 0 {
		t.Fatal("the slot size of the runtime's spans could not be measured")
	}
	for _, n := range []int{1, 7, 16, 24, 100, 513, 1000, 4096, 9000, 40000, 1 << 20} {
		b := make([]byte, n)
		heapSink = b
		for _, i := range []int{0, n / 2, n - 1} {
			base, size, heap := ObjectBounds(uintptr(unsafe.Pointer(&b[i])))
			p := uintptr(unsafe.Pointer(&b[0]))
			if !heap || base > p || base+size < p+uintptr(n) {
				t.Errorf("make([]byte, %d), element %d: bounds [%#x, %#x+%d) heap=%v do not contain the slice at %#x", n, i, base, base, size, heap, p)
			}
			if n >= 16 && size >= 2*uintptr(n) && n > 1024 {
				t.Errorf("make([]byte, %d): slot of %d bytes", n, size)
			}
		}
		runtime.KeepAlive(b)
	}
	if _, _, heap := ObjectBounds(uintptr(unsafe.Pointer(&globalArray[3]))); heap {
		t.Error("a global is in the heap")
	}
	var local [4]int
	if _, _, heap := ObjectBounds(uintptr(unsafe.Pointer(&local[1]))); heap {
		t.Error("a stack variable is in the heap")
	}
}

// TestObjectBoundsNeighbours allocates objects of one size class back to
// back: each one's bounds hold it and none of its neighbours.
func TestObjectBoundsNeighbours(t *testing.T) {
	objs := make([][]int64, 64)
	for i := range objs {
		objs[i] = make([]int64, 8) // 64 bytes: one size class
	}
	heapSink = objs
	for i, o := range objs {
		base, size, _ := ObjectBounds(uintptr(unsafe.Pointer(&o[5])))
		if base != uintptr(unsafe.Pointer(&o[0])) || size != 64 {
			t.Fatalf("object %d at %p: bounds %#x+%d, want the object's 64 bytes", i, &o[0], base, size)
		}
		for j, p := range objs {
			if j != i && SameObject(uintptr(unsafe.Pointer(&o[0])), uintptr(unsafe.Pointer(&p[0]))) {
				t.Fatalf("objects %d and %d are one object", i, j)
			}
		}
	}
}

// adjacentObjects returns two objects of n int64s that lie back to back
// in memory, in one page.
func adjacentObjects(t *testing.T, n int) (a, b []int64) {
	objs := make([][]int64, 512)
	for i := range objs {
		objs[i] = make([]int64, n)
	}
	heapSink = objs
	for i := 1; i < len(objs); i++ {
		x, y := uintptr(unsafe.Pointer(&objs[i-1][0])), uintptr(unsafe.Pointer(&objs[i][0]))
		if y < x {
			x, y = y, x
			objs[i-1], objs[i] = objs[i], objs[i-1]
		}
		if x+uintptr(n)*8 == y && x>>pageShift == (y+uintptr(n)*8-1)>>pageShift {
			return objs[i-1], objs[i]
		}
	}
	t.Fatal("no two adjacent objects in one page")
	return nil, nil
}

// runAt returns the run that covers the granule at p, or nil.
func (s *Space) runAt(p unsafe.Pointer) *run {
	a := uintptr(p)
	pg := s.pages.Load(a >> pageShift)
	if pg == nil {
		return nil
	}
	gr := pg.slot((a & (pageSize - 1)) >> 3)
	if gr == nil || !gr.isRun() {
		return nil
	}
	return asRun(gr)
}

// TestRunsStayInObject checks that a run never covers two heap objects: a
// strided check across two adjacent objects makes one run for each, and
// two runs of adjacent objects with identical state do not merge, so the
// GC state of each (generation, weak pointer) is its own object's.
func TestRunsStayInObject(t *testing.T) {
	quiet(t)
	s := NewSpace()
	a, b := adjacentObjects(t, 16) // 128 bytes each
	th := thread(1, 1, nil)
	// One check over both.
	if _, race := s.AccessStrided(th, unsafe.Pointer(&a[0]), 8, 8, 32, true, 1); race {
		t.Fatal("race")
	}
	ra, rb := s.runAt(unsafe.Pointer(&a[15])), s.runAt(unsafe.Pointer(&b[0]))
	if ra == nil || rb == nil || ra == rb {
		t.Fatalf("runs over two objects: %p and %p, want two", ra, rb)
	}
	if ra.obj != uintptr(unsafe.Pointer(&a[0])) || rb.obj != uintptr(unsafe.Pointer(&b[0])) {
		t.Errorf("runs' objects %#x, %#x; want %p, %p", ra.obj, rb.obj, &a[0], &b[0])
	}
	// Identical state, in separate checks: still two runs.
	s2 := NewSpace()
	th2 := thread(2, 1, nil)
	for range 2 { // the second time, in a new epoch, runs may merge
		s2.AccessRange(th2, unsafe.Pointer(&a[0]), 8, 0, 16, 1, true, 1)
		s2.AccessRange(th2, unsafe.Pointer(&b[0]), 8, 0, 16, 1, true, 1)
		release(th2)
	}
	if ra, rb := s2.runAt(unsafe.Pointer(&a[0])), s2.runAt(unsafe.Pointer(&b[0])); ra == nil || ra == rb {
		t.Errorf("runs of two adjacent objects merged (%p, %p)", ra, rb)
	}
	// The same check within one object merges its pieces again.
	c := escape(make([]int64, 64))
	s3 := NewSpace()
	for range 2 {
		s3.AccessRange(th2, unsafe.Pointer(&c[0]), 8, 0, 32, 1, true, 1)
		s3.AccessRange(th2, unsafe.Pointer(&c[0]), 8, 32, 64, 1, true, 1)
		release(th2)
	}
	if r0, r1 := s3.runAt(unsafe.Pointer(&c[0])), s3.runAt(unsafe.Pointer(&c[63])); r0 == nil || r0 != r1 {
		if uintptr(unsafe.Pointer(&c[0]))>>pageShift == uintptr(unsafe.Pointer(&c[63]))>>pageShift {
			t.Errorf("runs of one object did not merge (%p, %p)", r0, r1)
		}
	}
}
