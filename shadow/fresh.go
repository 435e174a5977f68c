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
// most of the cost. So the first access of a granule whose state needs no
// ident (proven by its word's allocation version, or without a proof
// outside the heap; not a global's: see track) of a page without a slot
// array records that state in a fresh entry of its page, and the slot stays
// nil. A page of fresh objects then needs no slot array and no granules
// at all.
//
// The entries of a page are few distinct states: the first accesses of
// fresh objects are usually a goroutine's, in one epoch or a few, from a
// few sites. So a page's fresh array holds descriptors, each the state of
// one access (an epoch and a meta word: site, byte range, kind), and one
// byte per granule, the index of its entry's descriptor (0: none). A
// first access whose state a descriptor of the page records already
// (the same epoch, site, bytes and kind: the next fresh object's) only
// sets its granule's byte: the array is 1 KiB per page, and the bytes of
// 64 granules share a cache line, where 16 bytes per granule (epoch and
// meta beside each slot) made every fresh object's first access miss the
// cache once, or a bulk clear of 8 KiB per page pay for it in advance
// (the largest cost of BenchmarkFreshObject after the allocation).
//
// A page that has a slot array already (granules, or runs split into
// them) records first accesses in granules, as before: there the first
// accesses are usually sparse (the elements of an LU factorization's
// pivot column, one per row of a large matrix, one per page), and an
// array per page for one entry cost lufact peak RSS. Until the page is
// dense in them (dense): once its first accesses made as many granules
// as a fresh array's bytes would hold, the next ones are fresh entries.
// Scattered reads of a large buffer whose settled state the sweep
// dropped (roaring's bitmap containers, read from a file) made a 64-byte
// granule per word they read, on pages that had a slot array since a
// read cut their run. A page whose descriptors are all taken records
// further first accesses in granules too (first).
//
// The rules:
//
//   - Entries are written only under the page lock, only while their
//     slot is nil, and count in pg.live (nfresh of it), like a slot. A
//     descriptor, once its index is in a granule's byte, does not change
//     until the page's entries are reset.
//   - They are current only while the page's fgen is the current
//     generation (lagGen). When a new generation begins for the page
//     (its first entry of the generation, or the sweep: turnFresh), an
//     entry proven by its word's allocation version (the heap, where the
//     runtime keeps versions: versioned in its descriptor, the version in
//     ver) whose version still holds becomes *old* (its bit in old, the
//     generation it may be as old as in ogen); the others, like an
//     unproven granule's, are dropped. An old entry is no longer trusted
//     by the same-epoch check: its object may have died and not been
//     swept yet. The locked path moves it into a granule stamped with
//     ogen (absorb), which validate keeps only if the version still holds
//     when the new object's access proves which object is there, as for
//     any granule. If no entry is kept, the index bytes are cleared and
//     the descriptors reused, and the sweep returns the array to the
//     pool. The sweep also clears settled entries (frontier.go).
//   - A second access that needs more than a same-epoch check (another
//     epoch, another goroutine, another byte range) takes the locked path,
//     whose add moves the entry into the new granule before it publishes
//     it (absorb): from then on the slot holds the state, exactly the
//     granule first would have made, and update applies the access to it.
//   - The only lock-free reader is the same-epoch check (sameFresh). A
//     descriptor is written epoch word cleared first, then the meta word,
//     then the epoch, and its index is stored after it; a reader loads the
//     index, then the epoch, the meta and the epoch again, and trusts the
//     meta only if it found its own epoch both times: only the reading
//     goroutine writes its own epochs, and index bytes are cleared before
//     a reset makes their descriptors reusable.
//   - A run is installed only over slots that are nil and have no fresh
//     entry (newRun, installRun).
//   - Entry words hold no pointers: the arrays live off the heap. A page
//     takes one from a pool at its first entry and returns it at the
//     first sweep that finds it without entries (dropFresh), reclaimed
//     pages included; the lock-free reader checks the page's fver, which
//     dropFresh bumps, after its loads.

import (
	"runtime"
	"sync/atomic"
	"unsafe"
)

// A freshEntry is a descriptor: the state of one access, e its epoch (0:
// none), m its meta word (see freshMeta).
type freshEntry struct {
	e, m atomic.Uint64
}

// freshDescs is the number of descriptors of a page. A page of fresh
// objects that one goroutine initializes in one epoch uses one per site;
// a page of records that a pipeline stage initializes one epoch each
// (a channel send between them) runs out after a few records, and its
// further first accesses make granules, as before fresh entries.
const freshDescs = 32

// A freshArray holds a page's fresh entries: one index byte per granule,
// four to a word (idx), and the descriptors they refer to (desc: byte k
// is desc[k-1]).
type freshArray struct {
	idx  [granulesPerPage / 4]atomic.Uint32
	desc [freshDescs]freshEntry
	old  [granulesPerPage / 64]atomic.Uint64 // entries of generation ogen or earlier
	ver  [granulesPerPage]uint8              // a versioned entry's version; guarded by the page lock
	ogen uint32                              // guarded by the page lock
}

// freshDense is the number of granules that first accesses make on a
// page with a slot array before further ones there are fresh entries:
// as many as take a fresh array's bytes.
const freshDense = uint32(unsafe.Sizeof(freshArray{}) / unsafe.Sizeof(granule{}))

// dense reports whether first accesses made freshDense granules on pg.
func (pg *page) dense() bool { return pg.firsts.Load() >= freshDense }

// countFirst counts a granule first made for a first access of pg;
// pg.mu is held.
func (pg *page) countFirst() {
	if n := pg.firsts.Load(); n < freshDense {
		pg.firsts.Store(n + 1)
	}
}

// isOld reports whether the entry of slot gi is old (turnFresh).
func (fa *freshArray) isOld(gi uintptr) bool {
	return fa.old[gi%granulesPerPage/64].Load()&(1<<(gi%64)) != 0
}

// drop clears the entry of slot gi, and its old bit; the page lock is
// held.
func (fa *freshArray) drop(gi uintptr) {
	fa.setAt(gi, 0)
	if w := &fa.old[gi%granulesPerPage/64]; w.Load()&(1<<(gi%64)) != 0 {
		w.Store(w.Load() &^ (1 << (gi % 64)))
	}
}

// A freshRef holds a page's fresh array as an address. The array is off
// the heap, so the collector has nothing to find in the field: as an
// atomic.Pointer it was the page's last pointer word, which made the
// collector scan 104 of the page's 128 bytes every cycle where the keep
// slice ends at 80, and its stores took the write barrier while marking.
type freshRef struct{ a atomic.Uintptr }

// Load returns the array, or nil.
func (r *freshRef) Load() *freshArray { return (*freshArray)(ptrOf(r.a.Load())) }

// Store sets the array (nil: none).
func (r *freshRef) Store(fa *freshArray) { r.a.Store(uintptr(unsafe.Pointer(fa))) }

var freshPool = blockPool{
	size:  unsafe.Sizeof(freshArray{}),
	chunk: slotsChunk,
	// The index bytes, which freshFor clears: the array is cold (the
	// sweep returned it a cycle ago), and the clear's misses, waited for
	// by the atomic store after it, were most of a new page's first
	// entry. The next page's freshFor is usually a few microseconds away.
	warm: unsafe.Sizeof(freshArray{}.idx),
}

// at returns the index byte of granule gi.
func (fa *freshArray) at(gi uintptr) uint8 {
	return uint8(fa.idx[gi%granulesPerPage/4].Load() >> (gi % 4 * 8))
}

// setAt sets the index byte of granule gi to k; the page lock is held
// (the only writers of index words hold it). The store is a plain one
// (initU32; an atomic store is a locked instruction, and the index line
// of a fresh object is often not in the cache): the lock orders it for
// the other holders, and the lock-free readers trust an index only if its
// descriptor holds their own epoch, which only they write (sameFresh).
func (fa *freshArray) setAt(gi uintptr, k uint8) {
	w := &fa.idx[gi/4]
	sh := gi % 4 * 8
	v := w.Load()&^(0xff<<sh) | uint32(k)<<sh
	if recycleGranules {
		initU32(w, v)
	} else {
		w.Store(v) // under Go's race detector (see initU32)
	}
}

// clearIdx clears every index byte of fa, and the old bits; the page
// lock is held, or the array is not a page's yet. The stores are plain ones, a bulk clear (as
// setAt's): an atomic store per nonzero word (a locked instruction each,
// every other word on a page of 64-byte objects) was most of the reset of
// a page's stale entries, the largest per-page cost of
// BenchmarkFreshObject. Lock-free readers (freshCheck) trust an index
// byte only if its descriptor holds their own epoch, and a descriptor is
// rewritten only after the clear, with atomic stores, which order the
// clear's stores before their own.
func (fa *freshArray) clearIdx() {
	for i := range fa.old {
		if fa.old[i].Load() != 0 {
			fa.old[i].Store(0)
		}
	}
	if recycleGranules {
		clear((*[granulesPerPage / 8]uint64)(unsafe.Pointer(&fa.idx))[:])
		return
	}
	for i := range fa.idx { // under Go's race detector (see initU32)
		fa.idx[i].Store(0)
	}
}

// storesInOrder reports whether the hardware makes a goroutine's plain
// stores visible to the others in program order (total store order), so
// that lock-free readers that check the last of them may trust the
// others (findDesc).
const storesInOrder = runtime.GOARCH == "amd64" || runtime.GOARCH == "386"

// freshMeta packs the site, the byte range and the kind of an access.
func freshMeta(lo, hi uint8, write bool, site uint32) uint64 {
	m := uint64(site) | uint64(lo)<<32 | uint64(hi)<<40
	if write {
		m |= 1 << 48
	}
	return m
}

// freshVersioned marks the meta word of entries whose state is proven by
// their word's allocation version (fa.ver).
const freshVersioned = 1 << 49

// proofMeta is the meta word of an access's entry with proof p.
func proofMeta(lo, hi uint8, write bool, site uint32, p proof) uint64 {
	m := freshMeta(lo, hi, write, site)
	if p.vok {
		m |= freshVersioned
	}
	return m
}

// freshShape is the part of a meta word that a same-epoch check compares:
// the byte range and the kind. Not the site, nor freshVersioned: an
// entry of the current generation is its object's, proven or not (see
// the rules above), and with the mark in the shape every second access
// of a versioned entry, the heap's, failed the check and took the locked
// path, which moved the entry into a granule.
const freshShape = 1<<49 - 1<<32

// unpackMeta returns what freshMeta packed.
func unpackMeta(m uint64) (lo, hi uint8, write bool, site uint32) {
	return uint8(m >> 32), uint8(m >> 40), m&(1<<48) != 0, uint32(m)
}

// freshFor returns the page's fresh array, ready for an entry of
// generation gen, taking one from the pool if the page has none; pg.mu is
// held. If gen is a new generation for the page, its entries turn
// (turnFresh, with vs, the space's versions, and key, the page's
// number), and gen becomes fgen. It returns nil if gen is older than
// fgen: a goroutine that read a lagging generation records no entry (its
// locked path makes a granule stamped with that generation, as before).
func (pg *page) freshFor(gen uint32, vs versionSource, key uintptr) *freshArray {
	fa := pg.fresh.Load()
	if fa != nil {
		fg := pg.fgen.Load()
		if fg == gen {
			return fa
		}
		if int32(gen-fg) < 0 {
			return nil
		}
		var vp *[512]uint8
		var pv uint8
		if vs != nil && pg.nfresh != 0 {
			vp, pv = vs(key << pageShift)
		}
		pg.turnFresh(fa, gen, vp, pv, true)
		return fa
	}
	var b [1]uintptr
	freshPool.get(b[:])
	fa = (*freshArray)(ptrOf(b[0]))
	// No one reads the array before the page has it; its last page's
	// readers check fver. The descriptors are rewritten before use.
	fa.clearIdx()
	pg.fresh.Store(fa)
	pg.ndesc = 0
	pg.fgen.Store(gen)
	return fa
}

// turnFresh begins generation gen, later than fgen, for the page's
// entries: those proven by a version that still holds (vp and pv, the
// page's versions, read after gen; vp nil: none holds), fewer than
// versionSpan generations old, become old entries, of generation ogen at
// the latest; the others are dropped. If none is kept, the index bytes
// are cleared and the descriptors are free again. pg.mu is held.
//
// The sweep only prunes (turn unset): it drops what it would drop, and
// leaves the generation to the page's next entry. It runs right after a
// cycle, while the runtime is still sweeping the objects that died in
// it, whose versions have not moved on yet: made old, their entries
// would stay until the next object at each word took the locked path
// (dropDead); the page's next entry is usually a new object's, after the
// runtime swept the span, when their versions have moved on.
func (pg *page) turnFresh(fa *freshArray, gen uint32, vp *[512]uint8, pv uint8, turn bool) {
	og := pg.fgen.Load()
	for i := range fa.old {
		if fa.old[i].Load() != 0 {
			og = fa.ogen // older: kept at an earlier turn
			break
		}
	}
	kept := 0
	if vp != nil && pg.nfresh != 0 && int32(gen-og) < versionSpan {
		for i := range fa.idx {
			w := fa.idx[i].Load()
			if w == 0 {
				continue
			}
			nw := w
			for sh := 0; sh < 32; sh += 8 {
				k := uint8(w >> sh)
				if k == 0 {
					continue
				}
				gi := uintptr(i*4 + sh/8)
				o := &fa.old[gi/64]
				if fa.desc[k-1].m.Load()&freshVersioned != 0 && vp[gi]+pv == fa.ver[gi] {
					kept++
					if turn {
						o.Store(o.Load() | 1<<(gi%64))
					}
				} else {
					nw &^= 0xff << sh
					if fa.isOld(gi) {
						o.Store(o.Load() &^ (1 << (gi % 64)))
					}
				}
			}
			if nw != w {
				fa.idx[i].Store(nw)
			}
		}
	}
	pg.live -= pg.nfresh - kept
	pg.nfresh = kept
	if kept == 0 {
		if pg.ndesc != 0 {
			// Before the descriptors are reused (see sameFresh).
			fa.clearIdx()
		}
		pg.ndesc = 0
	} else if turn {
		// Kept entries keep their descriptors and index bytes; dropped
		// ones' descriptors are not reused while any entry is kept.
		fa.ogen = og
	} else {
		return // pruned: the generation is the page's next entry's to turn
	}
	pg.fgen.Store(gen)
}

// dropFresh returns the page's fresh array, which holds no counted entry,
// to the pool; pg.mu is held. The sweep calls it, so that a page keeps
// its array only while it has entries (a page whose entries all moved to
// granules, as on an array that several goroutines share, would keep it
// for nothing), and a reclaimed page's array is reused at once.
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

// clearFresh clears the fresh entries whose descriptor drop is true for
// and updates the counts; pg.mu is held.
func (pg *page) clearFresh(drop func(e, m uint64) bool) {
	fa := pg.fresh.Load()
	if fa == nil || pg.nfresh == 0 {
		return
	}
	var gone [256]bool // by index byte; 0 (no entry) stays false
	any := false
	for k := range pg.ndesc {
		d := &fa.desc[k]
		gone[k+1] = drop(d.e.Load(), d.m.Load())
		any = any || gone[k+1]
	}
	if !any {
		return
	}
	n := 0
	for i := range fa.idx {
		w := fa.idx[i].Load()
		if w == 0 {
			continue
		}
		nw := w
		for sh := 0; sh < 32; sh += 8 {
			if gone[uint8(w>>sh)] {
				nw &^= 0xff << sh
				n++
				if gi := uintptr(i*4 + sh/8); fa.isOld(gi) {
					o := &fa.old[gi/64]
					o.Store(o.Load() &^ (1 << (gi % 64)))
				}
			}
		}
		if nw != w {
			fa.idx[i].Store(nw)
		}
	}
	pg.nfresh -= n
	pg.live -= n
}

// hasFresh reports whether slot gi has a fresh entry, current or not.
func (pg *page) hasFresh(gi uintptr) bool {
	fa := pg.fresh.Load()
	return fa != nil && fa.at(gi) != 0
}

// maybeFresh reports whether slot gi may have a fresh entry of the
// current generation, without the page lock: a hint, for the choice
// between first (which fails if there is one, and resets stale ones) and
// the locked path (which absorbs it), both right either way. The array is
// off the heap and never unmapped, so the loads are safe even if it left
// the page meanwhile.
func (pg *page) maybeFresh(gi uintptr) bool {
	fa := pg.fresh.Load()
	return fa != nil && fa.at(gi) != 0 && pg.fgen.Load() == uint32(lagGen.Load())
}

// A freshResult is what recordFresh did.
type freshResult int

const (
	freshRecorded freshResult = iota // the access is the slot's entry
	freshDeclined                    // the slot is not empty, or gen is old: look again
	freshFull                        // no descriptor left: make a granule
)

// recordFresh records t's access as the fresh entry of slot gi, and
// counts it in t's statistics, if the page is live, the slot nil and
// without an entry of generation gen, and a descriptor of the page
// records the access or one is free. It takes pg.mu.
func (pg *page) recordFresh(t *Thread, gi uintptr, lo, hi uint8, write bool, site uint32, gen uint32, p proof, vs versionSource, key uintptr) freshResult {
	pg.mu.Lock()
	res := pg.recordLocked(t, gi, lo, hi, write, site, gen, p, vs, key)
	pg.mu.Unlock()
	if res == freshRecorded {
		t.Stats.count(write, WriteExclusive, ReadExclusive)
	}
	return res
}

// recordLocked is recordFresh with pg.mu held.
func (pg *page) recordLocked(t *Thread, gi uintptr, lo, hi uint8, write bool, site uint32, gen uint32, p proof, vs versionSource, key uintptr) freshResult {
	if pg.dead.Load() || pg.slot(gi) != nil {
		return freshDeclined
	}
	fa := pg.fresh.Load()
	if fa == nil || pg.fgen.Load() != gen {
		if fa = pg.freshFor(gen, vs, key); fa == nil {
			return freshDeclined
		}
	}
	if fa.at(gi) != 0 {
		return freshDeclined // a second access: the locked path absorbs the entry
	}
	e, m := uint64(t.Epoch), proofMeta(lo, hi, write, site, p)
	k := pg.flast
	if k == 0 || k > pg.ndesc || fa.desc[k-1].e.Load() != e || fa.desc[k-1].m.Load() != m {
		if k = pg.findDesc(fa, e, m); k == 0 {
			return freshFull
		}
		pg.flast = k
	}
	fa.ver[gi%granulesPerPage] = p.ver
	fa.setAt(gi, k)
	pg.nfresh++
	pg.live++
	return freshRecorded
}

// freshAccess is Check's path for t's access of [p, p+size), within the
// granule of the nil slot gi of the page pg that t cached, p not on t's
// stack: the same-epoch check of the slot's fresh entry, or the slot's
// first access. What it does not record (or find recorded) goes to the
// general loop (check: the locked path absorbs another access's entry).
// It reports a race as Check does.
//
// The common case is one goroutine initializing fresh objects one after
// another, where the runtime keeps allocation versions (track would prove
// the state by its word's version): the record is then made here, under one acquisition of the page
// lock, with what it needs loaded once, where it took four calls
// (freshCheck, first, recordFresh, recordLocked) that loaded the same
// words again. On a page whose fresh array is of the current generation
// and whose last descriptor records the access, no call at all; the
// page's first entry of a cycle (no array, or a stale one) goes to
// recordLocked under the same lock (freshLocked). Everything else takes
// the calls, as before (freshOther).
//
// Each of its tests is a statement of its own that leaves for the other
// paths, and each other path is one call whose result is freshAccess's:
// ||-joined tests of inlined loads made the compiler materialize each
// result as a byte and test it again, and a call after which the
// arguments were still needed made it store them all on entry.
func (s *Space) freshAccess(t *Thread, pg *page, gi uintptr, p unsafe.Pointer, size uintptr, write bool, site uint32, out *Race) (found bool) {
	var (
		gen  uint32
		fa   *freshArray
		e, m uint64
		k    uint8
		d    *freshEntry
		v    uint8
		vok  bool
	)
	gi %= granulesPerPage // (no bounds checks below)
	gen = uint32(lagGen.Load())
	fa = pg.fresh.Load()
	if fa != nil && fa.at(gi) != 0 && pg.fgen.Load() == gen {
		goto other // an entry: its same-epoch check, or the locked path's absorb
	}
	if pg.own.Load() != nil && !pg.dense() {
		goto other
	}
	if s.noFresh {
		goto other
	}
	if s.versions == nil {
		goto other // idents prove heap state (track): granules
	}
	if pg.kind.Load() != kindHeap {
		goto other // not known to be the heap's: track classifies it
	}
	v, vok = s.versions.at(uintptr(p))
	if !vok {
		goto other
	}
	e, m = uint64(t.Epoch), freshMeta(uint8(uintptr(p)&7), uint8(uintptr(p)&7+size), write, site)|freshVersioned
	pg.mu.Lock()
	if fa == nil {
		goto locked // the page's first entry of the cycle: an array from the pool
	}
	// The slot is nil and has no entry (while arr is nil, slot is full),
	// and the last descriptor used records this access: recordLocked's
	// first case, with its checks made on the words loaded above.
	k = pg.flast
	if k == 0 {
		goto locked
	}
	if k > pg.ndesc {
		goto locked
	}
	if pg.dead.Load() {
		goto locked
	}
	if pg.fresh.Load() != fa {
		goto locked
	}
	if pg.fgen.Load() != gen {
		goto locked
	}
	if pg.arr.Load() != nil {
		goto locked
	}
	if pg.full.Load() != nil {
		goto locked
	}
	if fa.at(gi) != 0 {
		goto locked
	}
	d = &fa.desc[(k-1)%freshDescs]
	if d.e.Load() != e {
		goto locked
	}
	if d.m.Load() != m {
		goto locked
	}
	fa.ver[gi] = v
	fa.setAt(gi, k)
	pg.nfresh++
	pg.live++
	pg.mu.Unlock()
	t.Stats.count(write, WriteExclusive, ReadExclusive)
	return false

locked:
	return s.freshLocked(t, pg, gi, p, size, write, site, out, gen, proof{vok: true, ver: v})

other:
	return s.freshOther(t, pg, gi, p, size, write, site, out)
}

// freshLocked is freshAccess's record with pg.mu held, when the page's
// last descriptor does not record the access (a new descriptor, or a
// granule when the page's are taken), or the slot or page changed before
// the lock was taken. It unlocks pg.mu.
func (s *Space) freshLocked(t *Thread, pg *page, gi uintptr, p unsafe.Pointer, size uintptr, write bool, site uint32, out *Race, gen uint32, pf proof) (found bool) {
	lo, hi := uint8(uintptr(p)&7), uint8(uintptr(p)&7+size)
	res := pg.recordLocked(t, gi, lo, hi, write, site, gen, pf, s.versions, uintptr(p)>>pageShift)
	pg.mu.Unlock()
	switch res {
	case freshRecorded:
		t.Stats.count(write, WriteExclusive, ReadExclusive)
		return false
	case freshFull:
		// No descriptor left: a granule, with the same proof.
		if s.firstGranule(t, pg, gi, lo, hi, write, site, gen, pf) {
			return false
		}
	}
	return s.check(t, p, size, write, site, out)
}

// freshOther is freshAccess's path for everything but its common case:
// an entry of the current generation (perhaps the same epoch's), a page
// first would not give an entry on (a slot array, a global's page), or
// state that a version does not prove (track).
func (s *Space) freshOther(t *Thread, pg *page, gi uintptr, p unsafe.Pointer, size uintptr, write bool, site uint32, out *Race) (found bool) {
	a := uintptr(p) // p is not on t's stack: its address
	lo, hi := uint8(a&7), uint8(a&7+size)
	same, entry := pg.freshCheck(t, gi, lo, hi, write)
	if entry && s.dropDead(pg, gi, a) {
		entry = false
	}
	if same || !entry && s.first(t, pg, gi, a, lo, hi, write, site) {
		return false
	}
	return s.check(t, p, size, write, site, out)
}

// dropDead drops the old entry of slot gi (turnFresh), if it has one
// whose word's version has moved on since it was recorded, and reports
// whether it did: the entry is a dead object's, and the access at a, to
// the object there now (whose version it reads), is the slot's first.
// Otherwise the locked path would move the dead object's entry into a
// granule only for validate to drop it, and the page, given a slot
// array, would make a granule for every later first access: the objects
// that die in a cycle and are swept after the shadow's sweep left a page
// of fresh objects with old entries that the next objects there reuse.
func (s *Space) dropDead(pg *page, gi, a uintptr) bool {
	fa := pg.fresh.Load()
	if s.versions == nil || fa == nil || !fa.isOld(gi) {
		return false
	}
	v, ok := s.versions.at(a)
	pg.mu.Lock()
	defer pg.mu.Unlock()
	gi %= granulesPerPage
	if pg.fresh.Load() != fa || fa.at(gi) == 0 || !fa.isOld(gi) || ok && v == fa.ver[gi] {
		return false
	}
	fa.drop(gi)
	pg.nfresh--
	pg.live--
	return true
}

// findDesc returns 1 + the index of the descriptor of fa that records
// epoch e and meta word m, making one if there is none and one is free,
// or 0 if all are taken; pg.mu is held.
func (pg *page) findDesc(fa *freshArray, e, m uint64) uint8 {
	for i := range pg.ndesc {
		if d := &fa.desc[i]; d.e.Load() == e && d.m.Load() == m {
			return i + 1
		}
	}
	if pg.ndesc == freshDescs {
		return 0
	}
	d := &fa.desc[pg.ndesc]
	d.e.Store(0) // before the meta: see sameFresh
	if recycleGranules && storesInOrder {
		// Plain stores after the atomic one (see initU32): the hardware
		// makes them visible in this order, and the compiler keeps them
		// after the atomic store (it would drop a plain store of the 0,
		// which the epoch's overwrites). The descriptor's line is cold
		// (the array came from the pool): three locked instructions
		// waited for it at every new page's first entry.
		initU64(&d.m, m)
		initU64(&d.e, e)
	} else { // under Go's race detector (see initU32), or weaker hardware
		d.m.Store(m)
		d.e.Store(e)
	}
	pg.ndesc++
	return pg.ndesc
}

// absorb moves the fresh entry of slot gi, if it has one, into gr, a new
// off-heap granule that add is about to publish there, as first would
// have made it: an entry of the current generation; or a versioned entry
// of an earlier one (old, or of a page whose generation has not turned
// yet), stamped with its generation, so that validate keeps it only if
// its version still holds. pg.mu is held.
func (pg *page) absorb(gi uintptr, gr *granule) {
	fa := pg.fresh.Load()
	if fa == nil {
		return
	}
	k := fa.at(gi)
	if k == 0 {
		return
	}
	d := &fa.desc[k-1]
	e, m := d.e.Load(), d.m.Load()
	stamp := pg.fgen.Load()
	if fa.isOld(gi) {
		stamp = fa.ogen
	}
	gen := uint32(lagGen.Load())
	versioned := m&freshVersioned != 0
	if stamp == gen || versioned && int32(gen-stamp) > 0 && int32(gen-stamp) < versionSpan {
		lo, hi, write, site := unpackMeta(m)
		gr.lo, gr.hi = lo, hi // not yet published
		if versioned {
			gr.ver, gr.vok = fa.ver[gi%granulesPerPage], true
		}
		initU32(&gr.owner, Epoch(e).TID()+1)
		initU32(&gr.gen, stamp)
		if write {
			initU32(&gr.whole.wsite, site)
			initU64(&gr.whole.w, e)
		} else {
			initU32(&gr.whole.rsite, site)
			initU64(&gr.whole.r, e)
		}
	}
	// Kept or not, the entry is gone; the granule takes its place in live.
	fa.drop(gi)
	pg.nfresh--
	pg.live--
}

// sameFresh is the same-epoch check of a nil slot gi: whether its fresh
// entry records t's access of the bytes [lo, hi) of this kind in t's
// current epoch. Lock-free: see the rules above.
func (pg *page) sameFresh(t *Thread, gi uintptr, lo, hi uint8, write bool) bool {
	same, _ := pg.freshCheck(t, gi, lo, hi, write)
	return same
}

// freshCheck is sameFresh and maybeFresh in one, for Check: it reports
// whether t's access of the bytes [lo, hi) of the nil slot gi is recorded
// in its fresh entry already (same), and otherwise whether the slot may
// have an entry of the current generation (entry), which the locked path
// absorbs; neither is a first access. Lock-free: see the rules above.
func (pg *page) freshCheck(t *Thread, gi uintptr, lo, hi uint8, write bool) (same, entry bool) {
	v := pg.fver.Load()
	fa := pg.fresh.Load()
	if fa == nil {
		return false, false
	}
	k := fa.at(gi)
	if k == 0 || pg.fgen.Load() != uint32(lagGen.Load()) {
		// No entry, or a stale one (a live page's are reset by the
		// next entry recorded, freshFor, or the sweep).
		return false, false
	}
	if fa.isOld(gi) {
		return false, true // for the locked path: see turnFresh
	}
	d := &fa.desc[(k-1)%freshDescs]
	e := uint64(t.Epoch)
	if d.e.Load() != e {
		return false, true
	}
	m := d.m.Load()
	if d.e.Load() != e || m&freshShape != freshMeta(lo, hi, write, 0)&freshShape || pg.fver.Load() != v {
		// Another access, or an array that left the page meanwhile
		// (dropFresh), whose contents may be another page's by now.
		return false, true
	}
	t.Stats.count(write, WriteSameEpoch, ReadSameEpoch)
	return true, true
}

// sweepFresh turns the page's fresh entries recorded before generation
// gen (turnFresh, with vers, the page's versions: those whose version
// still holds stay, old), drops those settled under the frontier f, and
// returns the page's fresh array to the pool if none is left; pg.mu is
// held, and pg.live counts only the slots the sweep kept.
func (pg *page) sweepFresh(gen uint32, f []uint64, vers *pageVersions) {
	if pg.nfresh != 0 {
		if int32(pg.fgen.Load()-gen) < 0 {
			if fa := pg.fresh.Load(); fa != nil {
				vp, pv := vers.get()
				pg.turnFresh(fa, gen, vp, pv, false)
			} else {
				pg.live -= pg.nfresh
				pg.nfresh = 0
			}
		}
		if pg.nfresh != 0 && len(f) != 0 {
			pg.clearFresh(func(e, m uint64) bool { return HB(Epoch(e), f) })
		}
	}
	if pg.nfresh == 0 {
		pg.dropFresh()
	}
}
