// Copyright 2026 The bigfoot Authors. All rights reserved.

package shadow

import (
	"runtime"
	"testing"
	"unsafe"
)

// splitBytes reads the 8 bytes at p four at a time, writes them one at a
// time, then reads them two at a time and writes them four at a time, as
// t: the granule splits (into parts of 4 bytes where an earlier epoch's
// write covers it whole) and a byte write refines it to 1-byte parts. The
// reads come first: a read of bytes t wrote in this epoch records
// nothing (cell.ownWrite), so it would split nothing.
func splitBytes(tb testing.TB, s *Space, t *Thread, p unsafe.Pointer) {
	for i, size := range []uintptr{4, 1, 2, 4} {
		for off := uintptr(0); off < 8; off += size {
			q := unsafe.Add(p, off)
			if _, race := s.Access(t, q, size, i%2 == 1, 1); race {
				tb.Fatalf("%d-byte access at +%d by one thread races", size, off)
			}
		}
	}
}

// A granule one goroutine splits (bytes of a buffer written one at a
// time, protobuf's and encoding/binary's appends) stays off the heap with
// its parts: splitting and refining it allocate no heap object, which a
// program's testing.AllocsPerRun would count (it counted a heap granule,
// its parts and a cell per split granule).
func TestSplitOffHeap(t *testing.T) {
	if !recycleGranules {
		t.Skip("off-heap memory is heap memory under go test -race")
	}
	quiet(t)
	untracked(t)
	s := NewSpace()
	const runs = 100
	buf := escape(make([]int64, runs+2))
	a := thread(1, 1, nil)
	// The pages and their slot arrays exist before the count.
	for i := range buf {
		s.Write(a, unsafe.Pointer(&buf[i]), 8, 1)
	}
	a = thread(1, 2, nil)
	i := 0
	allocs := testing.AllocsPerRun(runs, func() {
		splitBytes(t, s, a, unsafe.Pointer(&buf[i]))
		i++
	})
	if allocs != 0 {
		t.Errorf("splitting and refining an off-heap granule: %v heap allocations, want 0", allocs)
	}
	gr := slotOf(s, unsafe.Pointer(&buf[0]))
	if gr == nil || !gr.off {
		t.Fatalf("split granule %+v is not off the heap", gr)
	}
	sp := gr.split.Load()
	if sp == nil || !sp.off || sp.shift != 0 {
		t.Fatalf("split granule's parts %+v: want off-heap parts of 1 byte", sp)
	}
	runtime.KeepAlive(buf)
}

// A read that would share a part of an off-heap granule moves the granule
// and its parts to the heap first, with their state: the parts' earlier
// accesses still race with unordered ones, and ordered ones do not.
func TestSplitOffHeapPromoted(t *testing.T) {
	quiet(t)
	untracked(t)
	s := NewSpace()
	buf := escape(new(int64))
	p := unsafe.Pointer(buf)
	a := thread(1, 1, nil)
	splitBytes(t, s, a, p)
	b := thread(2, 1, map[uint32]uint64{1: 1}) // after a's writes
	if _, race := s.Read(b, unsafe.Add(p, 3), 1, 2); race {
		t.Fatal("ordered read races")
	}
	c := thread(3, 1, map[uint32]uint64{1: 1}) // after a, not b
	if _, race := s.Read(c, unsafe.Add(p, 3), 1, 3); race {
		t.Fatal("second ordered read races")
	}
	gr := slotOf(s, p)
	if gr == nil || gr.off {
		t.Fatalf("granule of a read-shared part %+v is off the heap", gr)
	}
	sp := gr.split.Load()
	if sp == nil || sp.off || sp.shift != 0 || sp.cells[3].r.Load() != shared || sp.cells[3].rvc.Load() == nil {
		t.Fatalf("promoted parts %+v: want heap parts of 1 byte, byte 3 read-shared", sp)
	}
	d := thread(4, 1, map[uint32]uint64{1: 2}) // after a, not b or c
	r, race := s.Write(d, unsafe.Add(p, 3), 1, 4)
	if !race || r.PrevWrite || (r.Prev != b.Epoch && r.Prev != c.Epoch) {
		t.Fatalf("write after unordered shared reads: race %v %+v", race, r)
	}
	if _, race := s.Write(d, unsafe.Add(p, 5), 1, 4); race {
		t.Fatal("write ordered after a's write of byte 5 races")
	}
	e := thread(5, 1, nil) // unordered with all
	if r, race := s.Write(e, unsafe.Add(p, 6), 1, 5); !race || r.Prev != a.Epoch || !r.PrevWrite {
		t.Fatalf("unordered write of byte 6: race %v %+v, want a's write", race, r)
	}
}

// The parts of off-heap granules return to their pools with their
// granules (the sweep after their objects die) and when refined: rounds
// of fresh split buffers do not grow the parts in use.
func TestOffPartsRecycled(t *testing.T) {
	if !recycleGranules {
		t.Skip("granules are not recycled under go test -race")
	}
	untracked(t)
	s := NewSpace()
	a := thread(1, 1, nil)
	round := func() {
		objs := make([]*[4]int64, 2000)
		for i := range objs {
			objs[i] = new([4]int64)
			splitBytes(t, s, a, unsafe.Pointer(&objs[i][1]))
		}
		runtime.KeepAlive(objs)
	}
	inUse := func() (n int64) {
		for i := range partsPools {
			n += partsPools[i].inUse.Load()
		}
		return n
	}
	var used []int64
	for range 6 {
		Quiesce()
		before := inUse()
		round()
		if n := inUse() - before; n != 2000 {
			t.Fatalf("a round of 2000 split objects holds %d off-heap parts, want 2000 (one each, refined ones freed)", n)
		}
		runtime.GC()
		Quiesce()
		s.Sweep()
		used = append(used, inUse())
	}
	if first, last := used[1], used[len(used)-1]; last > first+poolBatch*4 {
		t.Fatalf("off-heap parts in use grow with rounds of split objects: %v", used)
	}
}
