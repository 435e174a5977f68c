// Copyright 2026 The bigfoot Authors. All rights reserved.

package shadow

// Fresh entries: the first access of fresh memory without a granule.
//
// The state that one access leaves in memory the shadow has not seen is
// known in advance: one epoch (a write or a read), the byte range, the
// site, the owner (the epoch's thread) and the generation. A granule for
// it cost a cold 64-byte block per first access (written by first, read
// again by the sweep that drops it) and made the off-heap pacer start
// collections early (offheap_pace.go); on BenchmarkFreshObject (allocate
// 64 bytes, write the first word) those misses and the extra cycles were
// most of the cost. So the first access of an untracked granule (no weak
// pointer, not a global's: see track) of a page without a slot array
// records that state in a fresh entry of its page, two words in an
// off-heap array beside the slots, and the slot stays nil. A page of
// fresh objects then needs no slot array and no granules at all.
//
// A page that has a slot array already (granules, or runs split into
// them) records first accesses in granules, as before: there the first
// accesses are sparse (the elements of an LU factorization's pivot
// column, one per row of a large matrix, one per page), and an 8 KiB
// array for one 16-byte entry per page cost lufact 13 MB of peak RSS
// (92 against 78 MB).
//
// The rules:
//
//   - A fresh entry is written only under the page lock, only while its
//     slot is nil, and counts in pg.live (nfresh of it), like a slot.
//   - It is valid only while the page's fgen is the current generation
//     (lagGen):
//     like an untracked granule's (validate), its state is dropped at
//     the first access after a GC cycle. The first entry recorded in a
//     new generation clears the page's stale entries (resetStale); the
//     sweep clears them too, and settled ones (frontier.go).
//   - A second access that needs more than a same-epoch check (another
//     epoch, another goroutine, another byte range) takes the locked path,
//     whose add moves the entry into the new granule before it publishes
//     it (absorb): from then on the slot holds the state, exactly the
//     granule first would have made, and update applies the access to it.
//   - The only lock-free reader is the same-epoch check (sameFresh). The
//     epoch word is written after the meta word, and cleared before it,
//     so a reader that loads the epoch twice around the meta and finds
//     its own epoch both times read the meta of that entry: only the
//     reading goroutine writes its own epochs.
//   - A run is installed only over slots that are nil and have no fresh
//     entry (newRun, installRun).
//   - Entry words hold no pointers: the arrays live off the heap. A page
//     takes one from a pool at its first entry and returns it at the
//     first sweep that finds it without entries (dropFresh), reclaimed
//     pages included; the lock-free reader checks the page's fver, which
//     dropFresh bumps, after its loads.

import (
	"sync/atomic"
	"unsafe"
)

// A freshEntry is the state of one access of a granule: e is its epoch (0:
// no entry), m its meta word (see freshMeta).
type freshEntry struct {
	e, m atomic.Uint64
}

// A freshArray holds a page's fresh entries, one per granule.
type freshArray [granulesPerPage]freshEntry

var freshPool = blockPool{
	size:  unsafe.Sizeof(freshArray{}) + 64,
	chunk: 2 * slotsChunk,
}

// freshMeta packs the site, the byte range and the kind of an access.
func freshMeta(lo, hi uint8, write bool, site uint32) uint64 {
	m := uint64(site) | uint64(lo)<<32 | uint64(hi)<<40
	if write {
		m |= 1 << 48
	}
	return m
}

// freshShape is the part of a meta word that a same-epoch check compares:
// all but the site.
const freshShape = 0xffffffff << 32

// unpackMeta returns what freshMeta packed.
func unpackMeta(m uint64) (lo, hi uint8, write bool, site uint32) {
	return uint8(m >> 32), uint8(m >> 40), m&(1<<48) != 0, uint32(m)
}

// freshW returns the page's fresh array, taking a cleared one from the
// pool if it has none; pg.mu is held.
func (pg *page) freshW() *freshArray {
	if fa := pg.fresh.Load(); fa != nil {
		return fa
	}
	var b [1]uintptr
	freshPool.get(b[:])
	clear((*[2 * granulesPerPage]uint64)(ptrOf(b[0]))[:])
	fa := (*freshArray)(ptrOf(b[0]))
	pg.fresh.Store(fa)
	return fa
}

// dropFresh returns the page's fresh array, which holds no counted entry,
// to the pool; pg.mu is held. The sweep calls it, so that a page keeps
// its array only while it has entries (a page whose entries all moved to
// granules, as on an array that several goroutines share, would keep 8
// KiB for nothing), and a reclaimed page's array is reused at once.
// Lock-free readers of the array (sameFresh) check fver after their
// loads: what they read after the array left the page is not trusted.
func (pg *page) dropFresh() {
	fa := pg.fresh.Load()
	if fa == nil {
		return
	}
	pg.fresh.Store(nil)
	pg.fver.Add(1)
	if recycleGranules { // not under Go's race detector: see initU32
		freshPool.put([]uintptr{uintptr(unsafe.Pointer(fa))})
	}
}

// resetStale clears the page's fresh entries if they were recorded in a
// generation before gen, and makes gen theirs; pg.mu is held. It reports
// whether gen is the entries' generation now: a goroutine that read an
// older generation than the page's records no entry (its locked path
// makes a granule stamped with that generation, as before).
func (pg *page) resetStale(gen uint32) bool {
	fg := pg.fgen.Load()
	if fg == gen {
		return true
	}
	if int32(gen-fg) < 0 && pg.fresh.Load() != nil {
		return false
	}
	pg.clearFresh(func(e, m uint64) bool { return true })
	pg.fgen.Store(gen)
	return true
}

// clearFresh clears the fresh entries for which drop is true and updates
// the counts; pg.mu is held.
func (pg *page) clearFresh(drop func(e, m uint64) bool) {
	fa := pg.fresh.Load()
	if fa == nil || pg.nfresh == 0 {
		return
	}
	n := 0
	for i := range fa {
		en := &fa[i]
		if e := en.e.Load(); e != 0 && drop(e, en.m.Load()) {
			en.e.Store(0) // before the meta: see sameFresh
			en.m.Store(0)
			n++
		}
	}
	pg.nfresh -= n
	pg.live -= n
}

// hasFresh reports whether slot gi has a fresh entry, current or not.
func (pg *page) hasFresh(gi uintptr) bool {
	fa := pg.fresh.Load()
	return fa != nil && fa[gi].e.Load() != 0
}

// maybeFresh reports whether slot gi may have a fresh entry of the
// current generation, without the page lock: a hint, for the choice
// between first (which fails if there is one, and clears stale ones) and
// the locked path (which absorbs it), both right either way. The array is
// off the heap and never unmapped, so the loads are safe even if it left
// the page meanwhile.
func (pg *page) maybeFresh(gi uintptr) bool {
	fa := pg.fresh.Load()
	return fa != nil && fa[gi].e.Load() != 0 && pg.fgen.Load() == uint32(lagGen.Load())
}

// recordFresh records t's access as the fresh entry of slot gi, and
// reports whether it did: the page is live, the slot nil and without an
// entry of generation gen. pg.mu is held.
func (pg *page) recordFresh(t *Thread, gi uintptr, lo, hi uint8, write bool, site uint32, gen uint32) bool {
	if pg.dead.Load() || pg.slot(gi) != nil {
		return false
	}
	if !pg.resetStale(gen) {
		return false
	}
	fa := pg.freshW()
	en := &fa[gi]
	if en.e.Load() != 0 {
		return false // a second access: the locked path absorbs the entry
	}
	en.m.Store(freshMeta(lo, hi, write, site))
	en.e.Store(uint64(t.Epoch))
	pg.nfresh++
	pg.live++
	return true
}

// absorb moves the fresh entry of slot gi, if it has one of the current
// generation, into gr, a new off-heap granule that add is about to
// publish there, as first would have made it. pg.mu is held.
func (pg *page) absorb(gi uintptr, gr *granule) {
	fa := pg.fresh.Load()
	if fa == nil {
		return
	}
	en := &fa[gi]
	e := en.e.Load()
	if e == 0 {
		return
	}
	if gen := pg.fgen.Load(); gen == uint32(lagGen.Load()) {
		lo, hi, write, site := unpackMeta(en.m.Load())
		gr.lo, gr.hi = lo, hi // not yet published
		initU32(&gr.owner, Epoch(e).TID()+1)
		initU32(&gr.gen, gen)
		if write {
			initU32(&gr.whole.wsite, site)
			initU64(&gr.whole.w, e)
		} else {
			initU32(&gr.whole.rsite, site)
			initU64(&gr.whole.r, e)
		}
	}
	// Stale or not, the entry is gone; the granule takes its place in live.
	en.e.Store(0)
	en.m.Store(0)
	pg.nfresh--
	pg.live--
}

// sameFresh is the same-epoch check of a nil slot gi: whether its fresh
// entry records t's access of the bytes [lo, hi) of this kind in t's
// current epoch. Lock-free: see the rules above.
func (pg *page) sameFresh(t *Thread, gi uintptr, lo, hi uint8, write bool) bool {
	v := pg.fver.Load()
	fa := pg.fresh.Load()
	if fa == nil {
		return false
	}
	en := &fa[gi]
	e := uint64(t.Epoch)
	if en.e.Load() != e {
		return false
	}
	m := en.m.Load()
	if en.e.Load() != e || m&freshShape != freshMeta(lo, hi, write, 0)&freshShape ||
		pg.fgen.Load() != uint32(lagGen.Load()) || pg.fver.Load() != v {
		// Another access; a stale entry (a live page's are cleared by
		// the next entry recorded, resetStale, or the sweep); or an
		// array that left the page meanwhile (dropFresh), whose
		// contents may be another page's by now.
		return false
	}
	t.Stats.Checks++
	if write {
		t.Stats.Rules[WriteSameEpoch]++
	} else {
		t.Stats.Rules[ReadSameEpoch]++
	}
	return true
}

// sweepFresh drops the page's fresh entries recorded before generation
// gen and those settled under the frontier f; pg.mu is held, and pg.live
// counts only the slots the sweep kept. Stale entries of a page that
// holds nothing else are not cleared, only uncounted: the page is about
// to be reclaimed, no one records in a dead page, its stale entries are
// never valid again (lagGen only grows), and the array, which the sweep
// then returns to the pool (dropFresh), is cleared when the next page
// takes it. That spares the sweep a walk over 8 KiB of entries per page
// of dead fresh objects.
func (pg *page) sweepFresh(gen uint32, f []uint64) {
	if pg.nfresh == 0 {
		return
	}
	if int32(pg.fgen.Load()-gen) < 0 {
		if pg.live == pg.nfresh {
			pg.live, pg.nfresh = 0, 0
			return
		}
		pg.clearFresh(func(e, m uint64) bool { return true })
		return
	}
	if len(f) != 0 {
		pg.clearFresh(func(e, m uint64) bool { return HB(Epoch(e), f) })
	}
}
