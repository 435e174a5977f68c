// Copyright 2026 The bigfoot Authors. All rights reserved.

package shadow

import (
	"sync/atomic"
	"unsafe"
	"weak"

	"github.com/bigfoot-go/bigfoot/internal/spin"
)

// A Rule names a FastTrack transition (Flanagan & Freund, PLDI 2009, Fig. 2).
type Rule int

// The FastTrack rules, in the order of the paper.
const (
	ReadSameEpoch       Rule = iota // last read was this epoch: nothing to do
	ReadSharedSameEpoch             // read-shared, and this thread already read in this epoch
	ReadExclusive                   // last read happens before: replace it by this epoch
	ReadShare                       // last read concurrent: inflate to a read vector clock
	ReadShared                      // read-shared: set this thread's entry
	WriteSameEpoch                  // last write was this epoch: nothing to do
	WriteExclusive                  // check the last read epoch, record the write
	WriteShared                     // check the read vector clock, deflate it, record the write
	NumRules
)

var ruleNames = [NumRules]string{
	"read-same-epoch", "read-shared-same-epoch", "read-exclusive", "read-share",
	"read-shared", "write-same-epoch", "write-exclusive", "write-shared",
}

func (r Rule) String() string { return ruleNames[r] }

// Stats counts the shadow operations of one thread. It is owned by that
// thread, so counting needs no atomic operations.
type Stats struct {
	Checks uint64           // shadow location operations
	Rules  [NumRules]uint64 // how often each FastTrack rule applied
}

// A Thread is the state of an accessing goroutine that the shadow memory
// needs. It is owned by one goroutine: only that goroutine passes it to
// [Space] methods or modifies it.
type Thread struct {
	// Epoch is the thread's current epoch; Epoch.Clock() == VC[Epoch.TID()].
	Epoch Epoch
	// VC is the thread's vector clock, indexed by thread id.
	VC []uint64
	// GP is the runtime's g of the goroutine, or nil if unknown. Its first
	// two words are the bounds of the goroutine's stack (runtime.g.stack),
	// which the shadow uses to skip goroutine-local stack memory.
	GP unsafe.Pointer
	// Disabled, when positive, turns checks off (runtime.RaceDisable).
	Disabled int32
	// Stats counts this thread's shadow operations.
	Stats Stats

	cacheKey uintptr
	cache    *page
	// sparse: the access being checked is one of a sparse set of
	// elements (AccessSparse), which may turn a block run into a mapped
	// run; a lone access instead cuts the run around its granule.
	sparse   bool
	granules blockCache // free off-heap granules (offheap.go)
}

// A Race describes a conflict found by an access.
type Race struct {
	Addr      uintptr // address of the access that found the conflict
	Write     bool    // whether that access is a write
	Prev      Epoch   // epoch of the earlier, conflicting access
	PrevSite  uint32  // site of the earlier access
	PrevWrite bool    // whether the earlier access was a write
}

const (
	pageShift       = 12
	pageSize        = 1 << pageShift
	granulesPerPage = pageSize / 8
	nstripes        = 1024
)

// A Space is a shadow memory: a concurrent map from page number to shadow
// pages. A page holds one granule per 8 aligned bytes of memory; a granule
// holds one FastTrack cell while every access to it covers the same byte
// sub-range (the common case: a field or an element), and splits into one
// cell per byte once accesses of different ranges touch it, so that
// adjacent fields and bytes never alias.
//
// Same-epoch accesses (the fast path) only load atomics; all updates take a
// lock striped by granule.
type Space struct {
	pages   Map[page]
	stripes [nstripes]struct {
		spin.Mutex
		_ [64 - 8]byte
	}
	sweeping atomic.Bool
	frontier frontierHook // SetFrontier
	noRuns   bool         // tests and benchmarks: per-granule state only
	noMaps   bool         // tests and benchmarks: no mapped runs
}

// NewSpace returns an empty shadow memory that is swept of the state of dead
// objects after garbage collections.
func NewSpace() *Space {
	s := new(Space)
	registerSpace(s)
	return s
}

type page struct {
	mu   spin.Mutex
	live int         // non-nil slots; guarded by mu
	dead atomic.Bool // removed from the page table; set under mu
	kind atomic.Uint32
	// The page's slots: arr, or, while arr is nil, every slot is full
	// (nil: a clean page; a run: one run covers the whole page, the
	// common case of a large array, which then needs no 4 KiB array of
	// pointers to the same run). See slot and slotsW.
	arr  atomic.Pointer[slotArray] // off the heap (offheap.go)
	full atomic.Pointer[granule]

	// own is the page's off-heap slot array once it has one: arr, or
	// the array compress dropped, which slotsW reuses. It is returned
	// to its pool when the page is unreachable (newSlots). Set under
	// the lock of a slot's owner, like arr.
	own atomic.Pointer[slotArray]

	// keep holds the heap granules and runs in slots, which the garbage
	// collector does not scan (see page.set and page.prune).
	keepMu spin.Mutex
	keep   []*granule
}

// A slotArray holds a page's slots: one per granule, nil, a granule, or
// a run (runs.go) that several slots share.
type slotArray [granulesPerPage]atomic.Pointer[granule]

// slot returns the content of slot gi. (full is read only while arr is
// nil: once there is an array it may still hold the run it replaced.)
func (pg *page) slot(gi uintptr) *granule {
	if a := pg.arr.Load(); a != nil {
		return a[gi].Load()
	}
	return pg.full.Load()
}

// slotsW returns the page's slot array, for a write to a slot, creating
// it from full if needed. The caller holds the lock that owns the slot
// (the run's for a run's slots, the page's for nil slots, a stripe lock
// for a granule's): while arr is nil, every slot has that one owner.
// Writers store through set and setRange, which keep the collector
// informed; slotsW alone is for stores of nil.
func (pg *page) slotsW() *slotArray {
	if a := pg.arr.Load(); a != nil {
		return a
	}
	a := pg.own.Load()
	if a == nil {
		a = newSlots(pg)
	}
	// A reused array (see compress) still holds what it held then; a
	// reader that loaded it before compress may read it meanwhile, and
	// finds either that or full, the state since then.
	f := pg.full.Load()
	for i := range a {
		storeSlot(&a[i], f)
	}
	// full stays: a reader that found no array still finds the run
	// there (a stale run, as from a stale slot, which its checks of
	// extent and death handle), never a clean slot that is not clean.
	pg.arr.Store(a)
	return a
}

// compress drops the slot array if run r, whose lock is held, covers
// every slot of the page: r owns every slot, so no one else writes them.
// The array itself stays the page's (pg.own), for the next slotsW:
// readers that loaded it before may still be reading it, so it is never
// handed to another page while this one is reachable.
func (pg *page) compress(r *run) {
	if r.s.Load() != 0 || r.e.Load() != granulesPerPage || r.dead || pg.arr.Load() == nil {
		return
	}
	pg.full.Store(&r.granule)
	pg.arr.Store(nil)
}

// A granule is the shadow of 8 aligned bytes.
type granule struct {
	lo, hi uint8 // byte range of whole; immutable
	off    bool  // allocated off the heap: no pointers (offheap.go); immutable
	// owner, if not 0, is 1 + the id of the only thread whose accesses
	// the granule's cells record, as of generation gen (see validate).
	// Guarded by the stripe lock; it fits in the padding after hi.
	owner uint32
	split atomic.Pointer[parts]
	whole cell

	// GC reuse state, guarded by the granule's stripe lock. See gc.go.
	immortal bool               // memory is never freed (globals)
	foreign  bool               // memory outside the heap: no weak pointer
	hasWP    bool               // wp is a weak pointer to the object
	gen      uint32             // GC generation stamp
	wp       weak.Pointer[byte] // the object this state belongs to
}

// A cell is the FastTrack state of one shadow location.
type cell struct {
	w, r  atomic.Uint64 // last write epoch; last read epoch or shared
	rvc   atomic.Pointer[readVC]
	wsite uint32 // guarded by the stripe lock, like all updates
	rsite uint32
}

// A readVC is the read vector clock of a read-shared cell. Entries change
// under the stripe lock; the fast path reads its own entry atomically.
type readVC struct {
	c    []atomic.Uint64
	site []uint32
}

func (v *readVC) get(t uint32) uint64 {
	if v == nil || int(t) >= len(v.c) {
		return 0
	}
	return v.c[t].Load()
}

// with returns v with entry t set, copying v if it must grow.
func (v *readVC) with(t uint32, c uint64, site uint32) *readVC {
	if v == nil || int(t) >= len(v.c) {
		n := int(t) + 1
		if v != nil && n < 2*len(v.c) {
			n = 2 * len(v.c)
		}
		nv := &readVC{c: make([]atomic.Uint64, n), site: make([]uint32, n)}
		if v != nil {
			for i := range v.c {
				nv.c[i].Store(v.c[i].Load())
			}
			copy(nv.site, v.site)
		}
		v = nv
	}
	v.c[t].Store(c)
	v.site[t] = site
	return v
}

func (c *cell) empty() bool { return c.w.Load() == 0 && c.r.Load() == 0 }

func (c *cell) copyFrom(o *cell) {
	c.w.Store(o.w.Load())
	c.r.Store(o.r.Load())
	c.wsite, c.rsite = o.wsite, o.rsite
	if v := o.rvc.Load(); v != nil {
		var nv *readVC
		for i := range v.c {
			if x := v.c[i].Load(); x != 0 {
				nv = nv.with(uint32(i), x, v.site[i])
			}
		}
		c.rvc.Store(nv)
	}
}

// cross reports whether the cell records an access by a thread other than t.
func (c *cell) cross(t *Thread) bool {
	tid := t.Epoch.TID()
	w, r := c.w.Load(), c.r.Load()
	return w != 0 && Epoch(w).TID() != tid || r == shared || r != 0 && Epoch(r).TID() != tid
}

// same is the lock-free fast path: it reports whether the access is in the
// same epoch as the recorded one ([READ SAME EPOCH], [READ SHARED SAME
// EPOCH], [WRITE SAME EPOCH]).
func (c *cell) same(t *Thread, write bool) bool {
	e := uint64(t.Epoch)
	if write {
		if c.w.Load() == e {
			t.Stats.Rules[WriteSameEpoch]++
			return true
		}
		return false
	}
	switch c.r.Load() {
	case e:
		t.Stats.Rules[ReadSameEpoch]++
		return true
	case shared:
		if c.rvc.Load().get(t.Epoch.TID()) == t.Epoch.Clock() {
			t.Stats.Rules[ReadSharedSameEpoch]++
			return true
		}
	}
	return false
}

// access applies the FastTrack rule for an access by t to c, with the
// stripe lock held, and reports a conflict with an earlier access if any.
// After a conflict the state is updated as if there were none, so that one
// race is reported once.
func (c *cell) access(t *Thread, write bool, site uint32) (race Race, found bool) {
	t.Stats.Checks++
	e := t.Epoch
	tid, clk := e.TID(), e.Clock()
	w := Epoch(c.w.Load())
	r := c.r.Load()
	if !write {
		if r == uint64(e) {
			t.Stats.Rules[ReadSameEpoch]++
			return
		}
		if r == shared && c.rvc.Load().get(tid) == clk {
			t.Stats.Rules[ReadSharedSameEpoch]++
			return
		}
		if !HB(w, t.VC) { // write-read race
			race, found = Race{Prev: w, PrevSite: c.wsite, PrevWrite: true}, true
		}
		switch {
		case r != shared && HB(Epoch(r), t.VC):
			t.Stats.Rules[ReadExclusive]++
			c.r.Store(uint64(e))
			c.rsite = site
		case r != shared:
			t.Stats.Rules[ReadShare]++
			v := (*readVC)(nil).with(Epoch(r).TID(), Epoch(r).Clock(), c.rsite).with(tid, clk, site)
			c.rvc.Store(v)
			c.r.Store(shared)
		default:
			t.Stats.Rules[ReadShared]++
			v := c.rvc.Load()
			if nv := v.with(tid, clk, site); nv != v {
				c.rvc.Store(nv)
			}
		}
		return
	}
	if w == e {
		t.Stats.Rules[WriteSameEpoch]++
		return
	}
	if !HB(w, t.VC) { // write-write race
		race, found = Race{Prev: w, PrevSite: c.wsite, PrevWrite: true}, true
	}
	if r != shared {
		t.Stats.Rules[WriteExclusive]++
		if !found && !HB(Epoch(r), t.VC) { // read-write race
			race, found = Race{Prev: Epoch(r), PrevSite: c.rsite}, true
		}
	} else {
		t.Stats.Rules[WriteShared]++
		v := c.rvc.Load()
		for i := range v.c {
			x := v.c[i].Load()
			if x != 0 && !found && !HB(MakeEpoch(uint32(i), x), t.VC) {
				race, found = Race{Prev: MakeEpoch(uint32(i), x), PrevSite: v.site[i]}, true
			}
		}
		c.rvc.Store(nil)
		c.r.Store(0)
	}
	c.w.Store(uint64(e))
	c.wsite = site
	return
}

// Read checks a read of [p, p+size) by t at site.
func (s *Space) Read(t *Thread, p unsafe.Pointer, size uintptr, site uint32) (Race, bool) {
	return s.Access(t, p, size, false, site)
}

// Write checks a write of [p, p+size) by t at site.
func (s *Space) Write(t *Thread, p unsafe.Pointer, size uintptr, site uint32) (Race, bool) {
	return s.Access(t, p, size, true, site)
}

// Access checks an access of [p, p+size) by t at site and reports the
// first conflict it finds. The caller must keep the memory reachable
// during the call.
//
// The address travels as an unsafe.Pointer, not a uintptr, until it is
// known not to be on the goroutine's stack: any call may grow the stack,
// which moves it and adjusts pointers to it, but not integers. (Callers
// must not let p escape because of this; the shadow only converts it to a
// pointer the compiler can track where it is needed, in ptrOf.)
func (s *Space) Access(t *Thread, p unsafe.Pointer, size uintptr, write bool, site uint32) (race Race, found bool) {
	for off := uintptr(0); off < size; {
		q := unsafe.Add(p, off)
		a := uintptr(q)
		n := 8 - a&7
		if n > size-off {
			n = size - off
		}
		lo, hi := uint8(a&7), uint8(a&7+n)
		if !s.fast(t, a, lo, hi, write) {
			if r, ok := s.slow(t, q, lo, hi, write, site); ok && !found {
				race, found = r, true
			}
		}
		off += n
	}
	if found {
		race.Write = write
	}
	return race, found
}

// AccessSparse is Access for one element of a sparse set of elements
// checked together (a footprint's side set: a conditional a[i], a
// gather): if it falls in a block run, the run keeps one state per
// element in a map (mapped.go) instead of giving the element's granule
// per-granule state. A lone access (Access) cuts the run around its
// granule, which suits the elements a shrinking pattern leaves behind
// one by one (the pivot column of LU factorization).
func (s *Space) AccessSparse(t *Thread, p unsafe.Pointer, size uintptr, write bool, site uint32) (race Race, found bool) {
	t.sparse = true
	race, found = s.Access(t, p, size, write, site)
	t.sparse = false
	return race, found
}

// AccessRange checks accesses of the elements lo, lo+stride, ... < hi of
// an array of elem-byte elements at base, and reports the first conflict.
// It is the single entry point for range checks: it keeps the adaptive
// array shadow of runs.go, so that a check over a run costs O(1) per run.
func (s *Space) AccessRange(t *Thread, base unsafe.Pointer, elem uintptr, lo, hi, stride int, write bool, site uint32) (race Race, found bool) {
	if stride <= 0 {
		stride = 1
	}
	if lo >= hi || elem == 0 || t.Disabled > 0 || onStack(t.GP, base) {
		return Race{}, false
	}
	// base is not on this goroutine's stack, so it does not move.
	b := uintptr(base)
	last := lo + (hi-1-lo)/stride*stride
	return s.accessSpan(t, span{
		start:  b + uintptr(lo)*elem,
		end:    b + uintptr(last)*elem + elem,
		elem:   elem,
		period: uintptr(stride) * elem,
	}, write, site)
}

// accessWords is AccessRange for contiguous elements made of whole,
// aligned granules: the bytes [start, end) from base are a run of whole
// granules, each accessed as [0, 8). It counts the granules of a page
// already in the current epoch in a tight loop and hands the others to
// slowWords, which takes each stripe lock once per group of granules.
func (s *Space) accessWords(t *Thread, base unsafe.Pointer, start, end uintptr, write bool, site uint32) (race Race, found bool) {
	e := uint64(t.Epoch)
	for off := start; off < end; {
		a := uintptr(base) + off
		key := a >> pageShift
		pg := t.cache
		if t.cacheKey != key || pg == nil {
			pg = s.pages.Load(key)
		}
		gi := (a & (pageSize - 1)) >> 3
		gn := min(uintptr(granulesPerPage), gi+(end-off)>>3)
		n := uintptr(0) // granules in the current epoch
		if pg != nil {
			for ; gi+n < gn; n++ {
				gr := pg.slot(gi + n)
				if gr == nil || gr.lo != 0 || gr.hi != 8 {
					break
				}
				if write && gr.whole.w.Load() != e || !write && gr.whole.r.Load() != e {
					break
				}
			}
			t.Stats.Checks += uint64(n)
			if write {
				t.Stats.Rules[WriteSameEpoch] += uint64(n)
			} else {
				t.Stats.Rules[ReadSameEpoch] += uint64(n)
			}
		}
		off += n << 3
		if gi+n == gn {
			continue
		}
		g0 := gi + n
		ge := min(gn, g0|(stripeGroup-1)+1)
		if r, ok := s.slowWords(t, unsafe.Add(base, off), g0, ge, write, site); ok && !found {
			race, found = r, true
		}
		off += (ge - g0) << 3
	}
	if found {
		race.Write = write
	}
	return race, found
}

// slowWords is the slow path for the whole granules [g0, ge) of the page
// of p, which share a stripe lock.
func (s *Space) slowWords(t *Thread, p unsafe.Pointer, g0, ge uintptr, write bool, site uint32) (race Race, found bool) {
	if t.Disabled > 0 || onStack(t.GP, p) {
		return Race{}, false
	}
	key := uintptr(p) >> pageShift
	mu := s.stripe(key, g0)
retry:
	pg := t.cache
	if t.cacheKey != key || pg == nil || pg.dead.Load() {
		pg = s.page(key)
		t.cacheKey, t.cache = key, pg
	}
	mu.Lock()
	for gi := g0; gi < ge; gi++ {
		gr := pg.slot(gi)
		if gr == nil {
			gr = newGranule(t, 0, 8, uint32(lagGen.Load()))
			if !pg.add(gi, gr) {
				freeGranule(t, gr)
				mu.Unlock()
				g0 = gi
				goto retry
			}
		}
		a := key<<pageShift | gi<<3
		if gr.isRun() {
			// A run was installed meanwhile: the general path.
			mu.Unlock()
			for ; gi < ge; gi++ {
				a := key<<pageShift | gi<<3
				if r, ok := s.Access(t, ptrOf(a), 8, write, site); ok && !found {
					race, found = r, true
				}
			}
			return race, found
		}
		if r, ok := s.update(t, pg, gi, gr, a, 0, 8, write, site); ok && !found {
			race, found = r, true
			race.Addr = a
		}
	}
	mu.Unlock()
	return race, found
}

// sameSpan reports whether every granule of [a, a+size) is in t's cached
// page and already records this epoch, for the exact byte ranges the access
// covers.
func (s *Space) sameSpan(t *Thread, a, size uintptr, write bool) bool {
	pg := t.cache
	if pg == nil || t.cacheKey != a>>pageShift || (a+size-1)>>pageShift != t.cacheKey {
		return false
	}
	e := uint64(t.Epoch)
	for end := a + size; a < end; {
		off := a & 7
		n := min(8-off, end-a)
		gr := pg.slot((a & (pageSize - 1)) >> 3)
		if gr == nil || uintptr(gr.lo) != off || uintptr(gr.hi) != off+n {
			return false
		}
		if write {
			if gr.whole.w.Load() != e {
				return false
			}
		} else if gr.whole.r.Load() != e {
			return false
		}
		a += n
	}
	if write {
		t.Stats.Rules[WriteSameEpoch]++
	} else {
		t.Stats.Rules[ReadSameEpoch]++
	}
	t.Stats.Checks++
	return true
}

// Same is the inlinable fast path of Access for an access that lies within
// one granule of the page t used last: it reports whether the access is in
// the epoch already recorded ([READ SAME EPOCH], [READ SHARED SAME EPOCH],
// [WRITE SAME EPOCH]), in which case there is nothing to do. Otherwise the
// caller calls Access.
func (s *Space) Same(t *Thread, a, size uintptr, write bool) bool {
	off := a & 7
	if off+size > 8 || t.cacheKey != a>>pageShift || t.cache == nil {
		return false
	}
	arr := t.cache.arr.Load()
	if arr == nil {
		return false // a clean page, or a run over the whole page
	}
	gr := arr[(a&(pageSize-1))>>3].Load()
	if gr == nil {
		return false
	}
	if uintptr(gr.lo) != off || uintptr(gr.hi) != off+size || !gr.whole.same(t, write) {
		// A split granule's whole cell is empty: its parts hold the state.
		return gr.sameSplit(t, off, size, write)
	}
	t.Stats.Checks++
	return true
}

// sameSplit is the same-epoch check of the bytes [off, off+size) of a
// split granule (adjacent fields, or elements of an array accessed
// separately): it reports whether the cell of every part the access
// covers records t's epoch for this kind of access. It is false for an
// unsplit granule, for a run, whose split is nil, and for an access that
// does not cover whole parts (the slow path refines them). Same calls it
// so that accesses to split granules, like the uint16 halves of a
// read-shared key table, need not leave the inlined fast path for Access.
func (gr *granule) sameSplit(t *Thread, off, size uintptr, write bool) bool {
	sp := gr.split.Load()
	if sp == nil {
		return false
	}
	return sp.same(t, off, off+size, write)
}

func (s *Space) fast(t *Thread, addr uintptr, lo, hi uint8, write bool) bool {
	key := addr >> pageShift
	pg := t.cache
	if t.cacheKey != key || pg == nil {
		if pg = s.pages.Load(key); pg == nil {
			return false
		}
		t.cacheKey, t.cache = key, pg
	}
	gi := (addr & (pageSize - 1)) >> 3
	gr := pg.slot(gi)
	if gr == nil {
		return false
	}
	if gr.isRun() {
		return asRun(gr).sameBytes(t, gi, addr, uintptr(hi-lo), write)
	}
	if sp := gr.split.Load(); sp != nil {
		return sp.same(t, uintptr(lo), uintptr(hi), write)
	}
	if gr.lo != lo || gr.hi != hi || !gr.whole.same(t, write) {
		return false
	}
	t.Stats.Checks++
	return true
}

// stripeGroup consecutive granules share a stripe lock, so that range
// checks lock once per group.
const stripeGroup = 8

func (s *Space) stripe(key, gi uintptr) *spin.Mutex {
	return &s.stripes[hash(key<<9|gi/stripeGroup)&(nstripes-1)].Mutex
}

// page returns the live page for key, creating it if needed.
func (s *Space) page(key uintptr) *page {
	for {
		pg, loaded := s.pages.LoadOrStore(key, func() *page { return new(page) })
		if !loaded {
			// New memory is being touched: a cheap moment (next to
			// allocating 4 KiB of slots) to make sure the granules
			// about to be created get the current generation.
			RefreshGen()
		}
		if !pg.dead.Load() {
			return pg
		}
		// pg was reclaimed after we found it; it is no longer in the table.
	}
}

func (s *Space) slow(t *Thread, p unsafe.Pointer, lo, hi uint8, write bool, site uint32) (Race, bool) {
	if t.Disabled > 0 || onStack(t.GP, p) {
		return Race{}, false
	}
	// p is not on this goroutine's stack, so it does not move.
	addr := uintptr(p)
	key := addr >> pageShift
	gi := (addr & (pageSize - 1)) >> 3
	mu := s.stripe(key, gi)
	for {
		pg := t.cache
		if t.cacheKey != key || pg == nil || pg.dead.Load() {
			pg = s.page(key)
			t.cacheKey, t.cache = key, pg
		}
		// A run is owned by its own lock, not the stripe's: runSpan
		// takes it, and looks again if the slot changed meanwhile.
		gr := pg.slot(gi)
		if gr == nil && s.first(t, pg, gi, addr, lo, hi, write, site) {
			return Race{}, false
		}
		locked := gr == nil || !gr.isRun()
		if locked {
			mu.Lock()
			gr = pg.slot(gi)
		}
		if gr == nil {
			gr = newGranule(t, lo, hi, uint32(lagGen.Load()))
			if !pg.add(gi, gr) {
				freeGranule(t, gr)
				mu.Unlock()
				continue
			}
		}
		if gr.isRun() {
			if locked {
				mu.Unlock()
			}
			sp := span{start: addr, end: addr + uintptr(hi-lo), elem: uintptr(hi - lo), period: uintptr(hi - lo), single: !t.sparse}
			race, found, _, retry := s.runSpan(t, pg, key, asRun(gr), gi, &sp, write, site)
			if retry {
				continue
			}
			return race, found
		}
		race, found := s.update(t, pg, gi, gr, addr, lo, hi, write, site)
		mu.Unlock()
		if found {
			race.Addr = addr
		}
		return race, found
	}
}

// first records t's access of the bytes [lo, hi) of the empty slot gi,
// the first access of a granule the shadow has not seen (fresh memory),
// and reports whether it did. The state one access leaves in an empty
// granule is known in advance (validate stamps the generation and the
// owner; FastTrack records the epoch, and finds no conflict without an
// earlier access), so it is written into a new granule before add
// publishes it, without the stripe lock: until add succeeds no one else
// can see the granule, and add fails if the slot is no longer empty.
func (s *Space) first(t *Thread, pg *page, gi, addr uintptr, lo, hi uint8, write bool, site uint32) bool {
	// The GC state validate gives fresh state (track): a granule with a
	// weak pointer lives on the heap, whose collector sees the pointer.
	gen := uint32(lagGen.Load())
	var gr *granule
	if immortal, hasWP, wp := s.track(pg, addr, gen); hasWP {
		gr = &granule{lo: lo, hi: hi, gen: gen, hasWP: true, wp: wp}
	} else {
		gr = newGranule(t, lo, hi, gen)
		gr.immortal = immortal
	}
	gr.owner = t.Epoch.TID() + 1
	rule := ReadExclusive
	if write {
		rule = WriteExclusive
		gr.whole.wsite = site
		gr.whole.w.Store(uint64(t.Epoch))
	} else {
		gr.whole.rsite = site
		gr.whole.r.Store(uint64(t.Epoch))
	}
	if !pg.add(gi, gr) {
		freeGranule(t, gr) // never published
		return false
	}
	t.Stats.Checks++
	t.Stats.Rules[rule]++
	return true
}

// add installs gr in the empty slot gi, unless the page was reclaimed or
// the slot is no longer empty.
func (pg *page) add(gi uintptr, gr *granule) bool {
	pg.mu.Lock()
	defer pg.mu.Unlock()
	if pg.dead.Load() || pg.slot(gi) != nil {
		// Reclaimed, or a run was installed: the caller looks again.
		return false
	}
	pg.set(gi, gr)
	pg.live++
	return true
}

// replace installs a fresh, empty granule for [lo, hi) in slot gi in
// place of old, which it frees; the stripe lock is held.
func (pg *page) replace(t *Thread, gi uintptr, old *granule, lo, hi uint8) *granule {
	gr := newGranule(t, lo, hi, uint32(lagGen.Load()))
	pg.set(gi, gr)
	freeGranule(t, old)
	return gr
}

func (s *Space) update(t *Thread, pg *page, gi uintptr, gr *granule, addr uintptr, lo, hi uint8, write bool, site uint32) (race Race, found bool) {
	gr = s.validate(t, pg, gi, gr, addr, lo, hi)
	if gr.split.Load() == nil && (gr.lo != lo || gr.hi != hi) {
		if gr.whole.empty() {
			var ngr *granule
			if gr.off {
				ngr = newGranule(t, lo, hi, gr.gen)
			} else {
				ngr = &granule{lo: lo, hi: hi, immortal: gr.immortal, hasWP: gr.hasWP, gen: gr.gen, wp: gr.wp}
			}
			pg.set(gi, ngr)
			freeGranule(t, gr)
			gr = ngr
		} else {
			gr = pg.promote(t, gi, gr) // parts are on the heap
			sp := newParts(partShift(gr.lo, gr.hi, lo, hi))
			sp.fill(gr.lo, gr.hi, &gr.whole)
			gr.split.Store(sp)
			// Fast paths that test only the whole cell (Same, sameSpan,
			// accessWords) must fail from now on: no epoch is 0.
			gr.whole.w.Store(0)
			gr.whole.r.Store(0)
			gr.whole.rvc.Store(nil)
		}
	}
	if sp := gr.split.Load(); sp != nil && !sp.fits(lo, hi) {
		gr.split.Store(sp.refined(min(sp.shift, partShift(lo, hi, 0, 0))))
	}
	race, found = gr.access(t, lo, hi, write, site)
	if found && gr.hasWP && gr.wp.Value() == nil {
		// The object the state belonged to died and its memory was reused
		// before the GC generation we saw advanced: the conflict is with
		// a dead object. Start afresh.
		gr = pg.replace(t, gi, gr, lo, hi)
		race, found = gr.access(t, lo, hi, write, site)
	}
	return race, found
}

func (gr *granule) access(t *Thread, lo, hi uint8, write bool, site uint32) (race Race, found bool) {
	sp := gr.split.Load()
	if sp == nil {
		return gr.whole.access(t, write, site)
	}
	for i := lo >> sp.shift; i < (hi-1)>>sp.shift+1; i++ {
		if r, ok := sp.cells[i].access(t, write, site); ok && !found {
			race, found = r, true
		}
	}
	return race, found
}

func (gr *granule) cells() []cell {
	if sp := gr.split.Load(); sp != nil {
		return sp.cells
	}
	return unsafe.Slice(&gr.whole, 1)
}

func (gr *granule) empty() bool {
	for i := range gr.cells() {
		if !gr.cells()[i].empty() {
			return false
		}
	}
	return true
}

func (gr *granule) cross(t *Thread) bool {
	cs := gr.cells()
	for i := range cs {
		if cs[i].cross(t) {
			return true
		}
	}
	return false
}

// onStack reports whether p is on the stack of the goroutine whose runtime
// g is gp. Stack memory is goroutine-local (the compiler moves shared
// variables to the heap) and is reused by other goroutines after this one
// exits, so the shadow never records it.
//
// p must stay a pointer until here: the stack may move (and p with it)
// whenever a function's prologue grows it, including this one's, so the
// address is taken only after the prologue and compared at once.
func onStack(gp, p unsafe.Pointer) bool {
	if gp == nil {
		return false
	}
	lo := *(*uintptr)(gp)
	hi := *(*uintptr)(unsafe.Add(gp, unsafe.Sizeof(uintptr(0))))
	a := uintptr(p)
	return lo <= a && a < hi
}

// Len returns the number of shadow pages, for tests and statistics.
func (s *Space) Len() int { return s.pages.Len() }
