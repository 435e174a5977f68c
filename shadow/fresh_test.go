// Copyright 2026 The bigfoot Authors. All rights reserved.

package shadow

import (
	"reflect"
	"sync"
	"testing"
	"unsafe"
)

// freshAt returns the page and granule index of p, and its fresh entry's
// epoch and meta word (zeros if none).
func freshAt(s *Space, p unsafe.Pointer) (pg *page, gi uintptr, e, m uint64) {
	a := uintptr(p)
	pg = s.pages.Load(a >> pageShift)
	gi = (a & (pageSize - 1)) >> 3
	if pg == nil || !pg.hasFresh(gi) {
		return pg, gi, 0, 0
	}
	d := &pg.fresh.Load().desc[pg.fresh.Load().at(gi)-1]
	return pg, gi, d.e.Load(), d.m.Load()
}

// agePage makes the page's fresh entries look as if recorded in the
// generation before.
func agePage(pg *page) {
	pg.fgen.Add(^uint32(0))
}

// cleanPage returns the 512 words of a page of heap memory that no
// access has touched: its shadow page has no slot array.
func cleanPage() []int64 {
	x := escape(make([]int64, 3*granulesPerPage))
	i := (pageSize - uintptr(unsafe.Pointer(&x[0]))&(pageSize-1)) & (pageSize - 1) / 8
	return x[i : i+granulesPerPage]
}

// freshSpace returns a new space for a test of fresh entries: no
// collection during the test unless it starts one (quiet), and first
// accesses left untracked (untracked), which is when they make fresh
// entries.
func freshSpace(t *testing.T) *Space {
	t.Helper()
	quiet(t)
	untracked(t)
	return NewSpace()
}

// The first access of untracked fresh memory leaves a fresh entry and no
// granule; a same-epoch access finds it lock-free; a conflicting access
// of another goroutine moves it into a granule and reports the conflict
// with the first access's epoch, site and kind; an ordered one does not.
func TestFreshEntry(t *testing.T) {
	s := freshSpace(t)
	for _, write := range []bool{true, false} {
		a := thread(1, 3, nil)
		b := thread(2, 1, nil)                     // unordered with a
		c := thread(3, 1, map[uint32]uint64{1: 3}) // after a
		x := cleanPage()
		p := unsafe.Pointer(&x[2])
		if _, race := s.Access(a, p, 8, write, 7); race {
			t.Fatal("first access reported a race")
		}
		pg, gi, e, m := freshAt(s, p)
		if pg.slot(gi) != nil || Epoch(e) != a.Epoch || m != freshMeta(0, 8, write, 7) {
			t.Fatalf("write=%v: first access left slot %p, entry %v %#x", write, pg.slot(gi), Epoch(e), m)
		}
		rule, same := ReadExclusive, ReadSameEpoch
		if write {
			rule, same = WriteExclusive, WriteSameEpoch
		}
		if a.Stats.Checks != 1 || a.Stats.Rules[rule] != 1 {
			t.Fatalf("write=%v: stats %+v", write, a.Stats)
		}
		if _, race := s.Access(a, p, 8, write, 7); race || a.Stats.Rules[same] != 1 || pg.slot(gi) != nil {
			t.Fatalf("write=%v: same-epoch access: race %v, stats %+v, slot %p", write, race, a.Stats, pg.slot(gi))
		}
		// Another byte range of the same epoch is not the same access.
		if _, race := s.Access(a, unsafe.Add(p, 4), 4, write, 8); race {
			t.Fatalf("write=%v: own access of other bytes reported", write)
		}
		if gr := pg.slot(gi); gr == nil || gr.split.Load() == nil {
			t.Fatalf("write=%v: access of other bytes did not split the state: %+v", write, gr)
		}
		if _, _, e, _ := freshAt(s, p); e != 0 {
			t.Fatalf("write=%v: entry %v left beside the granule", write, Epoch(e))
		}

		q := unsafe.Pointer(&x[5])
		s.Access(a, q, 8, write, 9)
		if _, race := s.Write(c, q, 8, 0); race {
			t.Fatalf("write=%v: ordered write reported", write)
		}
		r, race := s.Write(b, q, 8, 0)
		if !race || r.Prev != c.Epoch {
			t.Fatalf("write=%v: unordered write: race %v with %v, want one with %v", write, race, r.Prev, c.Epoch)
		}

		o := unsafe.Pointer(&x[7])
		s.Access(a, o, 8, write, 9)
		r, race = s.Write(b, o, 8, 0)
		if !race || r.Prev != a.Epoch || r.PrevSite != 9 || r.PrevWrite != write || r.Addr != uintptr(o) {
			t.Fatalf("write=%v: conflict with a first access: race %v, %+v", write, race, r)
		}
		if gr := pg.slot(gi + 5); gr == nil || gr.owner.Load() == 0 {
			t.Fatalf("write=%v: the conflicting access left no granule: %+v", write, gr)
		}
	}
}

// A fresh entry of a read followed by a read of another goroutine becomes
// read-shared state; a write unordered with either read conflicts.
func TestFreshReadShared(t *testing.T) {
	s := freshSpace(t)
	a := thread(1, 1, nil)
	b := thread(2, 1, nil)
	c := thread(3, 1, map[uint32]uint64{1: 1}) // after a, not b
	x := cleanPage()
	p := unsafe.Pointer(&x[0])
	s.Read(a, p, 8, 1)
	if _, race := s.Read(b, p, 8, 2); race {
		t.Fatal("two reads reported")
	}
	if gr := slotAt(s, p); gr == nil || gr.whole.r.Load() != shared {
		t.Fatalf("second reader: state %+v, want read-shared", gr)
	}
	r, race := s.Write(c, p, 8, 3)
	if !race || r.Prev != b.Epoch || r.PrevSite != 2 {
		t.Fatalf("write after a's read, concurrent with b's: race %v, %+v", race, r)
	}
}

// A fresh entry recorded before the last GC cycle is not state: like an
// untracked granule's, it is dropped at the next access, and the sweep
// clears it and reclaims the page.
func TestFreshStale(t *testing.T) {
	s := freshSpace(t)
	a := thread(1, 1, nil)
	b := thread(2, 1, nil)
	x := cleanPage()
	p, q := unsafe.Pointer(&x[0]), unsafe.Pointer(&x[1])
	s.Write(a, p, 8, 1)
	s.Write(a, q, 8, 1)
	pg, _, _, _ := freshAt(s, p)
	agePage(pg) // as if recorded in the generation before
	if _, race := s.Write(b, p, 8, 2); race {
		t.Fatal("conflict with a stale entry")
	}
	if hasState(s, q) {
		t.Fatal("stale entry counts as state")
	}
	s.Sweep()
	if _, _, e, _ := freshAt(s, q); e != 0 {
		t.Fatalf("the sweep kept a stale entry %v", Epoch(e))
	}
	// b's write of p cleared the stale entries and left its own, which
	// is current: the page stays until it is dropped.
	if _, _, e, _ := freshAt(s, p); Epoch(e) != b.Epoch {
		t.Fatalf("b's write of p left entry %v", Epoch(e))
	}
	if pg.dead.Load() || pg.nfresh != 1 || pg.live != 1 {
		t.Fatalf("after the sweep: dead %v, %d entries, live %d", pg.dead.Load(), pg.nfresh, pg.live)
	}
	sweepWith(s, []uint64{0, 1, 1})
	if pg.live != 0 || pg.nfresh != 0 {
		t.Fatalf("settled entry kept: %d entries, live %d", pg.nfresh, pg.live)
	}
	// The first sweep that leaves a page of fresh entries empty keeps
	// it, the next reclaims it.
	sweepWith(s, []uint64{0, 1, 1})
	if !pg.dead.Load() || s.pages.Load(uintptr(p)>>pageShift) != nil {
		t.Fatal("a page without state not reclaimed")
	}
}

// The sweep drops settled fresh entries and reclaims a page left without
// state; unsettled entries stay.
func TestFreshSettled(t *testing.T) {
	s := freshSpace(t)
	a := thread(1, 2, nil)
	x := cleanPage()
	p := unsafe.Pointer(&x[0])
	s.Write(a, p, 8, 1)
	sweepWith(s, []uint64{0, 1})
	if !hasState(s, p) {
		t.Fatal("unsettled entry dropped")
	}
	sweepWith(s, []uint64{0, 2})
	if hasState(s, p) {
		t.Fatal("settled entry kept")
	}
	sweepWith(s, []uint64{0, 2}) // the page goes at its second empty sweep
	if s.pages.Load(uintptr(p)>>pageShift) != nil {
		t.Fatal("a page without state not reclaimed")
	}
}

// A run is never installed over a fresh entry: a range check over memory
// of which one element has one keeps the element's state, and an
// unordered access of it conflicts.
func TestFreshNotUnderRun(t *testing.T) {
	s := freshSpace(t)
	a := thread(1, 1, nil)
	b := thread(2, 1, nil)
	x := escape(make([]int64, 2048))
	s.Write(a, unsafe.Pointer(&x[700]), 8, 1)
	r, race := s.AccessRange(b, unsafe.Pointer(&x[0]), 8, 0, len(x), 1, true, 2)
	if !race || r.Prev != a.Epoch || r.PrevSite != 1 {
		t.Fatalf("range write over a first write: race %v, %+v", race, r)
	}
	if _, race := s.Write(b, unsafe.Pointer(&x[700]), 8, 2); race {
		t.Fatal("b's own element reported after its range check")
	}
}

// Goroutines that first-access the same fresh granules concurrently,
// unordered, leave one report per granule at least (whichever comes
// second conflicts), and no entry beside a granule.
func TestFreshConcurrent(t *testing.T) {
	s := freshSpace(t)
	const n = 4
	x := escape(make([]int64, 2048))
	var wg sync.WaitGroup
	races := make([][]bool, n)
	for k := range n {
		races[k] = make([]bool, len(x))
		th := thread(uint32(k+1), 1, nil)
		wg.Go(func() {
			for i := range x {
				j := (i + k*len(x)/n) % len(x)
				_, races[k][j] = s.Access(th, unsafe.Pointer(&x[j]), 8, k%2 == 0 || i%3 == 0, uint32(k))
			}
		})
	}
	wg.Wait()
	for j := range x {
		found := false
		for k := range n {
			found = found || races[k][j]
		}
		if !found {
			t.Fatalf("element %d: no race among %d unordered first accesses", j, n)
		}
		if _, _, e, _ := freshAt(s, unsafe.Pointer(&x[j])); e != 0 {
			t.Fatalf("element %d: entry %v left after a second access", j, Epoch(e))
		}
	}
}

// A page whose only state is stale fresh entries is reclaimed without
// clearing them, at the second sweep that finds it without state (the
// first keeps it, empty, for the objects that will reuse its memory); a
// goroutine that still caches it records its next access, even in the
// same epoch, on the page that replaces it, where an unordered access
// finds it.
func TestFreshDeadPage(t *testing.T) {
	s := freshSpace(t)
	a := thread(1, 1, nil)
	b := thread(2, 1, nil)
	x := cleanPage()
	p := unsafe.Pointer(&x[0])
	s.Write(a, p, 8, 1)
	pg, _, _, _ := freshAt(s, p)
	agePage(pg) // as if recorded in the generation before
	s.Sweep()
	if pg.dead.Load() {
		t.Fatal("page of fresh entries reclaimed at the sweep that dropped them")
	}
	if pg.live != 0 || pg.fresh.Load() != nil {
		t.Fatalf("page kept with state: live %d, fresh array %v", pg.live, pg.fresh.Load() != nil)
	}
	s.Sweep()
	if !pg.dead.Load() {
		t.Fatal("page of stale entries not reclaimed")
	}
	if a.cache != pg {
		t.Fatal("a does not cache the page")
	}
	if _, race := s.Write(a, p, 8, 1); race {
		t.Fatal("a's own write reported")
	}
	if npg, _, e, _ := freshAt(s, p); npg == pg || Epoch(e) != a.Epoch {
		t.Fatalf("same-epoch write after the reclaim not recorded anew: page reused %v, entry %v", npg == pg, Epoch(e))
	}
	if r, race := s.Write(b, p, 8, 2); !race || r.Prev != a.Epoch {
		t.Fatalf("unordered write: race %v, %+v", race, r)
	}
}

// A page whose entries all moved into granules gives its fresh array
// back at the next sweep; the granules keep the state.
func TestFreshArrayDropped(t *testing.T) {
	s := freshSpace(t)
	a := thread(1, 1, nil)
	b := thread(2, 1, map[uint32]uint64{1: 1}) // after a
	c := thread(3, 1, nil)                     // unordered with both
	x := cleanPage()
	p := unsafe.Pointer(&x[0])
	s.Write(a, p, 8, 1)
	pg, _, _, _ := freshAt(s, p)
	if pg.fresh.Load() == nil {
		t.Fatal("no fresh array")
	}
	s.Write(b, p, 8, 2) // moves a's entry into a granule
	if pg.nfresh != 0 || slotAt(s, p) == nil {
		t.Fatalf("entry not absorbed: %d entries, slot %p", pg.nfresh, slotAt(s, p))
	}
	v := pg.fver.Load()
	s.Sweep()
	if pg.fresh.Load() != nil || pg.fver.Load() == v || pg.dead.Load() {
		t.Fatalf("after the sweep: array %p, version %d (was %d), dead %v", pg.fresh.Load(), pg.fver.Load(), v, pg.dead.Load())
	}
	if r, race := s.Write(c, p, 8, 3); !race || r.Prev != b.Epoch {
		t.Fatalf("unordered write after the sweep: race %v, %+v", race, r)
	}
	// The page has a slot array now: a first access there makes a
	// granule, as first accesses on such pages are sparse.
	q := unsafe.Pointer(&x[1])
	s.Read(a, q, 8, 4)
	if gr := slotAt(s, q); gr == nil || pg.fresh.Load() != nil || Epoch(gr.whole.r.Load()) != a.Epoch {
		t.Fatalf("first access on a page with a slot array: granule %+v, fresh array %p", gr, pg.fresh.Load())
	}
}

// Check takes an empty slot of the cached page to the fresh entry's
// paths directly. A second access of the entry in a later epoch of its
// goroutine is not a first access there: it reaches the locked path,
// which absorbs the entry into a granule holding the new epoch, and a
// later unordered write conflicts with that epoch. A first access through
// a cached page that was reclaimed meanwhile records its entry in the
// page that replaced it.
func TestFreshCheckPath(t *testing.T) {
	s := freshSpace(t)
	a := thread(1, 1, nil)
	b := thread(2, 1, nil) // unordered with a
	x := cleanPage()
	p := unsafe.Pointer(&x[3])
	if _, race := s.Write(a, p, 8, 1); race {
		t.Fatal("first write reported")
	}
	pg, gi, e, _ := freshAt(s, p)
	if Epoch(e) != a.Epoch || !pg.maybeFresh(gi) || a.cache != pg {
		t.Fatalf("first write: entry %v, hint %v, cached page %p (page %p)", Epoch(e), pg.maybeFresh(gi), a.cache, pg)
	}
	first := a.Epoch
	a.Epoch++
	a.VC[1]++
	if _, race := s.Write(a, p, 8, 2); race {
		t.Fatal("own write in a later epoch reported")
	}
	gr := pg.slot(gi)
	if gr == nil || Epoch(gr.whole.w.Load()) != a.Epoch || gr.whole.wsite.Load() != 2 || pg.hasFresh(gi) {
		t.Fatalf("write in a later epoch: slot %+v, entry left %v", gr, pg.hasFresh(gi))
	}
	if pg.nfresh != 0 || pg.live != 1 {
		t.Fatalf("counts: %d entries, %d live, want 0 and 1", pg.nfresh, pg.live)
	}
	if r, race := s.Write(b, p, 8, 3); !race || r.Prev != a.Epoch || r.Prev == first || r.PrevSite != 2 {
		t.Fatalf("unordered write: race %v, %+v", race, r)
	}

	// A cached page reclaimed (its state settled) and replaced.
	q := unsafe.Pointer(&x[9])
	c := thread(3, 1, nil)
	s.Write(c, q, 8, 4)
	old := c.cache
	sweepWith(s, []uint64{0, 2, 1, 1})
	if !old.dead.Load() {
		t.Fatal("settled page not reclaimed")
	}
	c.Epoch++
	c.VC[3]++
	if _, race := s.Write(c, q, 8, 5); race {
		t.Fatal("write after the reclaim reported")
	}
	np, ngi, e, _ := freshAt(s, q)
	if np == nil || np == old || Epoch(e) != c.Epoch || np.slot(ngi) != nil || old.nfresh != 0 {
		t.Fatalf("first write through a reclaimed page: new page %p (old %p), entry %v, old entries %d", np, old, Epoch(e), old.nfresh)
	}
}

// The first accesses of a page in one epoch, from one site, of the same
// bytes and kind share one descriptor; each granule's entry is its own:
// an unordered access of any of them conflicts with it, and a granule
// that was not accessed has no entry.
func TestFreshDescriptorShared(t *testing.T) {
	s := freshSpace(t)
	a := thread(1, 1, nil)
	b := thread(2, 1, nil) // unordered with a
	x := cleanPage()
	for i := 0; i < len(x); i += 8 { // the first word of 64-byte objects
		if _, race := s.Write(a, unsafe.Pointer(&x[i]), 8, 5); race {
			t.Fatalf("first write of %d reported", i)
		}
	}
	pg, _, _, _ := freshAt(s, unsafe.Pointer(&x[0]))
	if pg.ndesc != 1 || pg.nfresh != len(x)/8 || pg.live != len(x)/8 {
		t.Fatalf("%d descriptors, %d entries, %d live; want 1, %d, %d", pg.ndesc, pg.nfresh, pg.live, len(x)/8, len(x)/8)
	}
	if _, _, e, _ := freshAt(s, unsafe.Pointer(&x[1])); e != 0 {
		t.Fatalf("granule 1, never accessed, has entry %v", Epoch(e))
	}
	if _, race := s.Write(b, unsafe.Pointer(&x[1]), 8, 6); race {
		t.Fatal("b's first write of an unaccessed granule reported")
	}
	r, race := s.Write(b, unsafe.Pointer(&x[24]), 8, 6)
	if !race || r.Prev != a.Epoch || r.PrevSite != 5 || !r.PrevWrite {
		t.Fatalf("unordered write of an entry's granule: race %v, %+v", race, r)
	}
}

// A page whose descriptors are all taken records further first accesses
// in granules; every access keeps its own state: a conflict with each
// reports its own site.
func TestFreshDescriptorsFull(t *testing.T) {
	s := freshSpace(t)
	a := thread(1, 1, nil)
	b := thread(2, 1, nil) // unordered with a
	x := cleanPage()
	const n = freshDescs + 8
	for i := range n {
		s.Write(a, unsafe.Pointer(&x[i]), 8, uint32(100+i))
	}
	pg, _, _, _ := freshAt(s, unsafe.Pointer(&x[0]))
	if pg.ndesc != freshDescs || pg.nfresh != freshDescs {
		t.Fatalf("%d descriptors, %d entries; want %d of each", pg.ndesc, pg.nfresh, freshDescs)
	}
	if gr := slotAt(s, unsafe.Pointer(&x[freshDescs])); gr == nil || Epoch(gr.whole.w.Load()) != a.Epoch {
		t.Fatalf("first write past the descriptors: granule %+v", gr)
	}
	if a.Stats.Rules[WriteExclusive] != n {
		t.Fatalf("%d first writes counted, want %d", a.Stats.Rules[WriteExclusive], n)
	}
	for i := range n {
		r, race := s.Write(b, unsafe.Pointer(&x[i]), 8, 1)
		if !race || r.Prev != a.Epoch || r.PrevSite != uint32(100+i) {
			t.Fatalf("element %d: race %v, %+v; want one with site %d", i, race, r, 100+i)
		}
	}
}

// The first entry a page records in a new generation resets the entries
// of the last one: a granule that had a stale entry has none, though the
// descriptor its index referred to is reused for another access.
func TestFreshReset(t *testing.T) {
	s := freshSpace(t)
	a := thread(1, 1, nil)
	b := thread(2, 1, nil)
	c := thread(3, 1, map[uint32]uint64{1: 1}) // after a, unordered with b
	x := cleanPage()
	p, q := unsafe.Pointer(&x[0]), unsafe.Pointer(&x[8])
	s.Write(a, p, 8, 1)
	pg, _, _, _ := freshAt(s, p)
	agePage(pg) // a's entry is of the generation before
	s.Write(b, q, 8, 2)
	if pg.ndesc != 1 || pg.nfresh != 1 || pg.live != 1 {
		t.Fatalf("after the reset: %d descriptors, %d entries, %d live; want 1 each", pg.ndesc, pg.nfresh, pg.live)
	}
	if _, _, e, _ := freshAt(s, p); e != 0 {
		t.Fatalf("a's stale granule has entry %v", Epoch(e))
	}
	if r, race := s.Write(c, p, 8, 3); race {
		t.Fatalf("c's write of a's stale granule conflicts: %+v", r)
	}
	if r, race := s.Write(c, q, 8, 3); !race || r.Prev != b.Epoch || r.PrevSite != 2 {
		t.Fatalf("c's write of b's granule: race %v, %+v", race, r)
	}
}

// freshAccess records a first access with the page's last descriptor
// only if that descriptor records the access exactly: the same epoch,
// site, bytes and kind. Each other first access of the page gets a
// descriptor of its own, and a conflict with it reports its own epoch,
// site and kind. (It fails if the shortcut compares less than the whole
// descriptor.)
func TestFreshAccessDescriptor(t *testing.T) {
	s := freshSpace(t)
	a := thread(1, 1, nil)
	x := cleanPage()
	at := func(i int) unsafe.Pointer { return unsafe.Pointer(&x[i]) }
	s.Write(a, at(0), 8, 5)
	s.Write(a, at(8), 8, 5) // the same descriptor
	s.Write(a, at(16), 8, 6)
	s.Read(a, at(24), 8, 6)
	s.Read(a, unsafe.Add(at(32), 4), 4, 6)
	a.Epoch++
	a.VC[1]++
	s.Read(a, unsafe.Add(at(40), 4), 4, 6)
	pg, _, _, _ := freshAt(s, at(0))
	if pg.ndesc != 5 || pg.nfresh != 6 || pg.live != 6 {
		t.Fatalf("%d descriptors, %d entries, %d live; want 5, 6, 6", pg.ndesc, pg.nfresh, pg.live)
	}
	if a.Stats.Rules[WriteExclusive] != 3 || a.Stats.Rules[ReadExclusive] != 3 {
		t.Fatalf("first accesses counted: %d writes, %d reads; want 3 of each", a.Stats.Rules[WriteExclusive], a.Stats.Rules[ReadExclusive])
	}

	// c is unordered with a: it conflicts with each write, with its site.
	c := thread(3, 1, nil)
	for _, w := range []struct {
		i    int
		site uint32
	}{{0, 5}, {8, 5}, {16, 6}} {
		if r, race := s.Read(c, at(w.i), 8, 9); !race || r.Prev != MakeEpoch(1, 1) || r.PrevSite != w.site || !r.PrevWrite {
			t.Fatalf("read of a's write of %d: race %v, %+v; want its site %d", w.i, race, r, w.site)
		}
	}
	if r, race := s.Read(c, at(24), 8, 9); race {
		t.Fatalf("read of a's read conflicts: %+v", r)
	}
	// b is ordered after a's first epoch, not its second.
	b := thread(2, 1, map[uint32]uint64{1: 1})
	if r, race := s.Write(b, unsafe.Add(at(32), 4), 4, 9); race {
		t.Fatalf("write after a's read in its first epoch conflicts: %+v", r)
	}
	r, race := s.Write(b, unsafe.Add(at(40), 4), 4, 9)
	if !race || r.Prev != a.Epoch || r.PrevSite != 6 || r.PrevWrite {
		t.Fatalf("write of a's read in its second epoch: race %v, %+v", race, r)
	}
}

// Check's path for a page t has not cached (checkPage) makes no page for
// an address on t's goroutine's stack, whose memory no other goroutine
// accesses, and records any other first access in a fresh entry of the
// page, which it caches. (It fails if checkPage makes pages for stack
// addresses.)
func TestCheckPageStack(t *testing.T) {
	s := freshSpace(t)
	a := thread(1, 1, nil)
	x := cleanPage()
	p := unsafe.Pointer(&x[5])
	stack := [2]uintptr{uintptr(unsafe.Pointer(&x[0])), uintptr(unsafe.Pointer(&x[len(x)-1])) + 8}
	a.GP = unsafe.Pointer(&stack)
	if _, race := s.Write(a, p, 8, 1); race {
		t.Fatal("write on the stack reported")
	}
	if pg := s.pages.Load(uintptr(p) >> pageShift); pg != nil || a.cache != nil {
		t.Fatalf("write on the stack: page %p, cached page %p", pg, a.cache)
	}
	a.GP = nil
	if _, race := s.Write(a, p, 8, 1); race {
		t.Fatal("first write reported")
	}
	pg, gi, e, _ := freshAt(s, p)
	if pg == nil || a.cache != pg || Epoch(e) != a.Epoch || pg.slot(gi) != nil {
		t.Fatalf("first write: page %p (cached %p), entry %v, slot %+v", pg, a.cache, Epoch(e), pg.slot(gi))
	}
}

// TestFreshRefNoPointer checks that a page's reference to its fresh
// array, which is off the heap, holds no pointer: the collector would
// scan the page up to it every cycle, and its stores would take the
// write barrier (freshRef). It fails with an atomic.Pointer there.
func TestFreshRefNoPointer(t *testing.T) {
	f, ok := reflect.TypeOf(page{}).FieldByName("fresh")
	if !ok {
		t.Fatal("page has no field fresh")
	}
	var walk func(reflect.Type) bool
	walk = func(ty reflect.Type) bool {
		switch ty.Kind() {
		case reflect.Pointer, reflect.UnsafePointer, reflect.Slice, reflect.Map, reflect.Chan,
			reflect.Func, reflect.Interface, reflect.String:
			return true
		case reflect.Array:
			return ty.Len() > 0 && walk(ty.Elem())
		case reflect.Struct:
			for i := range ty.NumField() {
				if walk(ty.Field(i).Type) {
					return true
				}
			}
		}
		return false
	}
	if walk(f.Type) {
		t.Errorf("page.fresh (%v) holds a pointer", f.Type)
	}
	// The reference round-trips.
	var pg page
	fa := new(freshArray)
	if pg.fresh.Store(fa); pg.fresh.Load() != fa {
		t.Errorf("Load after Store(%p) = %p", fa, pg.fresh.Load())
	}
	if pg.fresh.Store(nil); pg.fresh.Load() != nil {
		t.Errorf("Load after Store(nil) = %p", pg.fresh.Load())
	}
}

// A page of fresh entries that the sweep left empty stays in the table
// until the next sweep, and the first access of the memory's next object
// records its entry there: no new page, and the entry is the new access's.
func TestFreshPageKeptForReuse(t *testing.T) {
	s := freshSpace(t)
	a := thread(1, 1, nil)
	b := thread(2, 1, nil)
	x := cleanPage()
	p, q := unsafe.Pointer(&x[0]), unsafe.Pointer(&x[8])
	s.Write(a, p, 8, 1)
	pg, _, _, _ := freshAt(s, p)
	agePage(pg) // the object died in the cycle before
	s.Sweep()
	if pg.dead.Load() || s.pages.Load(uintptr(q)>>pageShift) != pg {
		t.Fatal("a page with state until this sweep was reclaimed")
	}
	if _, race := s.Write(b, q, 8, 2); race {
		t.Fatal("a new object's first write reported")
	}
	np, _, e, m := freshAt(s, q)
	if np != pg || Epoch(e) != b.Epoch || m != freshMeta(0, 8, true, 2) {
		t.Fatalf("entry on page %p (kept %p): %v, meta %#x", np, pg, Epoch(e), m)
	}
	if _, _, e, _ := freshAt(s, p); e != 0 {
		t.Fatalf("the dead object's entry survived: %v", Epoch(e))
	}
	s.Sweep() // b's entry is current: the page stays
	if pg.dead.Load() || !hasState(s, q) {
		t.Fatal("current entry dropped")
	}
}

// An entry proven by its word's version (the heap's, where the runtime
// keeps versions) passes the same-epoch check as an unproven one: the
// same access again, by the goroutine that made it in the same epoch,
// leaves the entry and makes no granule. (freshShape once compared the
// mark of a versioned entry too, and every such second access moved the
// entry into a granule.)
func TestFreshVersionedSameEpoch(t *testing.T) {
	quiet(t)
	fv := fakeVersions{}
	s := &Space{versions: fv.page} // not registered: see versionSpace
	for _, write := range []bool{true, false} {
		x := cleanPage() // b's write below gives a page a slot array
		p := unsafe.Pointer(&x[2])
		fv.heap(uintptr(p), 8)
		fv.advance(uintptr(p), 8) // allocated
		a := thread(1, 3, nil)
		s.Access(a, p, 8, write, 7)
		pg, gi, e, m := freshAt(s, p)
		if pg.slot(gi) != nil || Epoch(e) != a.Epoch || m&freshVersioned == 0 {
			t.Fatalf("write=%v: first access left slot %p, entry %v %#x; want a versioned entry", write, pg.slot(gi), Epoch(e), m)
		}
		same := ReadSameEpoch
		if write {
			same = WriteSameEpoch
		}
		if _, race := s.Access(a, p, 8, write, 8); race || a.Stats.Rules[same] != 1 || pg.slot(gi) != nil || !pg.hasFresh(gi) {
			t.Fatalf("write=%v: same-epoch access: race %v, stats %+v, slot %p", write, race, a.Stats, pg.slot(gi))
		}
		b := thread(2, 1, nil) // unordered with a
		if r, race := s.Write(b, p, 8, 9); !race || r.Prev != a.Epoch || r.PrevSite != 7 || r.PrevWrite != write {
			t.Fatalf("write=%v: unordered write: race %v, %+v; want one with a's first access", write, race, r)
		}
	}
}

// A page with a slot array records first accesses in granules until they
// made freshDense of them; further first accesses there are fresh entries,
// which report conflicts as granules do.
func TestFreshDensePage(t *testing.T) {
	s := freshSpace(t)
	a := thread(1, 1, nil)
	x := cleanPage()
	// An access of other bytes of an entry's granule makes a granule,
	// and the page its slot array.
	s.Write(a, unsafe.Pointer(&x[0]), 8, 1)
	s.Write(a, unsafe.Add(unsafe.Pointer(&x[0]), 4), 4, 1)
	pg, _, _, _ := freshAt(s, unsafe.Pointer(&x[0]))
	if pg.own.Load() == nil || pg.firsts.Load() != 0 {
		t.Fatalf("page: array %p, %d first granules; want an array, none", pg.own.Load(), pg.firsts.Load())
	}
	n := int(freshDense)
	for i := 1; i <= n; i++ {
		s.Read(a, unsafe.Pointer(&x[2*i]), 8, 2)
		if gr := pg.slot(uintptr(2 * i)); gr == nil || pg.hasFresh(uintptr(2*i)) {
			t.Fatalf("first access %d of %d on a page with an array: slot %p, entry %v; want a granule", i, n, gr, pg.hasFresh(uintptr(2*i)))
		}
	}
	if !pg.dense() {
		t.Fatalf("%d first granules, not dense", pg.firsts.Load())
	}
	p := unsafe.Pointer(&x[2*n+2])
	s.Read(a, p, 8, 3)
	_, gi, e, _ := freshAt(s, p)
	if pg.slot(gi) != nil || Epoch(e) != a.Epoch {
		t.Fatalf("first access of a dense page: slot %p, entry %v; want an entry", pg.slot(gi), Epoch(e))
	}
	b := thread(2, 1, nil) // unordered with a
	if r, race := s.Write(b, p, 8, 4); !race || r.Prev != a.Epoch || r.PrevSite != 3 || r.PrevWrite {
		t.Fatalf("unordered write of a's read: race %v, %+v", race, r)
	}
}
