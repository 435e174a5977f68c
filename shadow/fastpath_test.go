// Copyright 2026 The bigfoot Authors. All rights reserved.

package shadow

import (
	"runtime"
	"testing"
	"unsafe"
)

// TestSameSplit checks the lock-free same-epoch path of Same on granules
// split per byte: a []byte written byte by byte, and uint16 halves of a
// read-shared table.
func TestSameSplit(t *testing.T) {
	quiet(t)
	s := NewSpace()
	buf := escape(new([16]byte))
	a := thread(1, 1, nil)
	p := unsafe.Pointer(&buf[0])
	s.Write(a, p, 1, 0)
	s.Write(a, unsafe.Add(p, 1), 1, 1) // another site: splits the granule (see granule.widens)
	if !s.Same(a, uintptr(p)+1, 1, true) || !s.Same(a, uintptr(p), 2, true) {
		t.Fatal("same-epoch write to a split granule missed the fast path")
	}
	if s.Same(a, uintptr(p)+2, 1, true) || s.Same(a, uintptr(p)+1, 2, true) {
		t.Fatal("fast path for a byte not written in this epoch")
	}
	// A read of a byte a wrote in this epoch needs nothing
	// (cell.ownWrite); of one it did not write, it does.
	if !s.Same(a, uintptr(p), 1, false) || s.Same(a, uintptr(p)+2, 1, false) {
		t.Fatal("a's read of its own write in this epoch not decided, or of a byte it did not write decided")
	}
	// A new epoch: no fast path, and the bytes stay apart.
	a.VC[1]++
	a.Epoch = MakeEpoch(1, a.VC[1])
	if s.Same(a, uintptr(p), 1, true) {
		t.Fatal("fast path in a new epoch")
	}
	b := thread(2, 1, nil) // unordered with a
	if _, race := s.Write(b, unsafe.Add(p, 2), 1, 0); race {
		t.Fatal("adjacent byte aliases")
	}
	if _, race := s.Write(b, unsafe.Add(p, 1), 1, 0); !race {
		t.Fatal("race on a split byte missed")
	}

	// Read-shared uint16 halves.
	tab := escape(new([4]uint16))
	q := unsafe.Pointer(&tab[0])
	w := thread(3, 1, nil)
	s.Write(w, q, 2, 0)
	s.Write(w, unsafe.Add(q, 2), 2, 0)
	r1 := thread(4, 1, map[uint32]uint64{3: 1})
	r2 := thread(5, 1, map[uint32]uint64{3: 1})
	for _, r := range []*Thread{r1, r2} {
		for off := uintptr(0); off < 4; off += 2 {
			if _, race := s.Read(r, unsafe.Add(q, off), 2, 0); race {
				t.Fatal("ordered read races")
			}
		}
	}
	for _, r := range []*Thread{r1, r2} {
		if !s.Same(r, uintptr(q)+2, 2, false) {
			t.Fatal("read-shared same epoch on a split granule missed the fast path")
		}
	}
	if s.Same(r1, uintptr(q)+4, 2, false) {
		t.Fatal("fast path for an unread half")
	}
	if _, race := s.Write(thread(6, 1, map[uint32]uint64{3: 1, 4: 1}), unsafe.Add(q, 2), 2, 0); !race {
		t.Fatal("write-shared race with r2 missed")
	}
	runtime.KeepAlive(buf)
	runtime.KeepAlive(tab)
}

// TestSameWide checks Same on accesses of several granules (sameWide): a
// slice header written whole is in the epoch for any of its bytes, for a
// write or a read (cell.ownWrite), and bytes not written in the epoch are
// not.
func TestSameWide(t *testing.T) {
	quiet(t)
	s := NewSpace()
	obj := escape(new([8]uint64))
	a := thread(1, 1, nil)
	p := unsafe.Pointer(&obj[0])
	s.Write(a, p, 24, 0)
	if !s.Same(a, uintptr(p), 24, true) || !s.Same(a, uintptr(p)+4, 16, true) {
		t.Fatal("a same-epoch write of written granules missed the fast path")
	}
	if s.Same(a, uintptr(p)+16, 16, true) {
		t.Fatal("fast path for bytes not written in this epoch")
	}
	if !s.Same(a, uintptr(p), 24, false) || s.Same(a, uintptr(p)+16, 16, false) {
		t.Fatal("a's read of its own write in this epoch not decided, or of bytes it did not write decided")
	}
	s.Read(a, unsafe.Add(p, 8), 1, 0) // one byte of granule 1, which may split it
	if !s.Same(a, uintptr(p), 16, true) {
		t.Fatal("fast path missed after a read of part of a written granule")
	}
	a.VC[1]++
	a.Epoch = MakeEpoch(1, a.VC[1])
	if s.Same(a, uintptr(p), 24, true) {
		t.Fatal("fast path in a new epoch")
	}
	runtime.KeepAlive(obj)
}

// TestObjectWeak checks that the weak pointers of all granules of one
// object are the object's, and that it still dies with the object.
func TestObjectWeak(t *testing.T) {
	b := make([]byte, 1<<20)
	w1 := objectWeak(uintptr(unsafe.Pointer(&b[100])))
	w2 := objectWeak(uintptr(unsafe.Pointer(&b[500000])))
	if w1 != w2 || w1.Value() != &b[0] {
		t.Fatal("granules of one object have different weak pointers")
	}
	c := escape(new([4]int64))
	if objectWeak(uintptr(unsafe.Pointer(&c[2]))).Value() != (*byte)(unsafe.Pointer(c)) {
		t.Fatal("weak pointer not to the small object's base")
	}
	runtime.KeepAlive(b)
	b, c, sink = nil, nil, nil
	for range 3 {
		Quiesce()
		runtime.GC()
	}
	if w1.Value() != nil {
		t.Fatal("weak pointer outlives its object")
	}
}

// TestOwnerRevalidation checks that the one-owner shortcut of validate
// neither hides a second goroutine's access nor keeps state recorded before
// a GC cycle.
func TestOwnerRevalidation(t *testing.T) {
	quiet(t)
	untracked(t) // state without a proof: dropped after a cycle
	s := NewSpace()
	x := escape(new([2]int64))
	p := unsafe.Pointer(&x[0])
	a := thread(1, 1, nil)
	s.Write(a, p, 8, 0)
	a.VC[1]++
	a.Epoch = MakeEpoch(1, a.VC[1])
	s.Write(a, p, 8, 0) // the owner shortcut
	key := uintptr(p) >> pageShift
	gi := (uintptr(p) & (pageSize - 1)) >> 3
	pg := s.pages.Load(key)
	old := pg.slot(gi)
	if old.owner.Load() != 2 {
		t.Fatalf("owner %d, want 2", old.owner.Load())
	}
	// As if a GC cycle had completed since a's accesses (a real one would
	// let the sweeper drop the granule first): the next slow access drops
	// the state though a is the owner, as for any unshared state.
	mu := s.stripe(key, gi)
	mu.Lock()
	old.gen.Add(^uint32(0))
	a.VC[1]++
	a.Epoch = MakeEpoch(1, a.VC[1])
	gr := s.validate(a, pg, gi, old, uintptr(p), 0, 8)
	mu.Unlock()
	if gr == old || !gr.empty() {
		t.Fatal("owner's state from before a GC cycle kept")
	}
	// A second, unordered goroutine still races with the owner.
	s.Write(a, p, 8, 0)
	b := thread(2, 1, nil)
	if _, race := s.Write(b, p, 8, 0); !race {
		t.Fatal("race with the owner missed")
	}
	runtime.KeepAlive(x)
}

// TestWiden checks granule.widens: a goroutine's consecutive accesses of
// adjacent bytes at one site in one epoch (short copies into a
// bytes.Buffer) widen the granule's one cell, with the state per-byte
// cells would hold; anything else splits it.
func TestWiden(t *testing.T) {
	quiet(t)
	s := NewSpace()
	buf := escape(new([16]byte))
	p := unsafe.Pointer(&buf[0])
	a := thread(1, 1, nil)
	s.Write(a, p, 3, 7)
	s.Write(a, unsafe.Add(p, 3), 2, 7)
	if gr := slotOf(s, p); gr.split.Load() != nil || gr.lo != 0 || gr.hi != 5 {
		t.Fatalf("granule after writes of [0,3) and [3,5) at one site: split %v, bytes [%d,%d); want one cell over [0,5)", gr.split.Load() != nil, gr.lo, gr.hi)
	}
	if !s.Same(a, uintptr(p)+1, 3, true) {
		t.Error("a same-epoch write of bytes the widened cell covers missed the fast path")
	}
	b := thread(2, 1, nil) // unordered with a
	if _, race := s.Write(b, unsafe.Add(p, 5), 3, 9); race {
		t.Error("a write of bytes next to the widened cell raced with it")
	}
	r, race := s.Read(b, unsafe.Add(p, 4), 1, 9)
	if !race || r.PrevSite != 7 || !r.PrevWrite {
		t.Errorf("read of a byte the second write added: race %v, %+v; want a race with the write at site 7", race, r)
	}

	// Another site, a read after a write, a gap, another epoch: split.
	for _, tc := range []struct {
		name   string
		second func(a *Thread, p unsafe.Pointer)
	}{
		{"site", func(a *Thread, p unsafe.Pointer) { s.Write(a, unsafe.Add(p, 3), 2, 8) }},
		{"kind", func(a *Thread, p unsafe.Pointer) { s.Read(a, unsafe.Add(p, 3), 2, 7) }},
		{"gap", func(a *Thread, p unsafe.Pointer) { s.Write(a, unsafe.Add(p, 4), 2, 7) }},
		{"epoch", func(a *Thread, p unsafe.Pointer) {
			a.VC[1]++
			a.Epoch = MakeEpoch(1, a.VC[1])
			s.Write(a, unsafe.Add(p, 3), 2, 7)
		}},
	} {
		buf := escape(new([16]byte))
		p := unsafe.Pointer(&buf[0])
		a := thread(1, 1, nil)
		s.Write(a, p, 3, 7)
		tc.second(a, p)
		if slotOf(s, p).split.Load() == nil {
			t.Errorf("%s: the granule did not split", tc.name)
		}
	}
}

// TestMerge checks page.merge: a write of all eight bytes of a split
// granule after which its parts hold one state leaves one cell with that
// state, which a later access of any byte finds as it would the parts; a
// write of part of the granule, or parts left with different reads,
// leave it split.
func TestMerge(t *testing.T) {
	quiet(t)
	s := NewSpace()
	next := func(th *Thread) { // a release: th's next epoch
		th.VC[th.Epoch.TID()]++
		th.Epoch = MakeEpoch(th.Epoch.TID(), th.VC[th.Epoch.TID()])
	}
	// split writes [0,3) and [3,8) at two sites.
	split := func(a *Thread) (*[16]byte, unsafe.Pointer) {
		buf := escape(new([16]byte))
		p := unsafe.Pointer(&buf[0])
		s.Write(a, p, 3, 1)
		s.Write(a, unsafe.Add(p, 3), 5, 2)
		if slotOf(s, p).split.Load() == nil {
			t.Fatal("writes of [0,3) and [3,8) at two sites did not split the granule")
		}
		return buf, p
	}

	a := thread(1, 1, nil)
	buf, p := split(a)
	next(a)
	if _, race := s.Write(a, p, 8, 3); race {
		t.Fatal("the owner's write of the whole granule raced")
	}
	if gr := slotOf(s, p); gr.split.Load() != nil || gr.lo != 0 || gr.hi != 8 {
		t.Fatalf("after a write of all its bytes: split %v, bytes [%d,%d); want one cell over [0,8)", gr.split.Load() != nil, gr.lo, gr.hi)
	}
	if !s.Same(a, uintptr(p)+5, 1, true) {
		t.Error("a write of a byte the merged write covers, in its epoch, missed the fast path")
	}
	b := thread(2, 1, nil) // unordered with a
	r, race := s.Read(b, unsafe.Add(p, 6), 1, 9)
	if !race || r.PrevSite != 3 || !r.PrevWrite || r.Prev != a.Epoch {
		t.Errorf("an unordered read of a merged byte: race %v, %+v; want a race with the write at site 3", race, r)
	}
	runtime.KeepAlive(buf)

	// A write of part of the granule leaves it split.
	a = thread(1, 1, nil)
	buf, p = split(a)
	next(a)
	s.Write(a, p, 4, 3)
	if slotOf(s, p).split.Load() == nil {
		t.Error("a write of [0,4) merged the granule")
	}
	runtime.KeepAlive(buf)

	// A read of one byte before the write: that byte's part keeps the
	// read, the others have none, and the parts stay.
	a = thread(1, 1, nil)
	buf, p = split(a)
	next(a)
	s.Read(a, unsafe.Add(p, 5), 1, 4)
	s.Write(a, p, 8, 3)
	if slotOf(s, p).split.Load() == nil {
		t.Error("parts with different reads merged")
	}
	runtime.KeepAlive(buf)
}

// TestSameRange checks SameRange, Same for a range of any length: true
// exactly when every byte of the range was accessed in the epoch with
// an access of its kind, across a page's edge, over fresh entries (the
// first access of fresh memory), granules and split granules alike; false
// for a byte outside what was accessed, in another epoch and for another
// thread.
func TestSameRange(t *testing.T) {
	quiet(t)
	s := NewSpace()
	buf := escape(new([3 * 4096]byte))
	base := uintptr(unsafe.Pointer(&buf[0]))
	lo := (base+4096+100)&^4095 - 100 // 100 bytes before a page's start
	p := unsafe.Pointer(&buf[lo-base])
	a := thread(1, 1, nil)
	s.Write(a, p, 250, 0) // fresh: fresh entries
	for _, c := range []struct {
		off, n uintptr
		want   bool
	}{
		{0, 250, true},
		{96, 8, true}, // across the page's edge
		{0, 251, false},
		{^uintptr(0), 10, false}, // from the byte before
	} {
		if got := s.SameRange(a, lo+c.off, c.n, true); got != c.want {
			t.Errorf("SameRange(lo%+d, %d) after a write of [lo, lo+250) = %v, want %v", int(c.off), c.n, got, c.want)
		}
	}
	if !s.SameRange(a, lo, 250, false) || s.SameRange(a, lo, 251, false) {
		t.Error("SameRange of a read of [lo, lo+250) after a write of it, or of one byte more: wrong (cell.ownWrite)")
	}
	s.Read(a, p, 250, 0) // granules now
	if !s.SameRange(a, lo, 250, false) || !s.SameRange(a, lo, 250, true) {
		t.Error("SameRange after a write and a read of the range: false, want true")
	}
	s.Write(a, unsafe.Add(p, 3), 1, 7) // splits a granule
	if !s.SameRange(a, lo, 250, true) || s.SameRange(a, lo, 251, true) {
		t.Error("SameRange over a split granule: wrong")
	}
	if b := thread(2, 1, nil); s.SameRange(b, lo, 250, false) {
		t.Error("SameRange true for another thread")
	}
	a.VC[1]++
	a.Epoch = MakeEpoch(1, a.VC[1])
	if s.SameRange(a, lo, 250, false) || s.SameRange(a, lo, 8, true) {
		t.Error("SameRange true in a new epoch")
	}
}
