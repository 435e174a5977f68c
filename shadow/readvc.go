// Copyright 2026 The bigfoot Authors. All rights reserved.

package shadow

import (
	"sync/atomic"

	"github.com/bigfoot-go/bigfoot/internal/ownheap"
)

// A readVC is the read vector clock of a read-shared cell, kept sparse:
// one entry per reading thread, holding that thread's epoch (its id and
// clock; 0 for a free entry), placed by thread id (see home). Indexing
// entries by thread id cost 12 bytes per thread id in use, reader or
// not: thread ids are recycled only after a quarantine (the detector's
// tidTable), so in a program that starts goroutines per step they pass
// 64, and every location the 4 workers of a particle simulation read
// carried a clock of over 800 bytes, rebuilt after each write (moldyn
// allocated 1.09 GB of them). The readers of one location are usually
// few. Entries change under the stripe lock, except that sharedRead sets
// its own thread's existing entry with a compare-and-swap; the fast path
// loads them atomically.
type readVC struct {
	ents []rvEntry
}

// An rvEntry is one reader's entry in a readVC.
type rvEntry struct {
	e    atomic.Uint64 // the reader's Epoch; 0: free; frozen: taken
	site atomic.Uint32
}

// rvMin is the number of entries of a new read vector clock: a read-shared
// location usually has a handful of readers.
const rvMin = 4

// newReadVC returns a read vector clock of n free entries. One of rvMin
// entries, the common size, is one allocation with its entries, so that
// the same-epoch test of a read-shared cell (sharedHolds) loads the clock
// and its first entries from one object, not from two.
func newReadVC(n int) *readVC {
	m := ownheap.Begin()
	defer m.End()
	if n == rvMin {
		x := new(struct {
			v readVC
			e [rvMin]rvEntry
		})
		x.v.ents = x.e[:]
		return &x.v
	}
	return &readVC{ents: make([]rvEntry, n)}
}

// frozen marks the entries of a read vector clock whose reads a locked
// update has moved elsewhere or checked and dropped (see takeEntry): it is
// no thread's epoch, so sharedRead's compare-and-swap fails on it.
const frozen = ^uint64(0)

// takeEntry returns the epoch of entry i of v (0 if none) and freezes it.
// Every locked update that replaces or drops a read vector clock takes the
// entries it copies or checks, so that a read sharedRead records
// concurrently is either among them or not recorded at all (its
// compare-and-swap fails).
func (v *readVC) takeEntry(i int) Epoch {
	if x := v.ents[i].e.Swap(frozen); x != frozen {
		return Epoch(x)
	}
	return 0
}

// unset reports whether no entry of v holds a reader's epoch: each is
// free or taken.
func (v *readVC) unset() bool {
	for i := range v.ents {
		if x := v.ents[i].e.Load(); x != 0 && x != frozen {
			return false
		}
	}
	return true
}

// takeAll takes every entry of v.
func (v *readVC) takeAll() {
	for i := range v.ents {
		v.takeEntry(i)
	}
}

// reshared returns v, a read vector clock a write dropped from its cell
// (every entry taken), cleared for the cell's next read-share, or nil if
// there is none. A cell read by several goroutines between writes (a
// particle's position, read by every worker in each step) made a read
// vector clock for every step, garbage at the next write: most of what
// the shadow allocated on moldyn. The cell keeps it instead, and only
// for itself, so that a lock-free reader that loaded it before the write
// finds nothing of another location's in it: its entries are taken, then
// zero, then the new readers' (the reshare's, and the reader whose read
// made the exclusive read epoch, none of them a reader still inside
// sharedRead or sameShared on the old state, which sees a taken or
// foreign entry and takes the locked path). The stripe lock is held.
func (v *readVC) reshared() *readVC {
	if v == nil || !v.unset() {
		return nil // none, or not a dropped clock (never expected)
	}
	for i := range v.ents {
		v.ents[i].e.Store(0)
		v.ents[i].site.Store(0)
	}
	return v
}

// taken returns a copy of v whose entries it takes (nil for nil, or if
// none was set).
func (v *readVC) taken() *readVC {
	if v == nil {
		return nil
	}
	if v.unset() {
		v.takeAll()
		return nil
	}
	nv := newReadVC(len(v.ents))
	for i := range v.ents {
		// Placed anew (free): a frozen entry is not copied, and an entry
		// after it may now go in its place; a clock as long as v has a
		// place for each.
		if x := v.takeEntry(i); x != 0 {
			k := nv.free(x.TID())
			nv.ents[k].e.Store(uint64(x))
			nv.ents[k].site.Store(v.ents[i].site.Load())
		}
	}
	return nv
}

// Entries are placed by thread id: thread t's entry is at the first index
// from home(t) on, wrapping around at the end, that was free when it was
// set, so find and has look from there and stop at a free entry, which no
// entry of t follows, or after every entry. A location read by thousands
// of goroutines (the tables of a suite of 4,000 t.Parallel subtests) has
// a read vector clock of thousands of entries, and a scan of all of them
// at each of its readers' same-epoch reads took 15% of that suite's time;
// the thread ids in use are dense (the detector reuses the lowest first),
// so the entry is usually at its home, in a small clock as in a large
// one: the same-epoch test of a read-shared cell, the commonest check of
// a table several goroutines read (a compiled regexp's program), is then
// one load, not a scan from the first entry. The wrap-around keeps a
// clock from growing while it has a free entry, whatever the readers'
// homes. An entry only ever changes from free to set, from set to set
// (its own thread's next epoch) or to frozen, which stays in place:
// entries are freed only by reshared, which frees them all, every one
// frozen before. The lengths are powers of two.

// home returns the index from which thread t's entry is looked for in a
// read vector clock of n entries.
func home(t uint32, n int) int {
	return int(t) & (n - 1)
}

// find returns the index of thread t's entry in v, or -1. (A free entry
// has thread id 0, which no thread has, and a frozen one all ones, which
// is no thread id either: see MaxTID.)
func (v *readVC) find(t uint32) int {
	if v == nil {
		return -1
	}
	n := len(v.ents)
	for k, i := 0, home(t, n); k < n; k, i = k+1, (i+1)&(n-1) {
		x := v.ents[i].e.Load()
		if x == 0 {
			break
		}
		if Epoch(x).TID() == t {
			return i
		}
	}
	return -1
}

// has reports whether v records a read in epoch e: whether e's thread's
// entry, the one place it can be, holds e.
func (v *readVC) has(e Epoch) bool {
	if v == nil {
		return false
	}
	held, ok := v.atHome(e)
	if !ok {
		held = v.hasMoved(e)
	}
	return held
}

// atHome is has in its common case, one load, which inlines: ok reports
// whether the entry at the home of e's thread decides it (it is free, so
// the thread has no entry, or it is the thread's), and held whether it
// holds e.
func (v *readVC) atHome(e Epoch) (held, ok bool) {
	ents := v.ents
	x := ents[home(e.TID(), len(ents))].e.Load()
	return x == uint64(e), x == 0 || Epoch(x).TID() == e.TID()
}

// hasMoved is has for an entry of e's thread placed past its home, or
// none. (An entry of the thread that holds an earlier epoch ends the
// search: in a clock of thousands of dense thread ids, the entries from
// its home to the next free one are the others'.)
func (v *readVC) hasMoved(e Epoch) bool {
	i := v.find(e.TID())
	return i >= 0 && v.ents[i].e.Load() == uint64(e)
}

// sharedHolds reports whether c's read vector clock has t's epoch,
// counted as [READ SHARED SAME EPOCH]: the same-epoch test of a
// read-shared cell (sameShared). It is not inlined, so that the test of
// the cell's state before it is all the hottest loops inline; has is
// spelled out in it, so that its common case makes no further call.
//
//go:noinline
func (c *cell) sharedHolds(t *Thread) bool {
	v := c.rvc.Load()
	if v == nil {
		return false
	}
	held, ok := v.atHome(t.Epoch)
	if !ok {
		held = v.hasMoved(t.Epoch)
	}
	if !held {
		return false
	}
	t.Stats.Rules[ReadSharedSameEpoch]++
	return true
}

// get returns the clock of thread t's entry in v, 0 if it has none.
func (v *readVC) get(t uint32) uint64 {
	if i := v.find(t); i >= 0 {
		return Epoch(v.ents[i].e.Load()).Clock()
	}
	return 0
}

// free returns the index where an entry of thread t goes in v, the first
// free one from its home on, wrapping around, or -1 if there is none.
func (v *readVC) free(t uint32) int {
	n := len(v.ents)
	for k, i := 0, home(t, n); k < n; k, i = k+1, (i+1)&(n-1) {
		if v.ents[i].e.Load() == 0 {
			return i
		}
	}
	return -1
}

// with returns v with thread t's entry set to clock c, in its entry or a
// free one, or, if it has neither, in a copy of v (see grown) that leaves
// out the reads that happen before clock before (nil: none is left out).
func (v *readVC) with(t uint32, c uint64, site uint32, before []uint64) *readVC {
	i := v.find(t)
	if i < 0 && v != nil {
		i = v.free(t)
	}
	if i < 0 {
		if v == nil {
			v = newReadVC(rvMin)
		} else {
			v = v.grown(before)
			if moveHook != nil {
				moveHook()
			}
		}
		i = v.free(t)
	}
	v.ents[i].e.Store(uint64(MakeEpoch(t, c)))
	setSite(&v.ents[i].site, site)
	return v
}

// grown returns a copy of v, a full clock, with v's entries, which it
// takes (takeEntry), but those of reads that happen before clock before:
// room for one more, as large as v if that leaves it at most half full,
// else twice as large (placement wraps around: every entry has a place
// while one is free). before is the clock of the reader the room is for,
// whose read is after the reads it leaves out: a write that races with one
// of those races with this read too, and check reports it (readsBefore gives
// no entry for an atomic reader, whose read an atomic write does not
// race with). Doubling alone made a clock of every reader that a location
// ever had, though each read after the one before: the precomputed tables
// of crypto/ecdsa's curves, read by each of the hundreds of t.Parallel
// subtests of go-jose's TestRoundtripsJWECorrupted, one after another,
// held 720 MB of read vector clocks.
func (v *readVC) grown(before []uint64) *readVC {
	n := len(v.ents)
	if before == nil || 2*(v.after(before)+1) > n {
		n *= 2
	}
	nv := newReadVC(n)
	for i := range v.ents {
		x := v.takeEntry(i)
		if x == 0 || before != nil && HB(x, before) {
			continue
		}
		// Placed anew by with: an entry counted as a read before
		// may since have become a later read of its thread's
		// (sharedRead), and with grows nv if it must.
		nv = nv.with(x.TID(), x.Clock(), v.ents[i].site.Load(), nil)
	}
	return nv
}

// after returns the number of entries of v that hold a read not before
// clock vc.
func (v *readVC) after(vc []uint64) int {
	n := 0
	for i := range v.ents {
		if x := v.ents[i].e.Load(); x != 0 && x != frozen && !HB(Epoch(x), vc) {
			n++
		}
	}
	return n
}

// copied returns a new read vector clock with v's set entries (nil for
// nil, or if none is set).
func (v *readVC) copied() *readVC {
	if v == nil {
		return nil
	}
	var nv *readVC
	for i := range v.ents {
		if x := v.ents[i].e.Load(); x != 0 && x != frozen {
			nv = nv.with(Epoch(x).TID(), Epoch(x).Clock(), v.ents[i].site.Load(), nil)
		}
	}
	return nv
}
