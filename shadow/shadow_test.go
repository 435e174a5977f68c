// Copyright 2026 The bigfoot Authors. All rights reserved.

package shadow

import (
	"runtime"
	"runtime/debug"
	"sync"
	"testing"
	"unsafe"
)

// thread returns a thread with id tid at clock c that knows the clocks in
// others (tid: clock).
func thread(tid uint32, c uint64, others map[uint32]uint64) *Thread {
	vc := make([]uint64, tid+1)
	for t, x := range others {
		for int(t) >= len(vc) {
			vc = append(vc, 0)
		}
		vc[t] = x
	}
	vc[tid] = c
	return &Thread{Epoch: MakeEpoch(tid, c), VC: vc}
}

// quiet keeps GC cycles from starting during a test and waits until the
// last one is observed: state that straddles a cycle is dropped by design
// (gc.go), which would make the expected races flaky.
func quiet(t *testing.T) {
	old := debug.SetGCPercent(-1)
	t.Cleanup(func() { debug.SetGCPercent(old) })
	Quiesce()
}

func TestEpoch(t *testing.T) {
	e := MakeEpoch(MaxTID, 1<<ClockBits-1)
	if e.TID() != MaxTID || e.Clock() != 1<<ClockBits-1 || uint64(e) == shared {
		t.Errorf("epoch round trip: %d %d", e.TID(), e.Clock())
	}
	if !HB(0, nil) || HB(MakeEpoch(3, 1), []uint64{5, 5}) || !HB(MakeEpoch(1, 5), []uint64{0, 5}) {
		t.Error("HB")
	}
}

func TestSpaceRules(t *testing.T) {
	quiet(t)
	s := NewSpace()
	x := escape(new([4]int64))
	p := unsafe.Pointer(&x[0])
	a := thread(1, 1, nil)
	b := thread(2, 1, nil)
	if _, race := s.Write(a, p, 8, 1); race {
		t.Fatal("first write races")
	}
	if _, race := s.Write(a, p, 8, 1); race || a.Stats.Rules[WriteSameEpoch] != 1 {
		t.Fatal("write same epoch")
	}
	r, race := s.Read(b, p, 8, 2)
	if !race || !r.PrevWrite || r.Prev != MakeEpoch(1, 1) || r.PrevSite != 1 || r.Write {
		t.Fatalf("write-read race: %+v %v", r, race)
	}
	// b now knows a's write; c reads concurrently with b: read-share.
	c := thread(3, 1, map[uint32]uint64{1: 1})
	if _, race := s.Read(c, p, 8, 3); race || c.Stats.Rules[ReadShare] != 1 {
		t.Fatalf("read share: %v %v", race, c.Stats.Rules)
	}
	if _, race := s.Read(c, p, 8, 3); race || c.Stats.Rules[ReadSharedSameEpoch] != 1 {
		t.Fatal("read shared same epoch")
	}
	// A writer that knows only c's read races with b's.
	w := thread(4, 1, map[uint32]uint64{1: 1, 3: 1})
	r, race = s.Write(w, p, 8, 4)
	if !race || r.PrevWrite || r.Prev != MakeEpoch(2, 1) || r.PrevSite != 2 {
		t.Fatalf("write-shared race: %+v %v", r, race)
	}
	if w.Stats.Rules[WriteShared] != 1 {
		t.Fatal("write shared")
	}
	// Deflated: a reader ordered after w reads exclusively.
	d := thread(5, 1, map[uint32]uint64{4: 1})
	if _, race := s.Read(d, p, 8, 5); race || d.Stats.Rules[ReadExclusive] != 1 {
		t.Fatal("read exclusive after write shared")
	}
}

func TestSpaceBytePrecision(t *testing.T) {
	quiet(t)
	s := NewSpace()
	b := escape(make([]byte, 32))
	p := unsafe.Pointer(&b[0])
	a := thread(1, 1, nil)
	c := thread(2, 1, nil)
	// Unordered threads write alternate bytes, then disjoint sub-ranges.
	for i := 0; i < 32; i += 2 {
		if _, race := s.Write(a, unsafe.Add(p, i), 1, 0); race {
			t.Fatal("race on disjoint bytes")
		}
		if _, race := s.Write(c, unsafe.Add(p, i+1), 1, 0); race {
			t.Fatal("race on disjoint bytes")
		}
	}
	if _, race := s.Write(a, unsafe.Add(p, 3), 1, 0); !race {
		t.Fatal("no race on the same byte")
	}
	// A whole-word read overlaps both threads' bytes.
	d := thread(3, 1, map[uint32]uint64{1: 1})
	if r, race := s.Read(d, unsafe.Add(p, 8), 8, 0); !race || r.Prev.TID() != 2 {
		t.Fatalf("word read over bytes: %+v %v", r, race)
	}
	// Accesses crossing a granule boundary, unaligned.
	q := escape(make([]byte, 32))
	pq := unsafe.Pointer(&q[0])
	if _, race := s.Write(a, unsafe.Add(pq, 6), 4, 0); race {
		t.Fatal("first write")
	}
	if _, race := s.Write(c, unsafe.Add(pq, 10), 4, 0); race {
		t.Fatal("adjacent unaligned range")
	}
	if _, race := s.Read(c, unsafe.Add(pq, 9), 1, 0); !race {
		t.Fatal("no race inside a crossing write")
	}
}

func TestSpaceRange(t *testing.T) {
	quiet(t)
	s := NewSpace()
	v := escape(make([]int32, 1024))
	p := unsafe.Pointer(&v[0])
	a := thread(1, 1, nil)
	c := thread(2, 1, nil)
	if _, race := s.AccessRange(a, p, 4, 0, 1024, 2, true, 0); race {
		t.Fatal("even elements")
	}
	if _, race := s.AccessRange(c, p, 4, 1, 1024, 2, true, 0); race {
		t.Fatal("odd elements race with even ones")
	}
	if _, race := s.AccessRange(c, p, 4, 1000, 1001, 1, false, 0); !race {
		t.Fatal("no race on element 1000")
	}
}

func TestMap(t *testing.T) {
	var m Map[int]
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 10000 {
				k := uintptr(w*100000 + i + 1)
				v := new(int)
				*v = i
				m.Store(k, v)
				if got := m.Load(k); got != v {
					t.Errorf("Load(%d) = %v", k, got)
					return
				}
				if i%2 == 0 && !m.CompareAndDelete(k, v) {
					t.Errorf("CompareAndDelete(%d)", k)
					return
				}
			}
		}()
	}
	wg.Wait()
	if n := m.Len(); n != 4*5000 {
		t.Errorf("Len = %d, want %d", n, 4*5000)
	}
	n := 0
	m.Range(func(k uintptr, v *int) bool {
		if *v%2 != 1 {
			t.Errorf("deleted key %d present", k)
		}
		n++
		return true
	})
	if n != 4*5000 {
		t.Errorf("Range saw %d keys", n)
	}
	v, loaded := m.LoadOrStore(7, func() *int { return new(int) })
	if loaded || m.Load(7) != v {
		t.Error("LoadOrStore")
	}
}

var sink []any

// escape moves x to the heap: the shadow never makes its argument escape,
// and stack memory would be shared between test runs.
func escape[T any](x T) T {
	sink = append(sink, x)
	return x
}

// TestReadVCSparse checks that a read vector clock has one entry per
// reader, whatever the readers' thread ids, and that a write checks each.
func TestReadVCSparse(t *testing.T) {
	quiet(t)
	s := NewSpace()
	x := escape(new([4]int64))
	p := unsafe.Pointer(&x[0])
	tids := []uint32{70, 1, 200, 3, 5}
	for i, tid := range tids {
		if _, race := s.Read(thread(tid, uint64(i+1), nil), p, 8, uint32(10+i)); race {
			t.Fatalf("read by %d races", tid)
		}
	}
	v := slotOf(s, p).whole.rvc.Load()
	if v == nil || len(v.ents) != 2*rvMin {
		t.Fatalf("read vector clock of %d readers: %+v", len(tids), v)
	}
	for i, tid := range tids {
		if got := v.get(tid); got != uint64(i+1) {
			t.Errorf("entry of %d: clock %d, want %d", tid, got, i+1)
		}
	}
	if v.get(2) != 0 || v.find(2) >= 0 {
		t.Error("entry for a thread that did not read")
	}
	// A writer ordered after every reader but thread 200 races with it.
	known := map[uint32]uint64{}
	for i, tid := range tids {
		if tid != 200 {
			known[tid] = uint64(i + 1)
		}
	}
	r, race := s.Write(thread(2, 1, known), p, 8, 99)
	if !race || r.Prev != MakeEpoch(200, 3) || r.PrevSite != 12 || r.PrevWrite {
		t.Fatalf("write after the reads: %+v %v, want the read of thread 200", r, race)
	}
	c := &slotOf(s, p).whole
	if c.r.Load() == shared {
		t.Fatal("the write did not deflate the read vector clock")
	}
	if v := c.rvc.Load(); v != nil {
		for i := range v.ents {
			if v.ents[i].e.Load() != frozen {
				t.Errorf("entry %d of the dropped read vector clock not taken", i)
			}
		}
	}
}

// TestReadVCDropsReadsBefore checks that a full read vector clock leaves
// out, to make room, the reads that happen before the new reader's (readVC.grown): a
// location read by a thousand goroutines one after another keeps a clock
// of rvMin entries, one read by unordered goroutines keeps each, an atomic
// reader leaves none out, and a write still races with what it must.
func TestReadVCDropsReadsBefore(t *testing.T) {
	quiet(t)
	s := NewSpace()
	x := escape(new([4]int64))
	p := unsafe.Pointer(&x[0])
	const chain = 1000
	// Readers 1 and 2 unordered (read-share), then each after every one
	// before.
	known := map[uint32]uint64{}
	for tid := uint32(1); tid <= chain; tid++ {
		if _, race := s.Read(thread(tid, 1, known), p, 8, tid); race {
			t.Fatalf("read by %d races", tid)
		}
		if tid != 1 {
			known[tid-1], known[tid] = 1, 1
		}
	}
	c := &slotOf(s, p).whole
	if v := c.rvc.Load(); c.r.Load() != shared || len(v.ents) != rvMin || v.get(chain) != 1 {
		t.Fatalf("%d reads one after another: shared %v, entries %d, last reader's clock %d; want %d entries",
			chain, c.r.Load() == shared, len(v.ents), v.get(chain), rvMin)
	}
	// Ten readers after the chain's first half only, unordered among
	// themselves: each is kept, and so is the chain's last.
	half := map[uint32]uint64{}
	for tid := uint32(1); tid <= chain/2; tid++ {
		half[tid] = 1
	}
	for tid := uint32(chain + 1); tid <= chain+10; tid++ {
		if _, race := s.Read(thread(tid, 1, half), p, 8, tid); race {
			t.Fatalf("read by %d races", tid)
		}
	}
	v := c.rvc.Load()
	for tid := uint32(chain); tid <= chain+10; tid++ {
		if v.get(tid) != 1 {
			t.Errorf("reader %d left out of the read vector clock", tid)
		}
	}
	if len(v.ents) > 4*rvMin {
		t.Errorf("11 unordered readers: %d entries, want at most %d", len(v.ents), 4*rvMin)
	}
	// A write after every reader but 1005 races with 1005's read alone.
	all := map[uint32]uint64{}
	for tid := uint32(1); tid <= chain+10; tid++ {
		if tid != chain+5 {
			all[tid] = 1
		}
	}
	r, race := s.Write(thread(chain+20, 1, all), p, 8, 99)
	if !race || r.Prev != MakeEpoch(chain+5, 1) || r.PrevWrite {
		t.Fatalf("write after all reads but one: %+v %v, want the read of thread %d", r, race, chain+5)
	}
	// A write after the chain's reads but its last races with that read,
	// which stands for the reads it left out.
	y := escape(new([4]int64))
	q := unsafe.Pointer(&y[0])
	known = map[uint32]uint64{}
	for tid := uint32(1); tid <= chain; tid++ {
		s.Read(thread(tid, 1, known), q, 8, tid)
		if tid != 1 {
			known[tid-1], known[tid] = 1, 1
		}
	}
	delete(known, chain)
	if r, race := s.Write(thread(chain+20, 1, known), q, 8, 99); !race || r.Prev != MakeEpoch(chain, 1) {
		t.Fatalf("write before the last read: %+v %v, want the read of thread %d", r, race, chain)
	}
	// Atomic reads leave out nothing.
	z := escape(new([4]int64))
	u := unsafe.Pointer(&z[0])
	known = map[uint32]uint64{}
	for tid := uint32(1); tid <= 100; tid++ {
		a := thread(tid, 1, known)
		if tid > 1 {
			a.Atomic = 7
		}
		s.Read(a, u, 8, 7)
		if tid != 1 {
			known[tid-1], known[tid] = 1, 1
		}
	}
	if n := len(slotOf(s, u).whole.rvc.Load().ents); n < 100 {
		t.Errorf("100 readers, 99 atomic: %d entries, want one each", n)
	}
	runtime.KeepAlive(x)
	runtime.KeepAlive(y)
	runtime.KeepAlive(z)
}

// TestReadVCReshared checks that a cell read-shared again after a write
// reuses the read vector clock the write dropped (reshared), holding the
// new readers only, with the races of the new state.
func TestReadVCReshared(t *testing.T) {
	s, x, _, v := sharedCell(t)
	p := unsafe.Pointer(x)
	w := thread(4, 1, map[uint32]uint64{1: 1, 2: 1, 3: 1})
	if _, race := s.Write(w, p, 8, 5); race {
		t.Fatal("ordered write races")
	}
	// Threads 5 and 6 read after the write; 7 is not ordered after it.
	r5 := thread(5, 1, map[uint32]uint64{4: 1})
	r6 := thread(6, 1, map[uint32]uint64{4: 1})
	for _, r := range []*Thread{r5, r6} {
		if _, race := s.Read(r, p, 8, 6); race {
			t.Fatal("ordered read after the write races")
		}
	}
	c := &slotOf(s, p).whole
	if c.r.Load() != shared || c.rvc.Load() != v {
		t.Fatalf("not read-shared again in the dropped clock (shared %v, same clock %v)", c.r.Load() == shared, c.rvc.Load() == v)
	}
	for _, tid := range []uint32{1, 2, 3} {
		if v.find(tid) >= 0 {
			t.Errorf("the reused clock still has an entry of reader %d from before the write", tid)
		}
	}
	if v.get(5) != 1 || v.get(6) != 1 {
		t.Errorf("entries of the new readers: %d, %d", v.get(5), v.get(6))
	}
	if _, race := s.Read(thread(7, 1, nil), p, 8, 7); !race {
		t.Error("unordered read after the write: no race")
	}
	// A write ordered after 5 only races with 6's read.
	rc, race := s.Write(thread(8, 1, map[uint32]uint64{4: 1, 5: 1, 7: 1}), p, 8, 8)
	if !race || rc.Prev != MakeEpoch(6, 1) {
		t.Errorf("write after the new reads: %+v %v, want the read of thread 6", rc, race)
	}
	runtime.KeepAlive(x)
}
