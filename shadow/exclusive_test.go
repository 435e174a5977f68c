// Copyright 2026 The bigfoot Authors. All rights reserved.

package shadow

import (
	"runtime"
	"sync/atomic"
	"testing"
	"unsafe"

	"github.com/bigfoot-go/bigfoot/internal/spin"
)

// hookOnce makes the next exclusive call run f between its loads and its
// compare-and-swap, the window in which another goroutine's locked update
// may interleave, and reports through the returned pointer whether
// exclusive reached that window.
func hookOnce(t *testing.T, f func()) *bool {
	t.Helper()
	fired := new(bool)
	exclusiveHook = func() {
		if *fired {
			return
		}
		*fired = true
		f()
	}
	t.Cleanup(func() { exclusiveHook = nil })
	return fired
}

// owned returns a heap int64 that a has written (off-heap state that a
// owns) and a's thread in the next epoch.
func owned(t *testing.T, s *Space) (*int64, *Thread) {
	x := escape(new(int64))
	a := thread(1, 1, nil)
	if _, race := s.Write(a, unsafe.Pointer(x), 8, 1); race {
		t.Fatal("first write races")
	}
	release(a)
	return x, a
}

// TestExclusiveRules checks the FastTrack rules exclusive applies: the
// owner's write and read in a new epoch record the epoch and the site
// without the lock ([WRITE EXCLUSIVE], [READ EXCLUSIVE]), and an
// unordered goroutine's access afterwards races with them.
func TestExclusiveRules(t *testing.T) {
	quiet(t)
	s := granuleSpace()
	x, a := owned(t, s)
	p := unsafe.Pointer(x)
	// The read first: after the write, a read of the same epoch
	// records nothing (cell.ownWrite), and the read in the next epoch
	// would find no earlier read of a's to replace.
	if _, race := s.Read(a, p, 8, 3); race {
		t.Fatal("owner's read races")
	}
	fired := hookOnce(t, func() {})
	before := a.Stats.Rules[WriteExclusive]
	if _, race := s.Write(a, p, 8, 2); race {
		t.Fatal("owner's write races")
	}
	gr := slotOf(s, p)
	if !*fired || a.Stats.Rules[WriteExclusive] != before+1 {
		t.Fatal("owner's write in a new epoch did not take the lock-free path")
	}
	if gr.whole.w.Load() != uint64(a.Epoch) || gr.whole.wsite.Load() != 2 {
		t.Fatalf("write recorded as %x at site %d", gr.whole.w.Load(), gr.whole.wsite.Load())
	}
	release(a)
	fired = hookOnce(t, func() {})
	if _, race := s.Read(a, p, 8, 4); race {
		t.Fatal("owner's read in a new epoch races")
	}
	if !*fired || gr.whole.r.Load() != uint64(a.Epoch) || gr.whole.rsite.Load() != 4 {
		t.Fatal("owner's read in a new epoch not recorded by the lock-free path")
	}
	// An unordered goroutine races with both, and the reports name the
	// sites exclusive recorded.
	b := thread(2, 1, nil)
	r, race := s.Write(b, p, 8, 5)
	if !race || r.Prev.TID() != 1 || r.PrevSite != 2 && r.PrevSite != 4 {
		t.Fatalf("race with the owner's lock-free accesses: %+v %v", r, race)
	}
	runtime.KeepAlive(x)
}

// TestExclusiveDeclines checks that exclusive leaves to the locked path
// what it must not decide: state another goroutine recorded, and state
// recorded before a GC cycle.
func TestExclusiveDeclines(t *testing.T) {
	quiet(t)
	s := granuleSpace()
	x, a := owned(t, s)
	p := unsafe.Pointer(x)
	// b reads after a's first epoch: a race-free handoff that adopts the
	// granule. a's next write must check b's read, which is unordered.
	b := thread(2, 1, map[uint32]uint64{1: 1})
	if _, race := s.Read(b, p, 8, 2); race {
		t.Fatal("ordered read races")
	}
	fired := hookOnce(t, func() {})
	if _, race := s.Write(a, p, 8, 3); !race {
		t.Fatal("write after an unordered read: race missed")
	}
	if *fired {
		t.Fatal("lock-free path taken over another goroutine's read")
	}

	// Owned state from an older GC generation: validate drops it.
	y, c := owned(t, s)
	q := unsafe.Pointer(y)
	slotOf(s, q).gen.Add(^uint32(0))
	fired = hookOnce(t, func() {})
	s.Write(c, q, 8, 4)
	if *fired {
		t.Fatal("lock-free path taken over state from an older generation")
	}
	runtime.KeepAlive(x)
	runtime.KeepAlive(y)
}

// TestExclusiveConcurrentRead interleaves a locked read by an unordered
// goroutine between exclusive's loads and its compare-and-swap. The
// reader loads the write epoch after recording its read, before the
// compare-and-swap, so it finds no conflict; exclusive loads the read
// epoch after its compare-and-swap and must find the reader's. The state
// here is on the heap and already adopted, so nothing moves it.
func TestExclusiveConcurrentRead(t *testing.T) {
	quiet(t)
	s := granuleSpace()
	x, a := owned(t, s)
	p := unsafe.Pointer(x)
	// Adoption by a reader after a's first epoch, then a reads again
	// after it, so that the state is a's alone again: an adopted heap
	// granule.
	b := thread(2, 1, map[uint32]uint64{1: 1})
	s.Read(b, p, 8, 2)
	acquire(a, release(b))
	if _, race := s.Read(a, p, 8, 3); race {
		t.Fatal("ordered read races")
	}
	if _, race := s.Write(a, p, 8, 3); race {
		t.Fatal("ordered write races")
	}
	gr := slotOf(s, p)
	if gr.off || gr.owner.Load() != adopted {
		t.Fatalf("setup: off %v owner %d", gr.off, gr.owner.Load())
	}
	release(a)
	c := thread(3, 1, map[uint32]uint64{1: a.VC[1] - 1}) // ordered after a's last epoch, not this one
	var cRace bool
	fired := hookOnce(t, func() {
		_, cRace = s.Read(c, p, 8, 4)
	})
	_, aRace := s.Write(a, p, 8, 5)
	if !*fired {
		t.Fatal("lock-free path not taken")
	}
	if cRace {
		t.Fatal("the reader raced with a write it saw as ordered")
	}
	if !aRace {
		t.Fatal("write-after-read race missed: the locked read in exclusive's window went unseen")
	}
	if slotOf(s, p) != gr || gr.whole.w.Load() != uint64(a.Epoch) {
		t.Fatal("the write is not recorded")
	}
	runtime.KeepAlive(x)
}

// TestExclusiveConcurrentWrite interleaves a locked write by an unordered
// goroutine in exclusive's window: the compare-and-swap fails and the
// locked path finds the write-write race.
func TestExclusiveConcurrentWrite(t *testing.T) {
	quiet(t)
	s := granuleSpace()
	x, a := owned(t, s)
	p := unsafe.Pointer(x)
	b := thread(2, 1, map[uint32]uint64{1: 1}) // ordered after a's first epoch
	var bRace bool
	fired := hookOnce(t, func() {
		_, bRace = s.Write(b, p, 8, 2)
	})
	_, aRace := s.Write(a, p, 8, 3)
	if !*fired || bRace {
		t.Fatalf("setup: fired %v, b's ordered write races %v", *fired, bRace)
	}
	if !aRace {
		t.Fatal("write-write race missed")
	}
	if w := slotOf(s, p).whole.w.Load(); w != uint64(a.Epoch) {
		t.Fatalf("last write %x, want a's %x", w, uint64(a.Epoch))
	}
	runtime.KeepAlive(x)
}

// A stateMover moves the state of granule gr, in slot gi of page pg, out
// of it, as the code that races with exclusive does.
type stateMover struct {
	name string
	move func(s *Space, pg *page, gi uintptr, gr *granule)
}

// stateMovers are promote (a second goroutine's first access) and a split
// (an access of other bytes).
var stateMovers = []stateMover{
	{"promote", func(s *Space, pg *page, gi uintptr, gr *granule) {
		pg.promote(nil, gi, gr)
	}},
	{"split", func(s *Space, pg *page, gi uintptr, gr *granule) {
		a := thread(1, 1, nil) // the owner's first epoch: no new state
		s.update(a, pg, gi, gr, 0, 0, 4, true, 1, new(Race))
	}},
}

// TestExclusiveMoved moves the state out of the granule in exclusive's
// window, as promote (a second goroutine's first access) and a split
// (an access of other bytes) do, and as the sweeper drops it: the write
// must end up in the state that replaced the granule, never be lost in
// the old one.
func TestExclusiveMoved(t *testing.T) {
	quiet(t)
	for _, tc := range append(stateMovers[:len(stateMovers):len(stateMovers)], stateMover{
		"sweep", func(s *Space, pg *page, gi uintptr, gr *granule) {
			pg.set(gi, nil)
			pg.mu.Lock()
			pg.live--
			pg.mu.Unlock()
			freeGranule(nil, gr)
		}}) {
		t.Run(tc.name, func(t *testing.T) {
			untracked(t) // off-heap granules, which promote moves
			s := granuleSpace()
			x, a := owned(t, s)
			p := unsafe.Pointer(x)
			key, gi := uintptr(p)>>pageShift, (uintptr(p)&(pageSize-1))>>3
			fired := hookOnce(t, func() {
				pg := s.pages.Load(key)
				mu := s.stripe(key, gi)
				mu.Lock()
				tc.move(s, pg, gi, pg.slot(gi))
				mu.Unlock()
			})
			if _, race := s.Write(a, p, 8, 2); race {
				t.Fatal("owner's write races")
			}
			if !*fired {
				t.Fatal("lock-free path not taken")
			}
			gr := slotOf(s, p)
			var w uint64
			if sp := gr.split.Load(); sp != nil {
				w = sp.cells[0].w.Load()
			} else {
				w = gr.whole.w.Load()
			}
			if w != uint64(a.Epoch) {
				t.Fatalf("write lost: state records %x, want %x", w, uint64(a.Epoch))
			}
			// And it still races with an unordered goroutine.
			if _, race := s.Read(thread(2, 1, nil), p, 8, 3); !race {
				t.Fatal("race with the moved write missed")
			}
			runtime.KeepAlive(x)
		})
	}
}

// TestExclusiveRecycled reuses the owner's granule for another address
// in exclusive's window, as the sweeper and another goroutine's next
// first access may: the compare-and-swap must not write the owner's
// epoch into the other address's state.
func TestExclusiveRecycled(t *testing.T) {
	if !recycleGranules {
		t.Skip("granules are not recycled under the race detector")
	}
	quiet(t)
	untracked(t) // off-heap granules, which are recycled
	s := granuleSpace()
	x, a := owned(t, s)
	p := unsafe.Pointer(x)
	y := escape(new(int64))
	q := unsafe.Pointer(y)
	b := thread(2, 1, nil)
	key, gi := uintptr(p)>>pageShift, (uintptr(p)&(pageSize-1))>>3
	var old *granule
	hookOnce(t, func() {
		pg := s.pages.Load(key)
		mu := s.stripe(key, gi)
		mu.Lock()
		old = pg.slot(gi)
		pg.set(gi, nil)
		mu.Unlock()
		freeGranule(b, old) // b's next new granule is old, for y
		s.Write(b, q, 8, 3)
	})
	if _, race := s.Write(a, p, 8, 2); race {
		t.Fatal("owner's write races")
	}
	if slotOf(s, q) != old {
		t.Skip("the block was not reused for y")
	}
	if w := slotOf(s, q).whole.w.Load(); w != uint64(b.Epoch) {
		t.Fatalf("y's state records %x, want b's write %x", w, uint64(b.Epoch))
	}
	if w := slotOf(s, p).whole.w.Load(); w != uint64(a.Epoch) {
		t.Fatalf("x's state records %x, want a's write %x", w, uint64(a.Epoch))
	}
	runtime.KeepAlive(x)
	runtime.KeepAlive(y)
}

// TestExclusiveMidMove runs exclusive while promote and a split are
// moving the cell's state (between taking the epochs and storing them in
// the new state), the window in which a compare-and-swap on the old cell
// would be lost: it must fail there, and the access then goes to the
// locked path, which waits for the move and records it in the new state.
func TestExclusiveMidMove(t *testing.T) {
	quiet(t)
	for _, tc := range stateMovers {
		t.Run(tc.name, func(t *testing.T) {
			untracked(t) // off-heap granules, which promote moves
			s := granuleSpace()
			x, a := owned(t, s)
			p := unsafe.Pointer(x)
			key, gi := uintptr(p)>>pageShift, (uintptr(p)&(pageSize-1))>>3
			pg := s.pages.Load(key)
			mu := s.stripe(key, gi)
			gr := pg.slot(gi)
			if tc.name == "split" {
				// On the heap first, so that the split's take is the
				// one the hook sees (not promote's).
				mu.Lock()
				gr = pg.promote(nil, gi, gr)
				mu.Unlock()
			}
			var done, hooked bool
			moveHook = func() {
				hooked = true
				// The mover holds the stripe lock; exclusive takes none
				// unless it sees another goroutine's access.
				done, _ = s.exclusive(a, p, gr, 0, 8, true, 2, new(Race))
			}
			t.Cleanup(func() { moveHook = nil })
			mu.Lock()
			tc.move(s, pg, gi, gr)
			mu.Unlock()
			moveHook = nil
			if !hooked {
				t.Fatal("setup: the move did not take the epochs")
			}
			if done {
				t.Fatal("exclusive recorded a write in a cell being moved")
			}
			if _, race := s.Write(a, p, 8, 2); race {
				t.Fatal("owner's write races")
			}
			cur := slotOf(s, p)
			w := cur.whole.w.Load()
			if sp := cur.split.Load(); sp != nil {
				w = sp.cells[0].w.Load()
			}
			if w != uint64(a.Epoch) {
				t.Fatalf("write lost: state records %x, want %x", w, uint64(a.Epoch))
			}
			runtime.KeepAlive(x)
		})
	}
}

// TestExclusiveInLockedUpdate runs exclusive (the owner, a) inside a
// locked update by another goroutine (b, ordered after a's earlier
// epoch, not the current one), between b's first load of its word and
// its store: b's store must not hide a's access. For a write, b's swap
// returns a's new write epoch, which races with b; for a read, b's
// compare-and-swap fails, and b records both reads (read-shared).
func TestExclusiveInLockedUpdate(t *testing.T) {
	quiet(t)
	for _, write := range []bool{true, false} {
		s := granuleSpace()
		x, a := owned(t, s)
		p := unsafe.Pointer(x)
		if !write {
			s.Read(a, p, 8, 1) // a's read epoch, for exclusive to advance
			release(a)
		}
		gr := slotOf(s, p)
		if !write {
			// b's read shares the cell, and update first moves an
			// off-heap granule to the heap (a read vector clock is on
			// the heap): start from the heap granule, which stays.
			a := uintptr(p)
			key, gi := a>>pageShift, (a&(pageSize-1))>>3
			mu := s.stripe(key, gi)
			mu.Lock()
			gr = s.pages.Load(key).promote(nil, gi, gr)
			mu.Unlock()
		}
		b := thread(2, 1, map[uint32]uint64{1: a.VC[1] - 1})
		var done bool
		checkHook = func() {
			checkHook = nil
			done, _ = s.exclusive(a, p, gr, 0, 8, write, 2, new(Race))
		}
		_, race := s.Access(b, p, 8, write, 3)
		checkHook = nil
		if !done {
			t.Fatalf("write %v: setup: exclusive declined", write)
		}
		if write {
			if !race {
				t.Fatal("write-write race hidden by the locked writer's store")
			}
			continue
		}
		cur := slotOf(s, p)
		v := cur.whole.rvc.Load()
		if cur.whole.r.Load() != shared || v.get(1) != a.Epoch.Clock() || v.get(2) != b.Epoch.Clock() {
			t.Fatalf("read state %x, want both reads shared", cur.whole.r.Load())
		}
		runtime.KeepAlive(x)
	}
}

// TestWriteSharedConflictOrder checks that a write over a read-shared
// state reports the write-write conflict first, as [WRITE SHARED] checks
// the last write before the reads (a regression: the read vector clock's
// conflict overwrote it).
func TestWriteSharedConflictOrder(t *testing.T) {
	quiet(t)
	s := granuleSpace()
	x := escape(new(int64))
	p := unsafe.Pointer(x)
	a, b, c := thread(1, 1, nil), thread(2, 1, nil), thread(3, 1, nil)
	s.Write(a, p, 8, 1)
	s.Read(a, p, 8, 2)
	s.Read(b, p, 8, 3) // races with a's write; read-shared
	r, race := s.Write(c, p, 8, 4)
	if !race || !r.PrevWrite || r.Prev != a.Epoch || r.PrevSite != 1 {
		t.Fatalf("conflict %+v, want a's write at site 1", r)
	}
	runtime.KeepAlive(x)
}

// shared returns a heap int64 that w wrote and readers 2 and 3 then read
// (ordered after the write, unordered with each other: read-shared), and
// reader 2 in its next epoch, which still knows only w's write.
func sharedState(t *testing.T, s *Space) (*int64, *Thread) {
	x := escape(new(int64))
	p := unsafe.Pointer(x)
	w := thread(1, 1, nil)
	s.Write(w, p, 8, 1)
	r2 := thread(2, 1, map[uint32]uint64{1: 1})
	r3 := thread(3, 1, map[uint32]uint64{1: 1})
	for _, r := range []*Thread{r2, r3} {
		if _, race := s.Read(r, p, 8, 2); race {
			t.Fatal("ordered read races")
		}
	}
	if slotOf(s, p).whole.r.Load() != shared {
		t.Fatal("setup: not read-shared")
	}
	release(r2)
	return x, r2
}

// sharedCell returns a new granule Space, sharedState's location in it,
// the reader sharedState returns, and the location's read vector clock.
func sharedCell(t *testing.T) (*Space, *int64, *Thread, *readVC) {
	quiet(t)
	s := granuleSpace()
	x, r := sharedState(t, s)
	return s, x, r, slotOf(s, unsafe.Pointer(x)).whole.rvc.Load()
}

// TestSharedReadRule checks [READ SHARED] on the lock-free path: a
// reader with an entry sets it in a new epoch, and an unordered write
// afterwards races with that read.
func TestSharedReadRule(t *testing.T) {
	quiet(t)
	s := granuleSpace()
	x, r := sharedState(t, s)
	p := unsafe.Pointer(x)
	fired := hookOnce(t, func() {})
	before := r.Stats.Rules[ReadShared]
	if _, race := s.Read(r, p, 8, 7); race {
		t.Fatal("ordered read races")
	}
	v := slotOf(s, p).whole.rvc.Load()
	if !*fired || r.Stats.Rules[ReadShared] != before+1 || v.get(2) != r.Epoch.Clock() || v.ents[v.find(2)].site.Load() != 7 {
		t.Fatalf("read-shared read in a new epoch not recorded by the lock-free path (fired %v, entry %d)", *fired, v.get(2))
	}
	// A writer ordered after everything but this read races with it.
	wr := thread(4, 1, map[uint32]uint64{1: 1, 2: r.Epoch.Clock() - 1, 3: 1})
	rc, race := s.Write(wr, p, 8, 8)
	if !race || rc.Prev != r.Epoch || rc.PrevSite != 7 || rc.PrevWrite {
		t.Fatalf("race with the lock-free read: %+v %v", rc, race)
	}
	runtime.KeepAlive(x)
}

// TestSharedReadConcurrentWrite interleaves a locked write ordered after
// the reader's earlier epoch (not this one) with sharedRead, both ways:
// in sharedRead's window (its compare-and-swap then fails on the entry
// the writer took, and the locked path finds the race), and sharedRead
// inside the writer's window between its load and its swap (the writer's
// scan then finds the new entry).
func TestSharedReadConcurrentWrite(t *testing.T) {
	quiet(t)
	for _, inWriter := range []bool{false, true} {
		s := granuleSpace()
		x, r := sharedState(t, s)
		p := unsafe.Pointer(x)
		wr := thread(4, 1, map[uint32]uint64{1: 1, 2: r.Epoch.Clock() - 1, 3: 1})
		var wRace, rRace, done bool
		if inWriter {
			gr := slotOf(s, p)
			checkHook = func() {
				checkHook = nil
				done, rRace = s.exclusive(r, p, gr, 0, 8, false, 7, new(Race))
			}
			_, wRace = s.Write(wr, p, 8, 8)
			checkHook = nil
			if !done || rRace {
				t.Fatalf("setup: sharedRead done %v race %v", done, rRace)
			}
			if !wRace {
				t.Fatal("the writer missed the read sharedRead recorded in its window")
			}
		} else {
			fired := hookOnce(t, func() {
				_, wRace = s.Write(wr, p, 8, 8)
			})
			_, rRace = s.Read(r, p, 8, 7)
			if !*fired || wRace {
				t.Fatalf("setup: fired %v, write race %v", *fired, wRace)
			}
			if !rRace {
				t.Fatal("read-after-write race missed")
			}
		}
		runtime.KeepAlive(x)
	}
}

// TestSharedReadAcrossReshare runs a write and a read-share of the cell
// inside sharedRead's window: the clock the reader loaded is the cell's
// again, reused (reshared), but the reader's entry is gone from it, so
// its compare-and-swap fails and the locked path finds the race with the
// write.
func TestSharedReadAcrossReshare(t *testing.T) {
	s, x, r, v := sharedCell(t)
	p := unsafe.Pointer(x)
	var wRace bool
	fired := hookOnce(t, func() {
		// Not ordered after r's current epoch.
		_, wRace = s.Write(thread(4, 1, map[uint32]uint64{1: 1, 2: r.Epoch.Clock() - 1, 3: 1}), p, 8, 8)
		for _, tid := range []uint32{5, 6} {
			s.Read(thread(tid, 1, map[uint32]uint64{4: 1}), p, 8, 9)
		}
	})
	_, rRace := s.Read(r, p, 8, 7)
	if !*fired || wRace {
		t.Fatalf("setup: fired %v, write race %v", *fired, wRace)
	}
	if c := &slotOf(s, p).whole; c.rvc.Load() != v || c.r.Load() != shared {
		t.Fatal("setup: the cell was not read-shared again in the same clock")
	}
	if !rRace {
		t.Fatal("read-after-write race missed")
	}
	runtime.KeepAlive(x)
}

// TestSharedReadMidMove runs sharedRead while a locked update copies the
// read vector clock elsewhere (a split, a reader that grows it): its
// compare-and-swap must fail on the taken entry, never record the read in
// the old copy, and the locked path then records it in the new state.
func TestSharedReadMidMove(t *testing.T) {
	quiet(t)
	for _, name := range []string{"split", "grow"} {
		s := granuleSpace()
		x, r := sharedState(t, s)
		p := unsafe.Pointer(x)
		key, gi := uintptr(p)>>pageShift, (uintptr(p)&(pageSize-1))>>3
		gr := slotOf(s, p)
		var done, hooked bool
		moveHook = func() {
			moveHook = nil
			hooked = true
			done, _ = s.exclusive(r, p, gr, 0, 8, false, 7, new(Race))
		}
		if name == "split" {
			mu := s.stripe(key, gi)
			mu.Lock()
			w := thread(1, 1, nil) // same epoch as the write: no new state
			s.update(w, s.pages.Load(key), gi, gr, 0, 0, 4, false, 1, new(Race))
			mu.Unlock()
		} else {
			// More readers than free entries: one of them grows it.
			for tid := uint32(40); tid < 40+rvMin; tid++ {
				s.Read(thread(tid, 1, map[uint32]uint64{1: 1}), p, 8, 3)
			}
		}
		moveHook = nil
		if !hooked || done {
			t.Fatalf("%s: hooked %v, sharedRead recorded a read in a moved read vector clock %v", name, hooked, done)
		}
		if _, race := s.Read(r, p, 8, 7); race {
			t.Fatalf("%s: ordered read races", name)
		}
		cur := slotOf(s, p)
		v := cur.whole.rvc.Load()
		if sp := cur.split.Load(); sp != nil {
			v = sp.cells[0].rvc.Load()
		}
		if v.get(2) != r.Epoch.Clock() {
			t.Fatalf("%s: read lost: entry %d, want %d", name, v.get(2), r.Epoch.Clock())
		}
		runtime.KeepAlive(x)
	}
}

// moveDuringRead runs read, a lock-free read of granule gr at p, with a
// locked read of the bytes [0, hi) by the thread of the granule's write,
// in the same epoch (no new state, but a split or refinement that moves
// the state), stepping both through the hooks: the read's checks pass
// first, the move takes and copies the state, the read's compare-and-swap
// comes next, and the move installs the copy last. It returns read's
// result.
func moveDuringRead(t *testing.T, s *Space, p unsafe.Pointer, gr *granule, hi uint8, read func() bool) bool {
	key, gi := uintptr(p)>>pageShift, (uintptr(p)&(pageSize-1))>>3
	atMove, resume, moved := make(chan bool), make(chan bool), make(chan bool)
	moveHook = func() {
		moveHook = nil
		atMove <- true
		<-resume
	}
	t.Cleanup(func() { moveHook, exclusiveHook = nil, nil })
	exclusiveHook = func() {
		exclusiveHook = nil
		go func() {
			mu := s.stripe(key, gi)
			mu.Lock()
			w := thread(1, 1, nil) // same epoch as the write: no new state
			s.update(w, s.pages.Load(key), gi, gr, 0, 0, hi, false, 1, new(Race))
			mu.Unlock()
			moved <- true
		}()
		<-atMove
	}
	done := read()
	resume <- true
	<-moved
	return done
}

// TestSharedReadRacingSplit runs sharedRead and a split concurrently in
// the one order that only taking the entries makes safe: sharedRead's
// checks pass before the split takes the cell, and its compare-and-swap
// comes after the split copied the read vector clock but before it
// dropped it (so sharedRead's check that the clock is still the cell's
// passes). The two goroutines step through the hooks in lock step.
func TestSharedReadRacingSplit(t *testing.T) {
	quiet(t)
	s := granuleSpace()
	x, r := sharedState(t, s)
	p := unsafe.Pointer(x)
	gr := slotOf(s, p)
	done := moveDuringRead(t, s, p, gr, 4, func() bool {
		done, _ := s.exclusive(r, p, gr, 0, 8, false, 7, new(Race))
		return done
	})
	if done {
		t.Fatal("sharedRead recorded a read in the read vector clock a split was moving")
	}
	if _, race := s.Read(r, p, 8, 7); race {
		t.Fatal("ordered read races")
	}
	if sp := slotOf(s, p).split.Load(); sp == nil || sp.cells[0].rvc.Load().get(2) != r.Epoch.Clock() {
		t.Fatal("read lost")
	}
	runtime.KeepAlive(x)
}

// TestExclusiveSubGranule checks Check's single-granule entry on an
// access that covers part of a granule (a 4-byte field at offset 4): the
// owner's write in a new epoch takes the lock-free path, and a conflict
// that exclusive finds after its compare-and-swap (settle) is reported
// complete, with the field's address and the access's kind, as the
// locked path reports it.
func TestExclusiveSubGranule(t *testing.T) {
	quiet(t)
	s := granuleSpace()
	type pair struct{ _, y int32 }
	v := escape(new(pair))
	p := unsafe.Pointer(&v.y)
	a := thread(1, 1, nil)
	if _, race := s.Write(a, p, 4, 1); race {
		t.Fatal("first write races")
	}
	release(a)
	before := a.Stats.Rules[WriteExclusive]
	fired := hookOnce(t, func() {})
	if _, race := s.Write(a, p, 4, 2); race {
		t.Fatal("owner's write races")
	}
	if !*fired || a.Stats.Rules[WriteExclusive] != before+1 {
		t.Fatal("owner's write of a field in a new epoch did not take the lock-free path")
	}
	// As in TestExclusiveConcurrentRead: an adopted heap granule, then
	// an unordered locked read in exclusive's window.
	b := thread(2, 1, map[uint32]uint64{1: a.VC[1]})
	s.Read(b, p, 4, 3)
	acquire(a, release(b))
	release(a)
	if _, race := s.Read(a, p, 4, 4); race {
		t.Fatal("ordered read races")
	}
	if _, race := s.Write(a, p, 4, 4); race {
		t.Fatal("ordered write races")
	}
	if gr := slotOf(s, p); gr.off || gr.owner.Load() != adopted || gr.lo != 4 || gr.hi != 8 {
		t.Fatalf("setup: off %v owner %d bounds [%d, %d)", gr.off, gr.owner.Load(), gr.lo, gr.hi)
	}
	release(a)
	c := thread(3, 1, map[uint32]uint64{1: a.VC[1] - 1})
	fired = hookOnce(t, func() { s.Read(c, p, 4, 5) })
	r, race := s.Write(a, p, 4, 6)
	if !*fired || !race {
		t.Fatalf("fired %v, race %v: the read in exclusive's window went unseen", *fired, race)
	}
	if r.Addr != uintptr(p) || !r.Write || r.PrevWrite || r.Prev.TID() != 3 || r.PrevSite != 5 {
		t.Fatalf("report %+v, want the write of %#x against c's read at site 5", r, uintptr(p))
	}
	runtime.KeepAlive(v)
}

// TestExclusiveSettleRecycled moves the owner's granule out of its slot
// after exclusive recorded the owner's write in it and saw another
// goroutine's read, before settle takes the stripe lock: a second
// goroutine's read promotes the granule to the heap, and the block is
// reused at once for another address's state. settle must check the
// write against the state that replaced the granule, never against the
// block's next user (a false race between a Map's table and a freed
// entry in github.com/puzpuzpuz/xsync/v4's TestMapDoesNotLoseEntriesOnResize),
// and must check it although the moved state records the write's epoch
// (otherwise the same-epoch rule hides a race with the read).
func TestExclusiveSettleRecycled(t *testing.T) {
	if !recycleGranules {
		t.Skip("granules are not recycled under the race detector")
	}
	for _, ordered := range []bool{true, false} {
		t.Run(map[bool]string{true: "ordered", false: "unordered"}[ordered], func(t *testing.T) {
			s, fv := versionSpace(t) // adoption keeps the granule off the heap, in place
			x, y := escape(new(int64)), escape(new([pageSize / 8]int64))
			p := unsafe.Pointer(x)
			fv.heap(uintptr(p), 8)
			fv.advance(uintptr(p), 8)
			a := thread(1, 1, nil)
			s.Write(a, p, 8, 1)
			release(a)
			key, gi := uintptr(p)>>pageShift, (uintptr(p)&(pageSize-1))>>3
			mu := s.stripe(key, gi)
			// q: another address, under another stripe lock.
			q := unsafe.Pointer(&y[0])
			for i := range y {
				q = unsafe.Pointer(&y[i])
				if s.stripe(uintptr(q)>>pageShift, (uintptr(q)&(pageSize-1))>>3) != mu {
					break
				}
			}
			fv.heap(uintptr(q), 8)
			fv.advance(uintptr(q), 8)
			c := thread(2, 1, map[uint32]uint64{1: 1}) // ordered after a's first write
			d := thread(3, 1, nil)                     // q's reader
			locked := make(chan struct{})
			hookOnce(t, func() {
				// c reads x between exclusive's loads and its
				// compare-and-swap: settle will see the read.
				if _, race := s.Read(c, p, 8, 2); race {
					t.Error("ordered read races")
				}
				if ordered {
					acquire(a, release(c))
				}
				mu.Lock()
				close(locked)
			})
			var r Race
			var race bool
			done := make(chan struct{})
			go func() {
				defer close(done)
				r, race = s.Write(a, p, 8, 3)
			}()
			<-locked
			waitForWaiter(mu) // exclusive is in settle, waiting for the lock
			pg := s.pages.Load(key)
			old := pg.slot(gi)
			pg.promote(d, gi, old) // d's next granule is old
			s.Read(d, q, 8, 4)
			if slotOf(s, q) != old {
				t.Fatal("setup: the block was not reused for q")
			}
			mu.Unlock()
			<-done
			switch {
			case ordered && race:
				t.Fatalf("false race: %+v (the write is ordered after the only read of x)", r)
			case !ordered && (!race || r.Prev.TID() != 2):
				t.Fatalf("race %v with %+v, want the race with c's read", race, r)
			}
			if w := slotOf(s, p).whole.w.Load(); w != uint64(a.Epoch) {
				t.Fatalf("x's state records write %x, want a's %x", w, uint64(a.Epoch))
			}
			if e := slotOf(s, q).whole.r.Load(); e != uint64(d.Epoch) {
				t.Fatalf("q's state records read %x, want d's %x", e, uint64(d.Epoch))
			}
			runtime.KeepAlive(x)
			runtime.KeepAlive(y)
		})
	}
}

// waitForWaiter waits until a goroutine blocks on mu, which the caller
// holds: spin.Mutex's state word (its first field) is 2 once a Lock
// waits.
func waitForWaiter(mu *spin.Mutex) {
	for (*atomic.Int32)(unsafe.Pointer(mu)).Load() != 2 {
		runtime.Gosched()
	}
}

// sharedParts returns a struct of two uint32 fields in a new granule
// Space, each written by thread 1 and then read by threads 2 and 3 (its
// granule split in two read-shared parts), and thread 2 in its next
// epoch.
func sharedParts(t *testing.T, s *Space) (*[2]uint32, *Thread) {
	x := escape(new([2]uint32))
	w := thread(1, 1, nil)
	s.Write(w, unsafe.Pointer(&x[0]), 4, 1)
	s.Write(w, unsafe.Pointer(&x[1]), 4, 2)
	r2 := thread(2, 1, map[uint32]uint64{1: 1})
	r3 := thread(3, 1, map[uint32]uint64{1: 1})
	for _, r := range []*Thread{r2, r3} {
		for i := range x {
			if _, race := s.Read(r, unsafe.Pointer(&x[i]), 4, 3); race {
				t.Fatal("ordered read races")
			}
		}
	}
	sp := slotOf(s, unsafe.Pointer(x)).split.Load()
	if sp == nil || sp.shift != 2 || sp.cells[0].r.Load() != shared || sp.cells[1].r.Load() != shared {
		t.Fatal("setup: not two read-shared parts")
	}
	release(r2)
	return x, r2
}

// TestSharedReadPart: a reader's read of one read-shared part of a split
// granule in a new epoch (a byte field beside a word one, in a table
// many goroutines read) takes the lock-free path, records the read in
// its entry, and a write unordered with it races.
func TestSharedReadPart(t *testing.T) {
	quiet(t)
	s := granuleSpace()
	x, r := sharedParts(t, s)
	fired := hookOnce(t, func() {})
	before := r.Stats.Rules[ReadShared]
	if _, race := s.Read(r, unsafe.Pointer(&x[1]), 4, 7); race {
		t.Fatal("ordered read races")
	}
	if !*fired || r.Stats.Rules[ReadShared] != before+1 {
		t.Fatal("a read of one read-shared part did not take the lock-free path")
	}
	sp := slotOf(s, unsafe.Pointer(x)).split.Load()
	if got := sp.cells[1].rvc.Load().get(2); got != r.Epoch.Clock() {
		t.Fatalf("entry %d, want %d", got, r.Epoch.Clock())
	}
	if got := sp.cells[0].rvc.Load().get(2); got == r.Epoch.Clock() {
		t.Fatal("the read was recorded in the other part")
	}
	w := thread(4, 1, map[uint32]uint64{1: 1})
	if _, race := s.Write(w, unsafe.Pointer(&x[1]), 4, 8); !race {
		t.Fatal("a write unordered with the read does not race")
	}
	if _, race := s.Write(thread(5, 1, map[uint32]uint64{1: 1, 2: 1, 3: 1}), unsafe.Pointer(&x[0]), 4, 9); race {
		t.Fatal("a write ordered after the other part's reads races")
	}
	runtime.KeepAlive(x)
}

// TestSharedReadPartRacingRefine runs sharedReadPart and a refinement of
// the parts (an access of one byte) in the order only copyTo's taking of
// the entries makes safe: the read's checks pass before the refinement
// copies the part, and its compare-and-swap comes after the copy but
// before the granule gets the new parts (so the check that the parts are
// still the granule's would pass). The read must fail and be recorded by
// the locked path, in the new parts.
func TestSharedReadPartRacingRefine(t *testing.T) {
	quiet(t)
	s := granuleSpace()
	x, r := sharedParts(t, s)
	p := unsafe.Pointer(x)
	key := uintptr(p) >> pageShift
	gr := slotOf(s, p)
	sp := gr.split.Load()
	r.cacheKey, r.cache = key, s.pages.Load(key)
	done := moveDuringRead(t, s, p, gr, 1, func() bool {
		done, _ := s.sharedReadPart(r, p, gr, sp, 0, 7, new(Race))
		return done
	})
	if done {
		t.Fatal("sharedReadPart recorded a read in parts a refinement was copying")
	}
	if nsp := gr.split.Load(); nsp == sp || nsp.shift != 0 {
		t.Fatal("setup: the parts were not refined")
	}
	if _, race := s.Read(r, p, 4, 7); race {
		t.Fatal("ordered read races")
	}
	if got := gr.split.Load().cells[0].rvc.Load().get(2); got != r.Epoch.Clock() {
		t.Fatalf("read lost: entry %d, want %d", got, r.Epoch.Clock())
	}
	runtime.KeepAlive(x)
}

// ownedSplit returns a heap int64 whose granule a has written as two
// 4-byte halves at different sites (off-heap state that a owns, split
// into two parts) and a's thread in the next epoch.
func ownedSplit(t *testing.T, s *Space) (*int64, *Thread) {
	x := escape(new(int64))
	a := thread(1, 1, nil)
	if _, race := s.Write(a, unsafe.Pointer(x), 4, 1); race {
		t.Fatal("first write races")
	}
	if _, race := s.Write(a, unsafe.Add(unsafe.Pointer(x), 4), 4, 2); race {
		t.Fatal("second write races")
	}
	if sp := slotOf(s, unsafe.Pointer(x)).split.Load(); sp == nil || sp.shift != 2 {
		t.Fatal("setup: the granule is not split in halves")
	}
	release(a)
	return x, a
}

// TestExclusivePart checks the lock-free first write and read of one
// part of a split granule in a new epoch of its owner ([WRITE
// EXCLUSIVE], [READ EXCLUSIVE] on a part), and that an unordered
// goroutine's access of that part afterwards races with them, and one of
// the other part with the earlier epoch's write.
func TestExclusivePart(t *testing.T) {
	quiet(t)
	s := granuleSpace()
	x, a := ownedSplit(t, s)
	q := unsafe.Add(unsafe.Pointer(x), 4)
	fired := hookOnce(t, func() {})
	before := a.Stats.Rules[WriteExclusive]
	if _, race := s.Write(a, q, 4, 3); race {
		t.Fatal("owner's write races")
	}
	if !*fired || a.Stats.Rules[WriteExclusive] != before+1 {
		t.Fatal("the write took the locked path")
	}
	gr := slotOf(s, q)
	if c := &gr.split.Load().cells[1]; c.w.Load() != uint64(a.Epoch) || c.wsite.Load() != 3 {
		t.Fatalf("part records %x at site %d, want %x at 3", c.w.Load(), c.wsite.Load(), uint64(a.Epoch))
	}
	if c := &gr.split.Load().cells[0]; c.w.Load() == uint64(a.Epoch) {
		t.Fatal("the other part records the write")
	}
	b := thread(2, 1, nil)
	if r, race := s.Read(b, q, 4, 4); !race || r.Prev != a.Epoch || r.PrevSite != 3 {
		t.Fatalf("race with the part's write: %+v %v", r, race)
	}
	c := thread(3, 1, nil)
	if r, race := s.Write(c, unsafe.Pointer(x), 4, 5); !race || r.Prev.Clock() != 1 || r.PrevSite != 1 {
		t.Fatalf("race with the other part's first write: %+v %v", r, race)
	}
	runtime.KeepAlive(x)
}

// TestExclusivePartMoved moves the parts' state in exclusivePart's
// window, as a refinement (an access of a single byte), promote and the
// sweeper do: the write must end up in the state that replaced the
// parts, never be lost in the old ones.
func TestExclusivePartMoved(t *testing.T) {
	quiet(t)
	movers := []stateMover{
		{"refine", func(s *Space, pg *page, gi uintptr, gr *granule) {
			a := thread(1, 1, nil) // the owner's first epoch: no new state
			s.update(a, pg, gi, gr, 0, 0, 1, true, 1, new(Race))
		}},
		stateMovers[0], // promote
		{"sweep", func(s *Space, pg *page, gi uintptr, gr *granule) {
			pg.set(gi, nil)
			pg.mu.Lock()
			pg.live--
			pg.mu.Unlock()
			freeGranule(nil, gr)
		}},
	}
	for _, tc := range movers {
		t.Run(tc.name, func(t *testing.T) {
			untracked(t) // off-heap granules, which promote moves
			s := granuleSpace()
			x, a := ownedSplit(t, s)
			q := unsafe.Add(unsafe.Pointer(x), 4)
			key, gi := uintptr(q)>>pageShift, (uintptr(q)&(pageSize-1))>>3
			fired := hookOnce(t, func() {
				pg := s.pages.Load(key)
				mu := s.stripe(key, gi)
				mu.Lock()
				tc.move(s, pg, gi, pg.slot(gi))
				mu.Unlock()
			})
			if _, race := s.Write(a, q, 4, 2); race {
				t.Fatal("owner's write races")
			}
			if !*fired {
				t.Fatal("lock-free path not taken")
			}
			gr := slotOf(s, q)
			var w uint64
			if sp := gr.split.Load(); sp != nil {
				w = sp.cells[4>>sp.shift].w.Load()
			} else {
				w = gr.whole.w.Load()
			}
			if w != uint64(a.Epoch) {
				t.Fatalf("write lost: state records %x, want %x", w, uint64(a.Epoch))
			}
			if _, race := s.Read(thread(2, 1, nil), q, 4, 3); !race {
				t.Fatal("race with the moved write missed")
			}
			runtime.KeepAlive(x)
		})
	}
}

// TestExclusivePartRacingRefine runs exclusivePart and a refinement of
// the parts concurrently in the one order that only taking the parts'
// epochs (copyTo) makes safe: the write's checks pass before the
// refinement copies the part, and its compare-and-swap comes after the
// copy but before the refined parts are installed, so that the parts it
// wrote are still the granule's when it looks.
func TestExclusivePartRacingRefine(t *testing.T) {
	quiet(t)
	s := granuleSpace()
	x, a := ownedSplit(t, s)
	p := unsafe.Pointer(x)
	gr := slotOf(s, p)
	done := moveDuringRead(t, s, p, gr, 1, func() bool {
		done, _ := s.exclusivePart(a, p, gr, gr.split.Load(), 0, true, 3, new(Race))
		return done
	})
	if done {
		t.Fatal("exclusivePart recorded a write in parts a refinement was copying")
	}
	if _, race := s.Write(a, p, 4, 3); race {
		t.Fatal("owner's write races")
	}
	if sp := slotOf(s, p).split.Load(); sp == nil || sp.shift != 0 || sp.cells[0].w.Load() != uint64(a.Epoch) {
		t.Fatal("write lost")
	}
	runtime.KeepAlive(x)
}

// TestExclusiveAtomicSiteFirst checks that the lock-free path stores an
// atomic operation's site before its epoch (setSite): a goroutine that
// checks the cell between the two must not see the atomic operation's
// epoch beside the site of the plain access it replaced, which would make
// another atomic operation a race.
func TestExclusiveAtomicSiteFirst(t *testing.T) {
	quiet(t)
	s := granuleSpace()
	x, a := owned(t, s)
	p := unsafe.Pointer(x)
	if _, race := s.Read(a, p, 8, 3); race { // a plain read, site 3
		t.Fatal("owner's read races")
	}
	release(a)
	gr := slotOf(s, p)
	var siteAtSwap uint32
	fired := hookOnce(t, func() { siteAtSwap = gr.whole.rsite.Load() })
	a.Atomic = 7
	if _, race := s.Read(a, p, 8, 7); race { // an atomic load, site 7
		t.Fatal("owner's atomic load races")
	}
	a.Atomic = 0
	if !*fired {
		t.Fatal("owner's atomic load did not take the lock-free path")
	}
	if siteAtSwap != 7 {
		t.Errorf("site %d beside the swap of the atomic load's epoch, want 7", siteAtSwap)
	}
	// An unordered atomic store does not race with the load.
	b := thread(2, 1, nil)
	b.Atomic = 7
	if r, race := s.Write(b, p, 8, 7); race && !r.PrevWrite {
		t.Fatalf("atomic store races with an atomic load: %+v", r)
	}
	runtime.KeepAlive(x)
}
