// Copyright 2026 The bigfoot Authors. All rights reserved.

package shadow

// Adaptive array shadow.
//
// A range check over an array (or a strided footprint) would cost one
// FastTrack operation per granule with per-granule state. Like SlimState
// and BigFoot's dynamic array compression
// (Rhodes' thesis §3.4 and §3.5.2), the shadow instead starts the
// memory a range check touches while it is clean with one state for many
// granules, and refines it only when a check does not fit:
//
//   - A run is a shadow object that the slots [s, e) of one page all point
//     to. It maps every byte b of its granules to one of k cells, class
//     ((b-origin)/elem) mod k. With k == 1 the run is coarse (or, once it
//     is a piece of a refined run, a block); with k > 1 it holds one state
//     per residue class of a stride (even/odd partitions, a field of every
//     element of an array of structs).
//   - A range check is a span: elem bytes every period bytes over
//     [start, end). Over a run it touches a set of classes. If the span
//     covers every byte of those classes in the run, the check is one
//     FastTrack operation per touched class, and the scan skips to the
//     run's end: a check costs O(runs it touches), not O(elements).
//   - Otherwise the run is refined, and the check retried: first into
//     blocks (the part of the run inside the span becomes its own run,
//     the partial granules at its edges per-granule state, the rest stays
//     as it was: the block each goroutine owns); a coarse run that a
//     strided check touches becomes a stride run with the check's stride
//     (at most maxClasses classes); and, as a last resort, the granules
//     the span touches get per-granule state (today's representation,
//     byte-precise). A single access (Access) that must change the state
//     of part of a run is the smallest such check: the run is cut around
//     its granule, which becomes per-granule state.
//   - Every piece is a copy of the state it refines, so refinement never
//     changes what a later access finds: races are found exactly where
//     per-granule state finds them (TestDifferential).
//   - Coarse again: after a check applied to a run, the run merges with
//     the run to its left if both have the same shape (classes, element
//     size, phase), the same GC state (gen stamp, weak pointer), and
//     identical cells (epochs and sites, no read vector clock): a write
//     range check by one epoch over a refined array makes it coarse again
//     block by block. Per-granule state never becomes a run again: it is
//     byte-precise, and its granules may hold state of different objects;
//     it goes away when the garbage collector frees the memory.
//
// Runs never cross a page, so the page table, the sweeper and the page's
// count of live slots work as before; an array of many pages has a run per
// page. Runs are created only over clean slots inside one range check, so a
// run covers memory of one object, and its GC state (generation, weak
// pointer) is that of its granules (validateRun, Sweep).
//
// Concurrency: the slots of a run are owned by the run's lock (slots of
// granules by the stripe locks, nil slots by the page's lock, which
// installs new runs and granules). Cells change under the run's lock; a
// run's extent shrinks under it; a refined or merged run is marked dead,
// and its cells are never written again. The lock-free fast path reads a
// slot, the cells, then checks that the slot's granule is still inside
// the run's extent: a dead run's cells are the state at the moment it
// died, which is a valid moment for the check to take effect.

import (
	"sync/atomic"
	"unsafe"

	"github.com/bigfoot-go/bigfoot/internal/ownheap"
	"github.com/bigfoot-go/bigfoot/internal/spin"
)

const (
	// minRun is the fewest granules a run covers; smaller pieces get
	// per-granule state.
	minRun = 2
	// maxClasses is the largest stride a run keeps one state per
	// residue class for.
	maxClasses = 16
	// minRunObject is the size of the smallest heap object (its size
	// class) a range check gives a run. A run is a heap object (it may hold read vector
	// clocks and an ident, which the collector must see), and a run of a
	// new object needs an ident; the state of fewer granules is off the
	// heap per granule, where a check of them costs a few granules' fast
	// paths. The slices that appends grow one size class at a time
	// (encoding/json's decoder) made most of the runs and idents of a
	// JSON round trip.
	minRunObject = 128
)

// A run is the shared state of the slots [s, e) of one page. Its embedded
// granule holds the GC state; its lo and hi are 0, which marks a run in a
// slot (no granule has hi == 0) and makes every granule fast path (Same,
// sameSpan, accessWords) fail on it.
type run struct {
	granule
	mu     spin.Mutex
	dead   bool // refined, merged or dropped; guarded by mu
	block  bool // a piece of a refined run; guarded by mu
	s, e   atomic.Uint32
	key    uintptr // page number
	obj    uintptr // base of the heap object the run covers part of; 0 outside the heap
	origin uintptr // class of byte b: ((b-origin)/elem) % len(cells); see canonOrigin
	elem   uintptr
	cells  []cell  // immutable slice; one cell per residue class (mapped: per entry)
	m      *runMap // mapped run: the class of each element (mapped.go); immutable
}

func (gr *granule) isRun() bool { return gr.hi == 0 }

// A run1 is a run of one class with its cell, allocated as one object:
// runs of one class are most of the runs refinement and strided spans
// make (a sort's swaps reshape them by the hundred thousand), and a run
// and its cells were two objects.
type run1 struct {
	run
	c [1]cell
}

// allocRun returns a new zero run with k cells.
func allocRun(k int) *run {
	if k == 1 {
		x := ownheap.New[run1]()
		x.cells = x.c[:]
		return &x.run
	}
	m := ownheap.Begin()
	r := &run{cells: make([]cell, k)}
	m.End()
	return r
}

// asRun returns the run whose first field gr is.
func asRun(gr *granule) *run { return (*run)(unsafe.Pointer(gr)) }

// canonOrigin returns the origin of a run of k classes of elem-byte
// elements whose class 0 starts at address a: a's residue modulo k*elem,
// the smallest address with the same classes. Every address of memory is
// above it, so class is defined for every byte, including bytes before
// the span that created the run: a span that starts one element earlier
// (a stencil's row[j-1] next to the row[j] that made a stride run) still
// has the run's shape, instead of refining it to per-granule state. Runs
// with the same element grid have equal origins.
func canonOrigin(a, elem uintptr, k int) uintptr {
	return a % (elem * uintptr(k))
}

func (r *run) class(b uintptr) int {
	if r.m != nil {
		return r.m.entry((b - r.key<<pageShift) / r.m.elem)
	}
	if len(r.cells) == 1 {
		return 0
	}
	return int((b - r.origin) / r.elem % uintptr(len(r.cells)))
}

// A span is the set of bytes a range check accesses: elem bytes at start,
// start+period, ..., within [start, end).
type span struct {
	start, end   uintptr
	elem, period uintptr
	single       bool // a lone access (Access, not AccessSparse)
}

func (sp *span) contiguous() bool { return sp.period == sp.elem }

// next returns the address of the first element of sp that ends after a.
func (sp *span) next(a uintptr) uintptr {
	if a < sp.start+sp.elem {
		return sp.start
	}
	return sp.start + ((a-sp.elem-sp.start)/sp.period+1)*sp.period
}

// covers reports whether sp accesses every byte of its classes in the
// bytes [S, E) of a run: if its elements are the run's elements of
// those classes (aligned, see run.shape), whether no element of theirs
// overlaps [S, E) before sp's first or after its last; else whether sp
// spans [S, E). The span of the bytes 3, 7, 11, ... of a pixel row (the
// alpha channel of every pixel) covers its class of a run that starts
// at the row's first byte.
func (sp *span) covers(S, E uintptr, aligned bool) bool {
	if !aligned {
		return sp.start <= S && sp.end >= E
	}
	return sp.start+sp.elem <= S+sp.period && sp.end+sp.period >= E+sp.elem
}

// startsIn reports whether the element of strided span sp at x, not a
// granule's start, is the span's first in x's granule: a stride run made
// from that granule on (newRun) holds bytes before x only in classes sp
// does not access. The loop of accessSpan meets granules only at
// elements, and a span whose elements all start inside granules (a
// pixel's second, third or fourth byte) otherwise made none.
func (sp *span) startsIn(x uintptr) bool {
	return !sp.contiguous() && (x == sp.start || x-sp.period+sp.elem <= x&^7)
}

// shape reports the classes of a run that sp's bytes in the run may
// touch: all of them (all), or first, first+step, ... (aligned: the span's
// elements are the run's elements of those classes).
func (r *run) shape(sp *span) (first, step int, aligned bool) {
	k := len(r.cells)
	if k == 1 {
		return 0, 1, sp.contiguous()
	}
	if sp.elem != r.elem || (sp.start-r.origin)%r.elem != 0 || sp.period%sp.elem != 0 {
		return 0, 1, false
	}
	stride := int(sp.period / sp.elem)
	if k%stride != 0 {
		return 0, 1, false
	}
	return r.class(sp.start), stride, true
}

// sameClasses is the lock-free check of whether every class first,
// first+step, ... records t's epoch for this kind of access.
func (r *run) sameClasses(t *Thread, first, step int, write bool) bool {
	for j := first % step; j < len(r.cells); j += step {
		if c := &r.cells[j]; !c.sameOwn(t, write) && (write || !c.sameShared(t) && !c.ownWrite(t)) { // cell.same, inlined
			return false
		}
	}
	return true
}

// classesIn returns the set of r's classes (bit j: class j) that have a
// byte in [S, E), r's extent. A piece cut out of a stride run keeps all
// of its cells, but may be shorter than one period (refine): the cells of
// the classes it has no byte of hold the state of other memory, which a
// check of the piece must not look at.
func (r *run) classesIn(S, E uintptr) uint32 {
	k := uintptr(len(r.cells))
	if k == 1 || E-S >= k*r.elem {
		return 1<<k - 1
	}
	var in uint32
	for b := S; b < E; b += r.elem - (b-r.origin)%r.elem {
		in |= 1 << r.class(b)
	}
	return in
}

// covers reports whether granule gi is in r's extent.
func (r *run) covers(gi uintptr) bool {
	return uintptr(r.s.Load()) <= gi && gi < uintptr(r.e.Load())
}

// sameBytes is the fast path of Access for the bytes [a, a+n) of granule
// gi, which lies in run r.
func (r *run) sameBytes(t *Thread, gi, a, n uintptr, write bool) bool {
	if !r.current(uint32(lagGen.Load())) {
		return false
	}
	if r.m != nil {
		if _, ok := r.sameMapped(t, &span{start: a, end: a + n, elem: n, period: n}, a, a+n, false, write); !ok {
			return false
		}
	} else if len(r.cells) == 1 {
		if c := &r.cells[0]; !c.sameOwn(t, write) && (write || !c.sameShared(t) && !c.ownWrite(t)) { // cell.same, inlined
			return false
		}
	} else {
		for b := a; b < a+n; b++ {
			if c := &r.cells[r.class(b)]; !c.sameOwn(t, write) && (write || !c.sameShared(t) && !c.ownWrite(t)) {
				return false
			}
		}
	}
	if !r.covers(gi) {
		return false
	}
	t.Stats.Checks++
	return true
}

// accessSpan checks the accesses of span sp (which starts at or after
// the array base) and reports the first conflict.
func (s *Space) accessSpan(t *Thread, sp span, write bool, site uint32) (race Race, found bool) {
	note := func(r Race, ok bool) {
		if ok && !found {
			race, found = r, true
		}
	}
	words := sp.contiguous() && sp.elem&7 == 0 && sp.start&7 == 0
	// Contiguous elements of 1, 2 or 4 bytes cover every granule the
	// span holds whole: such a granule is accessed as [0, 8), one
	// operation where one per element would split it into parts of the
	// element's size (a []byte's pending write made after the program
	// read its words one by one: five times the shadow, and eight
	// operations per word).
	sub := sp.contiguous() && sp.elem < 8 && 8%sp.elem == 0
	for x := sp.start; x < sp.end; {
		// x is an element's start, except after the word loop below
		// stopped inside an element of several granules: then the
		// rest of that element is what is left of it, and an access
		// of a whole element from x would run past it (past the span,
		// into memory the program did not access, another object's or
		// none).
		n := sp.elem
		if words && sp.elem > 8 {
			n -= (x - sp.start) % sp.elem
		}
		whole := words || sub && x&7 == 0 && sp.end-x >= 8
		if sub && whole {
			n = 8 // whole elements: x is a granule's start
		}
		if s.sameSpan(t, x, n, write) {
			x += sp.period - (sp.elem - n)
			continue
		}
		key := x >> pageShift
		gi := (x & (pageSize - 1)) >> 3
		pg := t.cache
		if t.cacheKey != key || pg == nil || pg.dead.Load() {
			pg = s.page(key)
			t.cacheKey, t.cache = key, pg
		}
		gr := pg.slot(gi)
		if gr != nil && gr.isRun() {
			r, ok, done, retry := s.runSpan(t, pg, key, asRun(gr), gi, &sp, write, site)
			note(r, ok)
			if retry {
				continue
			}
			if nx := sp.next(done); nx > x {
				x = nx
				continue
			}
			// The element at x extends past the run: check it whole,
			// the run's part is now in this epoch.
		} else if gr == nil && (x&7 == 0 || sp.startsIn(x)) {
			made, small := s.newRun(t, pg, key, gi, &sp)
			if made {
				continue
			}
			if small && whole {
				// The clean granules of a small object: per-granule
				// state, as the word loop below makes it.
				n := uintptr(1)
				for lim := min(granulesPerPage-gi, (sp.end-x)>>3); n < lim && pg.slot(gi+n) == nil; n++ {
				}
				note(s.accessWords(t, ptrOf(x), 0, n<<3, write, site))
				x += n << 3
				continue
			}
		} else if whole {
			// A stretch of per-granule state: the word loop.
			n := uintptr(0)
			lim := min(granulesPerPage-gi, (sp.end-x)>>3)
			for ; n < lim; n++ {
				g := pg.slot(gi + n)
				if g == nil || g.isRun() {
					break
				}
			}
			if n > 0 {
				note(s.accessWords(t, ptrOf(x), 0, n<<3, write, site))
				x += n << 3
				continue
			}
		}
		note(s.Access(t, ptrOf(x), n, write, site))
		x += sp.period - (sp.elem - n)
	}
	if found {
		race.Write = write
	}
	return race, found
}

// newRun installs a run for the clean slots from gi on that lie inside
// sp, if there are at least minRun of them, sp's shape has a run
// representation and they are not in a heap object of fewer than
// minRunObject bytes, and reports whether it did (made) and, if not,
// whether the object was too small.
func (s *Space) newRun(t *Thread, pg *page, key, gi uintptr, sp *span) (made, small bool) {
	if s.noRuns {
		return false, false
	}
	k := 1
	if !sp.contiguous() {
		if sp.period%sp.elem != 0 || sp.period/sp.elem > maxClasses {
			return false, false
		}
		k = int(sp.period / sp.elem)
	}
	a := key<<pageShift | gi<<3
	lim := min(granulesPerPage-gi, (sp.end-a)>>3)
	n := uintptr(0)
	for n < lim && pg.slot(gi+n) == nil && !pg.hasFresh(gi+n) {
		n++
	}
	if n < minRun {
		return false, false
	}
	// A run covers one object: the GC frees each object on its own, and
	// the run's GC state is that of one object.
	obj, size, heap := ObjectBounds(a)
	if heap {
		if size == 0 {
			return false, false // the object's end is unknown
		}
		if size < minRunObject {
			return false, true
		}
		if n = min(n, (obj+size-a)>>3); n < minRun {
			return false, false
		}
	}
	r := allocRun(k)
	r.key, r.obj, r.origin, r.elem = key, obj, canonOrigin(sp.start, sp.elem, k), sp.elem
	r.gen.Store(uint32(lagGen.Load()))
	r.s.Store(uint32(gi))
	pg.mu.Lock()
	defer pg.mu.Unlock()
	if pg.dead.Load() {
		return false, false
	}
	// Slots become non-nil, and fresh entries appear, only under
	// pg.mu: recount.
	m := uintptr(0)
	for m < n && pg.slot(gi+m) == nil && !pg.hasFresh(gi+m) {
		m++
	}
	if m < minRun {
		return false, false
	}
	r.e.Store(uint32(gi + m))
	if m == granulesPerPage && pg.arr.Load() == nil {
		pg.full.Store(&r.granule) // the whole page: no slot array
	} else {
		pg.setRange(gi, gi+m, &r.granule)
	}
	pg.live += int(m)
	return true, false
}

// runSpan applies the part of sp inside run r, found in slot gi, if it
// fits r's representation, and returns the address up to which sp's bytes
// are done. Otherwise it refines r and reports retry: the caller looks at
// the slot again.
func (s *Space) runSpan(t *Thread, pg *page, key uintptr, r *run, gi uintptr, sp *span, write bool, site uint32) (race Race, found bool, done uintptr, retry bool) {
	if r.m != nil {
		return s.mappedSpan(t, pg, key, r, gi, sp, write, site)
	}
	first, step, aligned := r.shape(sp)
	if r.current(uint32(lagGen.Load())) && r.sameClasses(t, first, step, write) && r.covers(gi) {
		t.Stats.Checks++
		end := key<<pageShift + uintptr(r.e.Load())<<3
		return Race{}, false, min(end, sp.end), false
	}
	r.mu.Lock()
	if r.dead || !r.covers(gi) {
		r.mu.Unlock()
		return Race{}, false, 0, true
	}
	pbase := key << pageShift
	if !s.validateRun(t, pg, r, max(sp.start, pbase|gi<<3)) {
		r.mu.Unlock()
		return Race{}, false, 0, true
	}
	rs, re := uintptr(r.s.Load()), uintptr(r.e.Load())
	S, E := pbase+rs<<3, pbase+re<<3
	X, Y := max(S, sp.start), min(E, sp.end)
	whole := sp.covers(S, E, aligned)
	if sp.contiguous() && whole {
		first, step, aligned = 0, 1, true
	}
	if r.sameClasses(t, first, step, write) {
		r.mu.Unlock()
		t.Stats.Checks++
		return Race{}, false, Y, false
	}
	if aligned && whole {
		in := r.classesIn(S, E)
		for j := first % step; j < len(r.cells); j += step {
			if in&(1<<j) == 0 {
				continue // no byte of the run is in class j
			}
			if rc, ok := r.cells[j].access(t, write, site); ok && !found {
				race, found = rc, true
				race.Addr = X
			}
		}
		if found && r.id != nil && !r.id.live() {
			// The state belonged to a dead object whose memory was
			// reused: drop it and start afresh.
			s.dropRun(pg, r)
			r.mu.Unlock()
			return Race{}, false, 0, true
		}
		r.mu.Unlock()
		s.mergeLeft(pg, r)
		return race, found, Y, false
	}
	// Refine. g0, g1: the granules wholly inside the span; f0, f1: the
	// granules it touches.
	f0, f1 := (X-pbase)>>3, (Y-pbase+7)>>3
	g0, g1 := (X-pbase+7)>>3, (Y-pbase)>>3
	if g1 < g0 {
		g1 = g0
	}
	// The new shape of [g0, g1), made only if refine would install it:
	// a lone access cuts one granule out of a run at every step of a
	// shrinking pattern (the pivot column of an LU factorization), and a
	// piece made there only to be dropped was most of what the shadow
	// allocated.
	var nr *run
	switch {
	case g1-g0 < minRun:
		g0, g1 = f0, f0 // per-granule state
	case aligned:
		nr = r.reshaped(r.origin, r.elem, len(r.cells))
	case len(r.cells) == 1 && sp.period%sp.elem == 0 && sp.period/sp.elem <= maxClasses:
		nr = r.reshaped(sp.start, sp.elem, int(sp.period/sp.elem))
	default:
		g0, g1 = f0, f0 // last resort: per-granule state
	}
	if nr == nil && len(r.cells) == 1 && !sp.single && !s.noMaps {
		// The granules the check touches would get per-granule state:
		// a map of element states instead (mapped.go).
		s.replaceRun(pg, r, newMapped(r, mapElem(sp)))
		r.mu.Unlock()
		return Race{}, false, 0, true
	}
	s.refine(t, pg, r, f0, g0, g1, f1, nr)
	r.mu.Unlock()
	return Race{}, false, 0, true
}

// reshaped returns an unlocked, uninstalled run with r's GC state whose
// cells are copies of r's state in a new shape: every class of the new
// shape is a copy of r's only cell, or, for r's own shape, of r's cells.
func (r *run) reshaped(origin, elem uintptr, k int) *run {
	nr := allocRun(k)
	nr.key, nr.obj, nr.origin, nr.elem, nr.block = r.key, r.obj, canonOrigin(origin, elem, k), elem, true
	nr.copyGC(&r.granule)
	for j := range nr.cells {
		nr.cells[j].copyFrom(&r.cells[j%len(r.cells)])
	}
	return nr
}

func (gr *granule) copyGC(o *granule) {
	gr.immortal, gr.foreign, gr.id = o.immortal, o.foreign, o.id
	gr.gen.Store(o.gen.Load())
}

// refine splits r, whose lock is held, into: [s, f0) and [f1, e) in r's
// shape, [f0, g0) and [g1, f1) per-granule, and [g0, g1) in nr's shape (if
// nr is nil or the range is empty, per-granule). Run pieces of fewer than
// minRun granules get per-granule state.
func (s *Space) refine(t *Thread, pg *page, r *run, f0, g0, g1, f1 uintptr, nr *run) {
	rs, re := uintptr(r.s.Load()), uintptr(r.e.Load())
	f0, f1 = max(f0, rs), min(f1, re)
	g0, g1 = max(g0, f0), min(g1, f1)
	if nr == nil || g1-g0 < minRun {
		nr, g0, g1 = nil, f1, f1
	}
	type piece struct {
		lo, hi uintptr
		r      *run // nil: per-granule
	}
	pieces := []piece{{rs, f0, r}, {f0, g0, nil}, {g0, g1, nr}, {g1, f1, nil}, {f1, re, r}}
	for i := range pieces {
		if p := &pieces[i]; p.r != nil && p.hi-p.lo < minRun {
			p.r = nil
		}
	}
	// r keeps the left or the right piece, or dies.
	keep := -1
	switch {
	case pieces[0].r != nil && pieces[0].hi > pieces[0].lo:
		keep = 0
		r.e.Store(uint32(f0))
	case pieces[4].r != nil && pieces[4].hi > pieces[4].lo:
		keep = 4
		r.s.Store(uint32(f1))
	default:
		r.dead = true
	}
	var proof offProof // made for the first per-granule piece
	proved := false
	for i, p := range pieces {
		if p.hi <= p.lo || i == keep {
			continue
		}
		if p.r == nil {
			if !proved {
				proof, proved = s.offProofOf(pg, r), true
			}
			for gi := p.lo; gi < p.hi; gi++ {
				pg.set(gi, r.fine(t, pg, gi, &proof))
			}
			continue
		}
		q := p.r
		if q == r {
			q = r.reshaped(r.origin, r.elem, len(r.cells))
		}
		q.s.Store(uint32(p.lo))
		q.e.Store(uint32(p.hi))
		q.mu.Lock() // not yet visible; held until it is installed whole
		pg.setRange(p.lo, p.hi, &q.granule)
		q.mu.Unlock()
	}
}

// fineCell returns the cell of r whose state every byte of granule gi
// has, or nil if its bytes are in more than one class.
func (r *run) fineCell(gi uintptr) *cell {
	if len(r.cells) == 1 {
		return &r.cells[0]
	}
	base := r.key<<pageShift | gi<<3
	c0 := r.class(base)
	for b := base + 1; b < base+8; b++ {
		if r.class(b) != c0 {
			return nil
		}
	}
	return &r.cells[c0]
}

// An offProof says whether the per-granule state made of a run may live
// off the heap, where it holds no pointer (offheap.go), and with what GC
// state: the run's generation and kind of memory, or, for a run proven by
// an ident, the allocation versions of its page (version.go). refine
// makes such state one granule at a time as a shrinking pattern cuts the
// run (the pivot column of an LU factorization): on the heap it was most
// of what such a program allocated, garbage once settled, and the
// collector's heap goal doubled with it.
type offProof struct {
	ok  bool
	gen uint32
	vp  *[512]uint8 // the page's word versions (nil: the run's own proof)
	pv  uint8       // the page's version, added to each word's
}

// offProofOf returns the offProof of r (locked) on page pg.
func (s *Space) offProofOf(pg *page, r *run) offProof {
	if r.id == nil {
		// Immortal, foreign, or stamped with its generation only: no
		// pointer to keep.
		return offProof{ok: true, gen: r.gen.Load()}
	}
	if s.versions == nil {
		return offProof{}
	}
	// The generation is read before the versions (versionHolds); the
	// ident says the object is the run's, so the versions of its words
	// are the object's.
	g := uint32(lagGen.Load())
	if !r.id.live() {
		return offProof{}
	}
	vp, pv := s.versions(r.key << pageShift)
	if vp == nil {
		return offProof{}
	}
	return offProof{ok: true, gen: g, vp: vp, pv: pv}
}

// fine returns a granule with r's state for granule gi of page pg, for a
// check by t; off the heap if p allows it and the state needs no pointer.
func (r *run) fine(t *Thread, pg *page, gi uintptr, p *offProof) *granule {
	c := r.fineCell(gi)
	if c != nil && p.ok && c.r.Load() != shared {
		gr := newGranule(t, 0, 8, p.gen)
		madeHeapGranule() // shared state, for the settle sweeps
		initU64(&gr.whole.w, c.w.Load())
		initU64(&gr.whole.r, c.r.Load())
		gr.whole.copySites(c)
		gr.immortal, gr.foreign = r.immortal, r.foreign
		if p.vp != nil {
			gr.ver, gr.vok = p.vp[gi]+p.pv, true
		}
		return gr
	}
	gr := heapGranule(0, 8)
	madeHeapGranule()
	gr.copyGC(&r.granule)
	if c != nil {
		gr.whole.copyFrom(c)
		return gr
	}
	// Parts as large as the classes allow: a class boundary every 4
	// bytes (a stride run of []uint32) needs only two.
	base := r.key<<pageShift | gi<<3
	shift := uint8(2)
	for b := base; b < base+8; b++ {
		for shift > 0 && b&(1<<shift-1) != 0 && r.class(b) != r.class(b-1) {
			shift--
		}
	}
	sp := newParts(shift)
	for i := range sp.cells {
		sp.cells[i].copyFrom(&r.cells[r.class(base+uintptr(i)<<shift)])
	}
	gr.split.Store(sp)
	return gr
}

// dropRun clears r's slots (its lock is held): its state is stale.
func (s *Space) dropRun(pg *page, r *run) {
	rs, re := r.s.Load(), r.e.Load()
	pg.mu.Lock()
	if pg.arr.Load() == nil && pg.full.Load() == &r.granule {
		pg.full.Store(nil)
	} else {
		pg.setRange(uintptr(rs), uintptr(re), nil)
	}
	pg.live -= int(re - rs)
	pg.mu.Unlock()
	r.dead = true
}

// mergeLeft merges r with the run to its left if they have the same shape
// and state. It only tries locks: merging is an optimization.
func (s *Space) mergeLeft(pg *page, r *run) {
	rs := uintptr(r.s.Load())
	if rs == 0 {
		return
	}
	lg := pg.slot(rs - 1)
	if lg == nil || !lg.isRun() {
		return
	}
	l := asRun(lg)
	if !l.mu.TryLock() {
		return
	}
	defer l.mu.Unlock()
	if !r.mu.TryLock() {
		return
	}
	defer r.mu.Unlock()
	if l.dead || r.dead || uintptr(l.e.Load()) != uintptr(r.s.Load()) || !l.mergeable(r) {
		return
	}
	re := r.e.Load()
	l.e.Store(re)
	pg.setRange(uintptr(r.s.Load()), uintptr(re), &l.granule)
	r.dead = true
	pg.compress(l)
}

// mergeable reports whether l and r (both locked) cover the same object
// and have the same shape, GC state and cells. Runs of two objects never
// merge: one may die, and its memory be reused, while the other lives.
func (l *run) mergeable(r *run) bool {
	k := len(l.cells)
	if l.m != nil || r.m != nil {
		return false
	}
	if l.obj != r.obj || k != len(r.cells) || l.immortal != r.immortal || l.foreign != r.foreign ||
		l.gen.Load() != r.gen.Load() || l.id != r.id {
		return false
	}
	if k > 1 && (l.elem != r.elem || l.origin != r.origin) {
		return false
	}
	for j := range l.cells {
		a, b := &l.cells[j], &r.cells[j]
		if a.w.Load() != b.w.Load() || a.r.Load() != b.r.Load() || a.r.Load() == shared ||
			a.wsite.Load() != b.wsite.Load() || a.rsite.Load() != b.rsite.Load() {
			return false
		}
	}
	return true
}

// validateRun is validate for a run, whose lock is held: it reports
// whether r may be used, or was dropped because its state may belong to a
// dead object (the caller retries on the clean slots).
func (s *Space) validateRun(t *Thread, pg *page, r *run, addr uintptr) bool {
	gen := uint32(lagGen.Load())
	if r.immortal {
		if r.gen.Load() != gen {
			r.gen.Store(gen) // for the fast paths (granule.current)
		}
		return true
	}
	if r.id != nil {
		if r.gen.Load() != gen {
			r.gen.Store(gen)
			if !r.id.live() {
				s.dropRun(pg, r)
				return false
			}
		}
		return true
	}
	if r.empty() {
		r.gen.Store(gen)
		p := s.track(t, pg, addr, gen, true) // gc.go
		r.immortal, r.id = p.immortal, p.id
		return true
	}
	if r.gen.Load() != gen {
		s.dropRun(pg, r)
		return false
	}
	if !r.cross(t) || r.foreign {
		return true
	}
	kind := pg.kind.Load()
	if kind == kindUnknown {
		kind = classify(ptrOf(addr))
		if kind != kindForeign {
			pg.kind.Store(kind)
		}
	}
	if kind == kindImmortal {
		r.immortal = true
		return true
	}
	if kind == kindForeign {
		if uint32(RefreshGen()) != r.gen.Load() {
			s.dropRun(pg, r)
			return false
		}
		r.foreign = true
		return true
	}
	id, same := adoptIdent(t, addr, r.gen.Load())
	if !same {
		s.dropRun(pg, r)
		return false
	}
	r.id = id
	r.gen.Store(gen)
	return true
}

func (r *run) empty() bool {
	for i := range r.cells {
		if !r.cells[i].empty() {
			return false
		}
	}
	return true
}

func (r *run) cross(t *Thread) bool {
	for i := range r.cells {
		if r.cells[i].cross(t) {
			return true
		}
	}
	return false
}

// ShapeStats describes the representation of a shadow memory: how much of
// it is compressed, and how large it is.
type ShapeStats struct {
	Pages       int     // shadow pages
	Coarse      int     // runs with one state, as a range check created them
	Block       int     // runs with one state, pieces of a refined run
	Stride      int     // runs with one state per residue class of a stride
	Mapped      int     // runs with a map from elements to states
	RunGranules int     // granules that runs cover
	Fine        int     // granules with their own state
	Split       int     // of which with one state per byte
	Parts       int     // of which with one state per 2 or 4 bytes
	Bytes       uintptr // approximate bytes of shadow memory
}

// ShapeStats walks the shadow memory and reports its shape. It is meant
// for statistics at exit and for tests; it does not stop concurrent
// accesses, so its counts are a snapshot only if there are none.
func (s *Space) ShapeStats() ShapeStats {
	var st ShapeStats
	rvcBytes := func(c *cell) uintptr {
		if v := c.rvc.Load(); v != nil {
			return unsafe.Sizeof(*v) + uintptr(len(v.ents))*unsafe.Sizeof(rvEntry{})
		}
		return 0
	}
	s.pages.Range(func(key uintptr, pg *page) bool {
		st.Pages++
		st.Bytes += unsafe.Sizeof(*pg)
		if pg.own.Load() != nil {
			st.Bytes += unsafe.Sizeof(slotArray{}) + uintptr(cap(pg.keep))*unsafe.Sizeof(pg.keep[0])
		}
		if pg.fresh.Load() != nil {
			st.Bytes += unsafe.Sizeof(freshArray{})
		}
		for gi := 0; gi < granulesPerPage; gi++ {
			g := pg.slot(uintptr(gi))
			if g == nil {
				continue
			}
			if !g.isRun() {
				st.Fine++
				st.Bytes += unsafe.Sizeof(*g)
				if sp := g.split.Load(); sp != nil {
					if sp.shift == 0 {
						st.Split++
					} else {
						st.Parts++
					}
					st.Bytes += sp.size()
					for b := range sp.cells {
						st.Bytes += rvcBytes(&sp.cells[b])
					}
				} else {
					st.Bytes += rvcBytes(&g.whole)
				}
				continue
			}
			r := asRun(g)
			r.mu.Lock()
			rs, re := int(r.s.Load()), int(r.e.Load())
			if !r.dead && rs == gi && re > rs {
				switch {
				case r.m != nil:
					st.Mapped++
					st.Bytes += r.m.size()
				case len(r.cells) > 1:
					st.Stride++
				case r.block:
					st.Block++
				default:
					st.Coarse++
				}
				st.RunGranules += re - rs
				st.Bytes += unsafe.Sizeof(*r) + uintptr(len(r.cells))*unsafe.Sizeof(cell{})
				for j := range r.cells {
					st.Bytes += rvcBytes(&r.cells[j])
				}
				gi = re - 1
			}
			r.mu.Unlock()
		}
		return true
	})
	return st
}
