// Copyright 2026 The bigfoot Authors. All rights reserved.

package shadow

// Mapped runs: a run whose classes are given by a map, not a formula.
//
// A block run that a check covers only partly used to be refined around
// the check: the granules it touched got per-granule state (64 bytes and
// more per 8 data bytes, a locked FastTrack operation per element in every
// later epoch), for good. That is what sparse checks do to an array a
// goroutine owns: a conditional a[i] in a loop (every fourth element, say),
// one element per row of a grid, a checksum loop stepping by 61. Yet such
// an array has only a handful of distinct states: the elements the sparse
// check touched, and the others.
//
// A mapped run keeps them as a palette: up to maxEntries cells, and one
// 4-bit entry per element of the page (elem bytes: 1, 2, 4 or 8) naming
// its cell. A check applies the FastTrack rule once per entry it touches:
// an entry whose elements the check touches all is updated in place;
// otherwise the touched elements move to an entry with the new state (an
// existing one with that state, or a free one). When all elements of the
// run have the same state again (the next pass reads the whole block),
// they all move to entry 0 (unify), and the fast path checks that cell
// alone; the run becomes a plain block run again when the shadow is
// swept, if it is still uniform then. If the palette is full even
// after identical entries are merged, the run becomes per-granule state,
// the representation before mapped runs.
//
// Shadow per page: 4 bits per element (512 bytes for a []uint32 page,
// 2 KiB for a []byte page) and the cells; per-element precision as with
// one cell per byte (TestDifferential).
//
// Concurrency: entries and cells change under the run's lock; the
// lock-free fast path (sameMapped) reads them under a sequence count, odd
// while a check moves elements between entries or reuses a free entry, so
// it never combines an element's entry with a cell that is not that
// element's state.

import (
	"sync/atomic"

	"github.com/bigfoot-go/bigfoot/internal/ownheap"
)

const (
	mapBits    = 4
	maxEntries = 1 << mapBits
	perWord    = 32 / mapBits
)

// A runMap is the element-to-cell map of a mapped run.
type runMap struct {
	elem uintptr       // bytes per element: 1, 2, 4 or 8
	seq  atomic.Uint32 // odd while elements move between entries
	// one is set while every element of the run is in entry 0 (see
	// unify), so that the fast path checks one cell, not each element;
	// set clears it.
	one   atomic.Bool
	words []atomic.Uint32 // entry of the page's element j: nibble j%perWord of words[j/perWord]
	// refs counts the elements of the run's extent per entry; guarded by
	// the run's lock.
	refs [maxEntries]int32
	// next is scratch space for a new state; guarded by the run's lock
	// (a local cell would escape).
	next cell
}

func newRunMap(elem uintptr) *runMap {
	return &runMap{elem: elem, words: make([]atomic.Uint32, pageSize/elem/perWord)}
}

// mappedLike returns a new mapped run with r's page and object, elem-byte
// elements and an empty map, allocated as the detector's
// (internal/ownheap).
func mappedLike(r *run, elem uintptr) *run {
	m := ownheap.Begin()
	nr := &run{key: r.key, obj: r.obj, elem: elem, cells: make([]cell, maxEntries), block: true, m: newRunMap(elem)}
	m.End()
	return nr
}

// entry returns the entry of the page's element j.
func (m *runMap) entry(j uintptr) int {
	return int(m.words[j/perWord].Load() >> (j % perWord * mapBits) & (maxEntries - 1))
}

// set sets the entry of element j; the run's lock is held.
func (m *runMap) set(j uintptr, e int) {
	if e != 0 {
		m.one.Store(false)
	}
	w := &m.words[j/perWord]
	sh := j % perWord * mapBits
	w.Store(w.Load()&^(uint32(maxEntries-1)<<sh) | uint32(e)<<sh)
}

// size returns the bytes of shadow memory m occupies.
func (m *runMap) size() uintptr { return uintptr(len(m.words))*4 + 8*maxEntries }

// mapElem returns the element size of a map that represents every
// element of sp as whole map elements: the largest power of two, at most
// 8, that divides sp's start, element size and period.
func mapElem(sp *span) uintptr {
	x := sp.start | sp.elem | sp.period | 8
	return x & -x
}

// fitsMap reports whether every element of sp is made of whole elements
// of m.
func (m *runMap) fits(sp *span) bool {
	return (sp.start|sp.elem|sp.period)&(m.elem-1) == 0
}

// spanElems calls f with the page's element index of every map element
// of sp's bytes in [X, Y), in order, while f returns true; sp fits m.
func (m *runMap) spanElems(sp *span, X, Y, pbase uintptr, f func(j uintptr) bool) {
	for x := sp.next(X); x < Y; x += sp.period {
		for b, hi := max(x, X), min(x+sp.elem, Y); b < hi; b += m.elem {
			if !f((b - pbase) / m.elem) {
				return
			}
		}
	}
}

// sameMapped is the lock-free check of whether every byte of sp in
// [X, Y) records t's epoch for this kind of access; with clip, X and Y
// are clipped to the run's extent, read under the sequence count (a run
// that gives up part of its extent bumps it), and the clipped Y is
// returned. sp need not fit the map: it looks at the map element of every
// byte it covers.
func (r *run) sameMapped(t *Thread, sp *span, X, Y uintptr, clip, write bool) (uintptr, bool) {
	m := r.m
	v := m.seq.Load()
	if v&1 != 0 {
		return 0, false
	}
	pbase := r.key << pageShift
	if clip {
		X = max(X, pbase+uintptr(r.s.Load())<<3)
		Y = min(Y, pbase+uintptr(r.e.Load())<<3)
	}
	if m.one.Load() {
		if !r.cells[0].same(t, write) {
			return 0, false
		}
		return Y, m.seq.Load() == v
	}
	last := -1
	for x := sp.next(X); x < Y; x += sp.period {
		for b, hi := max(x, X), min(x+sp.elem, Y); b < hi; b = (b/m.elem + 1) * m.elem {
			i := m.entry((b - pbase) / m.elem)
			if i != last {
				if !r.cells[i].same(t, write) {
					return 0, false
				}
				last = i
			}
		}
	}
	return Y, m.seq.Load() == v
}

// newMapped returns an unlocked, uninstalled mapped run with r's GC state
// and elem-byte elements, every element of r's extent in entry 0, a copy
// of r's only cell.
func newMapped(r *run, elem uintptr) *run {
	nr := mappedLike(r, elem)
	nr.copyGC(&r.granule)
	nr.cells[0].copyFrom(&r.cells[0])
	nr.m.refs[0] = int32((r.e.Load() - r.s.Load()) * 8 / uint32(elem))
	return nr
}

// replaceRun installs nr over r's extent in place of r, whose lock is
// held, and marks r dead.
func (s *Space) replaceRun(pg *page, r, nr *run) {
	rs, re := r.s.Load(), r.e.Load()
	nr.s.Store(rs)
	nr.e.Store(re)
	nr.mu.Lock() // not yet visible; held until it is installed whole
	if pg.arr.Load() == nil {
		pg.full.Store(&nr.granule) // r covered the whole page
	} else {
		pg.setRange(uintptr(rs), uintptr(re), &nr.granule)
		pg.compress(nr)
	}
	nr.mu.Unlock()
	r.dead = true
}

// finer returns an unlocked, uninstalled copy of the mapped run r (locked)
// with elem-byte elements, elem < r.m.elem.
func (r *run) finer(elem uintptr) *run {
	nr := mappedLike(r, elem)
	nr.copyGC(&r.granule)
	for i := range r.cells {
		nr.cells[i].copyFrom(&r.cells[i])
	}
	k := r.m.elem / elem
	for j := uintptr(0); j < pageSize/elem; j++ {
		nr.m.set(j, r.m.entry(j/k))
	}
	for i := range r.m.refs {
		nr.m.refs[i] = r.m.refs[i] * int32(k)
	}
	return nr
}

// sameState reports whether two cells hold the same state: epochs and
// sites, and no read vector clock.
func sameState(a, b *cell) bool {
	r := a.r.Load()
	return a.w.Load() == b.w.Load() && r == b.r.Load() && r != shared &&
		a.wsite.Load() == b.wsite.Load() && a.rsite.Load() == b.rsite.Load()
}

func (c *cell) reset() {
	c.w.Store(0)
	c.r.Store(0)
	c.rvc.Store(nil)
	c.wsite.Store(0)
	c.rsite.Store(0)
}

// compact merges identical entries of r (locked) and frees unused ones.
func (r *run) compact() {
	m := r.m
	var to [maxEntries]int
	merged := false
	for i := range to {
		to[i] = i
		if m.refs[i] == 0 {
			continue
		}
		for k := 0; k < i; k++ {
			if m.refs[k] > 0 && to[k] == k && sameState(&r.cells[k], &r.cells[i]) {
				to[i] = k
				merged = true
				break
			}
		}
	}
	if !merged {
		return
	}
	m.seq.Add(1)
	j0 := uintptr(r.s.Load()) << 3 / m.elem
	j1 := uintptr(r.e.Load()) << 3 / m.elem
	for j := j0; j < j1; j++ {
		if e := m.entry(j); to[e] != e {
			m.set(j, to[e])
		}
	}
	for i := range to {
		if to[i] != i {
			m.refs[to[i]] += m.refs[i]
			m.refs[i] = 0
			r.cells[i].reset()
		}
	}
	m.seq.Add(1)
}

// uniform reports whether every element of r (locked) has the same state,
// and returns an entry with it.
func (r *run) uniform() (int, bool) {
	e := -1
	for i := range r.m.refs {
		if r.m.refs[i] == 0 {
			continue
		}
		if e < 0 {
			e = i
		} else if !sameState(&r.cells[e], &r.cells[i]) {
			return 0, false
		}
	}
	return e, e >= 0
}

// mappedSpan is runSpan for a mapped run.
func (s *Space) mappedSpan(t *Thread, pg *page, key uintptr, r *run, gi uintptr, sp *span, write bool, site uint32) (race Race, found bool, done uintptr, retry bool) {
	pbase := key << pageShift
	if r.current(uint32(lagGen.Load())) {
		if Y, ok := r.sameMapped(t, sp, sp.start, sp.end, true, write); ok && r.covers(gi) {
			t.Stats.Checks++
			return Race{}, false, Y, false
		}
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.dead || !r.covers(gi) {
		return Race{}, false, 0, true
	}
	if !s.validateRun(t, pg, r, max(sp.start, pbase|gi<<3)) {
		return Race{}, false, 0, true
	}
	m := r.m
	if !m.fits(sp) {
		// Elements finer than the map's: a finer map.
		s.replaceRun(pg, r, r.finer(mapElem(sp)))
		return Race{}, false, 0, true
	}
	S, E := pbase+uintptr(r.s.Load())<<3, pbase+uintptr(r.e.Load())<<3
	X, Y := max(S, sp.start), min(E, sp.end)
	whole := sp.contiguous() && sp.start <= S && sp.end >= E
	var touched [maxEntries]int32
	tally := func() {
		if whole {
			touched = m.refs
			return
		}
		touched = [maxEntries]int32{}
		m.spanElems(sp, X, Y, pbase, func(j uintptr) bool {
			touched[m.entry(j)]++
			return true
		})
	}
	tally()
	same := true
	for i := range touched {
		if touched[i] > 0 && !r.cells[i].same(t, write) {
			same = false
			break
		}
	}
	if same {
		t.Stats.Checks++
		return Race{}, false, Y, false
	}
	// Entries whose elements the check touches only partly need room
	// for the touched elements' new state.
	need := func() (n, free int) {
		for i := range touched {
			switch {
			case m.refs[i] == 0:
				free++
			case touched[i] > 0 && touched[i] < m.refs[i]:
				n++
			}
		}
		return n, free
	}
	if n, free := need(); n > free {
		r.compact()
		tally()
		if n, free = need(); n > free {
			s.overflow(t, pg, r, (X-pbase)>>3, (Y-pbase+7)>>3)
			return Race{}, false, 0, true
		}
	}
	note := func(rc Race, ok bool) {
		if ok && !found {
			race, found = rc, true
			race.Addr = max(X, sp.next(X)) // an element the check accesses
		}
	}
	m.seq.Add(1)
	// Entries wholly touched: in place.
	var partial [maxEntries]bool
	for i := range touched {
		if touched[i] == 0 {
			continue
		}
		if touched[i] < m.refs[i] {
			partial[i] = true
			continue
		}
		t.Stats.Checks++
		note(r.cells[i].access(t, write, site))
	}
	// Entries touched in part: the new state goes to an entry that has
	// it already, or to a free one.
	var to [maxEntries]int
	moved := false
	for i := range to {
		to[i] = i
		if !partial[i] {
			continue
		}
		c := &m.next
		c.reset()
		c.copyFrom(&r.cells[i])
		t.Stats.Checks++
		note(c.access(t, write, site))
		k := -1
		for j := range m.refs {
			if m.refs[j] > 0 && sameState(&r.cells[j], c) {
				k = j
				break
			}
		}
		if k < 0 {
			for j := range m.refs {
				if m.refs[j] == 0 {
					k = j
					break
				}
			}
			r.cells[k].reset()
			r.cells[k].copyFrom(c)
		}
		if k != i {
			to[i] = k
			m.refs[k] += touched[i]
			m.refs[i] -= touched[i]
			moved = true
		}
	}
	if moved {
		m.spanElems(sp, X, Y, pbase, func(j uintptr) bool {
			if e := m.entry(j); to[e] != e {
				m.set(j, to[e])
			}
			return true
		})
	}
	m.seq.Add(1)
	if found && r.id != nil && !r.id.live() {
		// The state belonged to a dead object whose memory was reused:
		// drop it and start afresh.
		s.dropRun(pg, r)
		return Race{}, false, 0, true
	}
	if e, ok := r.uniform(); ok && !m.one.Load() {
		r.unify(e)
	}
	return race, found, Y, false
}

// unify puts every element of r (locked), all of which have the state of
// entry e, in entry 0, and frees the other entries. The run stays mapped:
// the passes of a data-parallel loop alternate between a sparse check and
// a whole one (a compaction out[pos] = ..., then a pass over all of out),
// and a run made a block run here was mapped again by the next sparse
// check, an allocation of the map and cells per page and pass, most of
// what such a program allocated. A run that is still uniform when the
// shadow is swept becomes a block run there (blockOf).
func (r *run) unify(e int) {
	m := r.m
	var n int32
	for i := range m.refs {
		n += m.refs[i]
	}
	m.seq.Add(1)
	if e != 0 {
		r.cells[0].reset()
		r.cells[0].copyFrom(&r.cells[e])
	}
	for i := 1; i < maxEntries; i++ {
		r.cells[i].reset()
	}
	for i := range m.words {
		m.words[i].Store(0)
	}
	m.refs = [maxEntries]int32{0: n}
	m.one.Store(true)
	m.seq.Add(1)
}

// blockOf returns an unlocked, uninstalled block run with the GC state of
// the mapped run r, whose elements are all in entry 0 (m.one), and its
// state.
func (r *run) blockOf() *run {
	nr := allocRun(1)
	nr.key, nr.obj, nr.elem, nr.block = r.key, r.obj, r.m.elem, true
	nr.copyGC(&r.granule)
	nr.cells[0].copyFrom(&r.cells[0])
	return nr
}

// recount sets the reference counts of r's entries (r is locked, or not
// yet visible) from its extent, and clears the entries no element uses.
func (r *run) recount() {
	m := r.m
	m.refs = [maxEntries]int32{}
	for j, j1 := uintptr(r.s.Load())<<3/m.elem, uintptr(r.e.Load())<<3/m.elem; j < j1; j++ {
		m.refs[m.entry(j)]++
	}
	for i := range m.refs {
		if m.refs[i] == 0 {
			r.cells[i].reset()
		}
	}
}

// overflow makes room in the mapped run r (locked), whose entries are all
// in use by distinct states, for a check that touches its granules
// [f0, f1). If the check touches most of the run, the granules it does
// not touch get per-granule state and r keeps [f0, f1): elements left
// behind by a shrinking pattern (the columns LU factorization is done
// with, each written in another step) have a state each, and take their
// entries with them. Otherwise the whole run becomes per-granule state
// (many states spread over the run: the representation before mapped
// runs).
func (s *Space) overflow(t *Thread, pg *page, r *run, f0, f1 uintptr) {
	rs, re := uintptr(r.s.Load()), uintptr(r.e.Load())
	f0, f1 = max(f0, rs), min(f1, re)
	if 2*(f1-f0) < re-rs || f1-f0 == re-rs {
		s.refine(t, pg, r, rs, re, re, re, nil)
		return
	}
	m := r.m
	m.seq.Add(1)
	proof := s.offProofOf(pg, r)
	for gi := rs; gi < re; gi++ {
		if gi < f0 || gi >= f1 {
			pg.set(gi, r.fine(t, pg, gi, &proof))
		}
	}
	r.s.Store(uint32(f0))
	r.e.Store(uint32(f1))
	r.recount()
	m.seq.Add(1)
}
