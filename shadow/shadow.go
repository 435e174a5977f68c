// Copyright 2026 The bigfoot Authors. All rights reserved.

package shadow

import (
	"sync/atomic"
	"unsafe"

	"github.com/bigfoot-go/bigfoot/internal/ownheap"
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

// count records one check that applied rule w if it was a write, r if it
// was a read.
func (st *Stats) count(write bool, w, r Rule) {
	st.Checks++
	if write {
		st.Rules[w]++
	} else {
		st.Rules[r]++
	}
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
	// Recorded is the thread's epoch at its last call of a method that
	// may record an access (Check, Access, AccessSparse, AccessRange,
	// AccessStrided). A thread whose Recorded is below its Epoch has no
	// access recorded at its current epoch: the detector reuses the
	// thread id of a goroutine that ended so (after its last release)
	// as soon as a forking goroutine knows the release.
	Recorded Epoch
	// Atomic is the site of atomic operations while the thread checks
	// one, else 0. An earlier access recorded at that site, another
	// atomic operation, never conflicts with it: atomic operations do
	// not race with each other, though they need not be ordered (a load
	// releases nothing, a store acquires nothing), as ThreadSanitizer's
	// shadow words mark an atomic access for the same rule.
	Atomic uint32

	cacheKey uintptr
	cache    *page
	// sparse: the access being checked is one of a sparse set of
	// elements (AccessSparse), which may turn a block run into a mapped
	// run; a lone access instead cuts the run around its granule.
	sparse bool
	// recheck: the access the locked path applies next was recorded by
	// a lock-free path (exclusive, sharedRead) in state that left its
	// slot before the conflict was checked, so the moved state may
	// record its epoch already; the same-epoch rules must not skip its
	// check (see redo).
	recheck  bool
	granules blockCache // free off-heap granules (offheap.go)
	tracked  trackMemo  // the object trackIdent last made or found an ident for
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

// A Space is a shadow memory: a concurrent table from page number to shadow
// pages (pagetable.go). A page holds one granule per 8 aligned bytes of
// memory; a granule holds one FastTrack cell while every access to it covers the same byte
// sub-range (the common case: a field or an element), and splits into one
// cell per byte once accesses of different ranges touch it, so that
// adjacent fields and bytes never alias.
//
// Same-epoch accesses (the fast path) only load atomics; all updates take a
// lock striped by granule.
type Space struct {
	// Read on every first access: on the Space's first cache line, not
	// after the page table and 64 KiB of stripes.
	noRuns  bool // tests and benchmarks: per-granule state only
	noMaps  bool // tests and benchmarks: no mapped runs
	noFresh bool // tests: a granule for every first access
	// versions are the runtime's allocation versions (version.go), or
	// nil; set by NewSpace, and by tests.
	versions versionSource

	pages pageTable

	stripes [nstripes]struct {
		spin.Mutex
		_ [64 - unsafe.Sizeof(spin.Mutex{})]byte // a cache line's size per stripe
	}
	sweeping atomic.Bool
	again    atomic.Bool // a sweep was asked for while one ran (startSweep)
	// sweepGen is the count of completed cycles when the last sweep
	// began (stall.go).
	sweepGen atomic.Uint64
	frontier frontierHook // SetFrontier

	snapshots atomic.Pointer[func()] // SetSnapshotRequest
}

// NewSpace returns an empty shadow memory that is swept of the state of dead
// objects after garbage collections. The Space (100 KiB, its stripes and
// page directory) is the detector's (internal/ownheap), as the rest of the
// shadow's heap objects.
func NewSpace() *Space {
	s := ownheap.New[Space]()
	s.versions = runtimeVersionPage
	registerSpace(s)
	return s
}

type page struct {
	mu   spin.Mutex
	live int         // non-nil slots and fresh entries; guarded by mu
	dead atomic.Bool // removed from the page table; set under mu
	kind atomic.Uint32
	// foreignIn is 1 + the generation in which the page was found to be
	// outside the heap and the globals (track), 0 if never: a stack span
	// may hold heap objects in a later generation.
	foreignIn atomic.Uint32
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

	// The fresh entries of nil slots (fresh.go): the array, off the
	// heap, while the page has entries; the number of times an array
	// left the page; the generation of the entries; their number (also
	// counted in live), the descriptors in use and the last one
	// recorded (1 + its index), guarded by mu.
	fresh  freshRef
	fver   atomic.Uint32
	fgen   atomic.Uint32
	nfresh int
	ndesc  uint8
	flast  uint8
	// firsts counts, up to freshDense, the granules first made for
	// first accesses of the page's nil slots (see dense).
	firsts atomic.Uint32
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
		// A fresh array (newSlots clears it) that gets a nil full, the
		// first slot of a clean page, needs no store at all: an atomic
		// store per slot was a fifth of the first access of fresh
		// memory (BenchmarkFreshObject).
		if a[i].Load() != f {
			storeSlot(&a[i], f)
		}
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
	// the granule's cells record, as of generation gen (see validate),
	// or adopted. Written under the stripe lock; atomic because the
	// lock-free paths (exclusive) read it. It fits in the padding after
	// hi.
	owner atomic.Uint32
	split atomic.Pointer[parts]
	whole cell

	// GC reuse state, guarded by the granule's stripe lock. See gc.go.
	immortal bool // memory is never freed (globals)
	foreign  bool // memory outside the heap: no weak pointer
	// vok says ver, the allocation version of the granule's word when
	// gen cycles had completed, proves that the state is its object's
	// (see granule.versionLive); the granule then needs no ident and
	// may stay off the heap. Both fit in the padding before gen.
	vok bool
	ver uint8
	gen atomic.Uint32 // GC generation stamp; read by exclusive
	id  *ident        // proves the object is the one the state belongs to (ident.go)
}

// current reports whether gr's state was validated in generation gen,
// the current one: recorded or revalidated since the last GC cycle
// (validate and validateRun stamp it). A same-epoch fast path trusts
// nothing else: state of an earlier generation may belong to a dead
// object whose memory now holds another, and the goroutine whose
// current epoch it records may access the new object in that same
// epoch, which must then be recorded for it, not skipped.
func (gr *granule) current(gen uint32) bool { return gr.gen.Load() == gen }

// A cell is the FastTrack state of one shadow location.
type cell struct {
	w, r atomic.Uint64 // last write epoch; last read epoch or shared
	rvc  atomic.Pointer[readVC]
	// The sites of the accesses w and r record. Written with the
	// epochs, under the stripe lock or by exclusive, which is why they
	// are atomic; a report may pair an epoch with the site of the access
	// before it while the two are being written (report quality only).
	wsite, rsite atomic.Uint32
}

func (c *cell) empty() bool { return c.w.Load() == 0 && c.r.Load() == 0 }

// conflicts reports whether an earlier access at epoch e, recorded at the
// site *site holds, conflicts with t's access: it is not ordered before
// t, and not an atomic operation where t checks one (Thread.Atomic). The
// site is loaded only for an access not ordered before t.
func (t *Thread) conflicts(e Epoch, site *atomic.Uint32) bool {
	return !HB(e, t.VC) && !t.bothAtomic(site.Load())
}

// readsBefore returns the clock whose earlier reads a read vector clock
// that t's read finds full may leave out (readVC.grown): t's, or nil if t
// checks an atomic operation, which does not race with an atomic write
// that an earlier plain read does.
func (t *Thread) readsBefore() []uint64 {
	if t.Atomic != 0 {
		return nil
	}
	return t.VC
}

// bothAtomic reports whether t checks an atomic operation and an earlier
// access at site was one.
func (t *Thread) bothAtomic(site uint32) bool {
	return t.Atomic != 0 && site == t.Atomic
}

func (c *cell) copyFrom(o *cell) {
	c.w.Store(o.w.Load())
	c.r.Store(o.r.Load())
	c.copySites(o)
	if v := o.rvc.Load(); v != nil {
		c.rvc.Store(v.copied())
	}
}

// copySites sets c's sites to o's.
func (c *cell) copySites(o *cell) {
	c.wsite.Store(o.wsite.Load())
	c.rsite.Store(o.rsite.Load())
}

// cross reports whether the cell records an access by a thread other than t.
func (c *cell) cross(t *Thread) bool {
	tid := t.Epoch.TID()
	w, r := c.w.Load(), c.r.Load()
	return w != 0 && Epoch(w).TID() != tid || r == shared || r != 0 && Epoch(r).TID() != tid
}

// same is the lock-free fast path: it reports whether the access is in the
// same epoch as the recorded one ([READ SAME EPOCH], [READ SHARED SAME
// EPOCH], [WRITE SAME EPOCH]). It is over the inlining budget, so the
// hottest loops (Space.Same, Space.fast, parts.same, the runs' same-epoch
// checks) spell it out with sameOwn and sameShared, which inline.
func (c *cell) same(t *Thread, write bool) bool {
	return c.sameOwn(t, write) || !write && (c.sameShared(t) || c.ownWrite(t))
}

// sameOwn is same for the epoch word of the access's kind (w for a
// write, r for a read) holding t's epoch ([READ SAME EPOCH], [WRITE SAME
// EPOCH]). It inlines, so that Same, the out-of-line part of every check,
// makes no further call in the same-epoch case.
func (c *cell) sameOwn(t *Thread, write bool) bool {
	word, rule := &c.r, ReadSameEpoch
	if write {
		word, rule = &c.w, WriteSameEpoch
	}
	if word.Load() != uint64(t.Epoch) {
		return false
	}
	t.Stats.Rules[rule]++
	return true
}

// ownWrite is same for a read of a cell whose last write is t's, in t's
// current epoch. Such a read needs recording no more than one of the same
// epoch ([READ SAME EPOCH] applied to the write): a later access conflicts
// with it only if it is another goroutine's write not ordered after t's
// epoch, which then conflicts with the write, and every check looks at the
// write first (cell.check); a later write of the cell is one ordered after
// t's, or a race. ThreadSanitizer's shadow lets a write of the same thread
// and epoch cover a read likewise, and the model of shadow's differential
// test counts such a read as in the epoch. Every path that records a
// read applies it (readMay, exclusive, the runs' checks in runs.go and
// mapped.go), so that each representation records the same state; the
// granules' inlined fast paths do not (one more load), and leave such a
// read to those. For a run it matters most: reading what a goroutine
// wrote in this epoch does not refine it. A sort of a copy it just made
// compares elements one field at a time, and each read cut a run, a new
// run on the heap per cut (sortrec: two thirds of its objects).
func (c *cell) ownWrite(t *Thread) bool {
	if c.w.Load() != uint64(t.Epoch) {
		return false
	}
	t.Stats.Rules[ReadSameEpoch]++
	return true
}

// sameShared is same for a read of a read-shared cell: t's entry in the
// read vector clock holds t's current clock ([READ SHARED SAME EPOCH]).
func (c *cell) sameShared(t *Thread) bool {
	return c.r.Load() == shared && c.sharedHolds(t)
}

// access is check returning the conflict, for callers off the hot path
// (runs and mapped runs).
func (c *cell) access(t *Thread, write bool, site uint32) (race Race, found bool) {
	found = c.check(t, write, site, &race)
	return race, found
}

// check applies the FastTrack rule for an access by t to c, with the
// stripe lock held, and reports whether it conflicts with an earlier
// access, which it then stores in *out (only then: out may hold an
// earlier conflict of the same check). After a conflict the state is
// updated as if there were none, so that one race is reported once.
//
// The conflict travels through out, not as a result: a Race returned by
// value through the four calls of the slow path was stored field by
// field and copied as a whole at every level, and each copy stalled on
// store-to-load forwarding (most of the slow path's time in a profile of
// bench/workloads/shardmap), though there is no race to copy.
//
// The lock excludes other locked updates, not exclusive, which records
// its owner's accesses with a compare-and-swap of one epoch word. So
// check records an access in its own word first (a swap of w, a
// compare-and-swap of r) and only then loads the other word to check
// it, as exclusive does: of a locked access and a concurrent exclusive
// one, at least one sees the other, and a write that exclusive records
// between the load and the swap is returned by the swap and checked.
func (c *cell) check(t *Thread, write bool, site uint32, out *Race) (found bool) {
	t.Stats.Checks++
	if !write {
		found, _ = c.readMay(t, site, out, true)
		return found
	}
	e := t.Epoch
	w := Epoch(c.w.Load())
	if w == e && !t.recheck {
		t.Stats.Rules[WriteSameEpoch]++
		return
	}
	psite := c.wsite.Load()
	if checkHook != nil {
		checkHook()
	}
	if old := Epoch(c.w.Swap(uint64(e))); old != w {
		w, psite = old, c.wsite.Load() // exclusive wrote meanwhile
	}
	setSite(&c.wsite, site)
	if !HB(w, t.VC) && !t.bothAtomic(psite) { // write-write race
		*out, found = Race{Prev: w, PrevSite: psite, PrevWrite: true}, true
	}
	r := c.r.Load()
	if r != shared {
		t.Stats.Rules[WriteExclusive]++
		if !found && t.conflicts(Epoch(r), &c.rsite) { // read-write race
			*out, found = Race{Prev: Epoch(r), PrevSite: c.rsite.Load()}, true
		}
		return
	}
	// Read-shared: exclusive never changes a shared read state;
	// sharedRead may change an entry until scanShared takes it.
	t.Stats.Rules[WriteShared]++
	if c.scanShared(t, out, !found, true) {
		found = true
	}
	// The read vector clock, every entry taken, stays for the cell's
	// next read-share (reshared).
	c.r.Store(0)
	return
}

// readMay is check for a read, except that if share is false, a read
// that would make the cell read-shared (give it a read vector clock)
// records nothing and readMay reports ok false.
func (c *cell) readMay(t *Thread, site uint32, out *Race, share bool) (found, ok bool) {
	e := t.Epoch
	tid, clk := e.TID(), e.Clock()
	for {
		r := c.r.Load()
		if (r == uint64(e) || c.w.Load() == uint64(e)) && !t.recheck { // or ownWrite
			t.Stats.Rules[ReadSameEpoch]++
			return false, true
		}
		if r == shared && c.rvc.Load().has(e) && !t.recheck {
			t.Stats.Rules[ReadSharedSameEpoch]++
			return false, true
		}
		if checkHook != nil {
			checkHook()
		}
		switch {
		case r != shared && HB(Epoch(r), t.VC):
			if !c.r.CompareAndSwap(r, uint64(e)) {
				continue // exclusive recorded a read meanwhile
			}
			t.Stats.Rules[ReadExclusive]++
			setSite(&c.rsite, site)
		case !share:
			return false, false
		case r != shared:
			v := c.rvc.Load().reshared().with(Epoch(r).TID(), Epoch(r).Clock(), c.rsite.Load(), nil).with(tid, clk, site, t.readsBefore())
			c.rvc.Store(v)
			if !c.r.CompareAndSwap(r, shared) {
				v.takeAll() // exclusive recorded a read meanwhile
				continue
			}
			t.Stats.Rules[ReadShare]++
		default:
			t.Stats.Rules[ReadShared]++
			v := c.rvc.Load()
			if nv := v.with(tid, clk, site, t.readsBefore()); nv != v {
				c.rvc.Store(nv)
			}
		}
		break
	}
	// After recording the read (see check).
	if w := Epoch(c.w.Load()); t.conflicts(w, &c.wsite) { // write-read race
		*out, found = Race{Prev: w, PrevSite: c.wsite.Load(), PrevWrite: true}, true
	}
	return found, true
}

// scanShared reports whether a read that c's read vector clock records
// is concurrent with t, storing the one of the smallest thread id in *out
// if report is set.
// If take is set, it takes every entry (takeEntry): the caller drops the
// read vector clock.
func (c *cell) scanShared(t *Thread, out *Race, report, take bool) (found bool) {
	v := c.rvc.Load()
	if v == nil {
		return false
	}
	var first Epoch // the conflicting read reported
	for i := range v.ents {
		var x Epoch
		if take {
			x = v.takeEntry(i)
		} else if y := v.ents[i].e.Load(); y != frozen {
			x = Epoch(y)
		}
		// Of several conflicting reads, the smallest thread id's is
		// reported, whatever the order of the entries (as the
		// detector's channel states do, TestChanAccessModel).
		if x != 0 && (!found || x.TID() < first.TID()) && t.conflicts(x, &v.ents[i].site) {
			found, first = true, x
			if report {
				*out = Race{Prev: x, PrevSite: v.ents[i].site.Load()}
			}
		}
	}
	return found
}

// setSite stores site in *a unless it is there already: a store is a
// locked instruction, and an access usually comes from the same site as
// the access before it.
//
// The lock-free updates (exclusiveCell, setEntry) swap an
// epoch in and store its site apart, and a goroutine that checks the
// cell meanwhile sees the one without the other. The site says whether
// the access was an atomic operation (Thread.Atomic), which no atomic
// operation conflicts with: an atomic load's epoch beside the site of
// the plain read it replaced made another goroutine's atomic store a
// race go -race does not report (otter's concurrent map: a read under a
// bucket's lock, then a lock-free atomic load of the slot, against a
// store under the lock). So an atomic access stores its site before its
// epoch and a plain one after it: in either window, and after a swap that
// fails, the site may call a plain access atomic, which can hide a race
// for that moment, and never the other way, which would invent one.
func setSite(a *atomic.Uint32, site uint32) {
	if a.Load() != site {
		a.Store(site)
	}
}

// take empties c's epochs and returns them, for a copy that moves c's
// state elsewhere (promote, a split). exclusive only replaces a nonzero
// epoch, so once they are taken it cannot record an access here that the
// copy misses: it either recorded it before, and take returns it, or its
// compare-and-swap fails.
func (c *cell) take() (w, r uint64) {
	return c.w.Swap(0), c.r.Swap(0)
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
	found = s.Check(t, p, size, write, site, &race)
	return race, found
}

// Check is Access storing the conflict in *out, which it writes only if
// it reports one: it spares the caller the copy of a Race result on every
// call (see cell.check).
//
// An access within one granule whose state is a plain granule of the
// page t used last, the case after a failed Same (the first access of
// the granule in an epoch: every write after a release or an acquire),
// goes from here straight to the lock-free path (exclusive), with one
// lookup of the granule and no further call. Everything else goes to the
// general loop (check), which decides it exactly as before: a run, a
// split granule, bounds that differ from the access's, a disabled
// goroutine, an address on the stack, and whatever exclusive declines
// (the epoch already recorded among them).
//
// An empty slot there, the first access of fresh memory (or its
// same-epoch repetition), goes to the fresh entry's checks
// (freshAccess) from here too, unless the slot has an entry already: a
// second access of it needs the locked path, which absorbs the entry. So
// does an empty slot of a page t has not cached (checkPage): the first
// object a goroutine initializes in each new page.
func (s *Space) Check(t *Thread, p unsafe.Pointer, size uintptr, write bool, site uint32, out *Race) (found bool) {
	t.Recorded = t.Epoch
	a := uintptr(p)
	off := a & 7
	if off+size <= 8 && size != 0 && t.Disabled <= 0 {
		pg := t.cache
		if pg == nil || t.cacheKey != a>>pageShift {
			return s.checkPage(t, p, size, write, site, out)
		}
		gi := (a & (pageSize - 1)) >> 3
		gr := pg.slot(gi)
		if gr == nil && !onStack(t.GP, p) {
			// p is not on this goroutine's stack, so a is its address.
			return s.freshAccess(t, pg, gi, p, size, write, site, out)
		}
		if gr != nil && !gr.isRun() && uintptr(gr.lo) == off && uintptr(gr.hi) == off+size &&
			gr.split.Load() == nil && !onStack(t.GP, p) {
			// p is not on this goroutine's stack, so a is its address.
			if done, found := s.exclusive(t, p, gr, uint8(off), uint8(off+size), write, site, out); done {
				return found
			}
		}
		if gr != nil && !gr.isRun() && !onStack(t.GP, p) {
			// One part of a split granule: a byte field beside a word
			// one in a table many goroutines read, a byte of a pixel
			// row written anew in each epoch.
			if sp := gr.split.Load(); sp != nil && sp.onePart(uint8(off), uint8(off+size)) {
				if done, found := s.exclusivePart(t, p, gr, sp, uint8(off), write, site, out); done {
					return found
				}
			}
		}
	}
	return s.check(t, p, size, write, site, out)
}

// checkPage is Check for an access within one granule of a page t has
// not cached: usually the first object a goroutine initializes in a new
// page of fresh memory. It caches the page (creating it, as slow would:
// check's fast path finds no state in a page that does not exist) and
// takes an empty slot to freshAccess, which spares the first access of
// each new page the check, fast and slow frames and a second lookup of
// the page table; everything else goes to check, as before.
func (s *Space) checkPage(t *Thread, p unsafe.Pointer, size uintptr, write bool, site uint32, out *Race) (found bool) {
	if !onStack(t.GP, p) {
		// p is not on this goroutine's stack, so a is its address.
		a := uintptr(p)
		key, gi := a>>pageShift, (a&(pageSize-1))>>3
		pg := s.page(key)
		t.cacheKey, t.cache = key, pg
		if pg.slot(gi) == nil {
			return s.freshAccess(t, pg, gi, p, size, write, site, out)
		}
	}
	return s.check(t, p, size, write, site, out)
}

// check is Check's general loop: each granule the access covers gets
// the same-epoch check (fast), the lock-free path (exclusive) or the
// locked one (slow).
func (s *Space) check(t *Thread, p unsafe.Pointer, size uintptr, write bool, site uint32, out *Race) (found bool) {
	for off := uintptr(0); off < size; {
		q := unsafe.Add(p, off)
		a := uintptr(q)
		n := 8 - a&7
		if n > size-off {
			n = size - off
		}
		lo, hi := uint8(a&7), uint8(a&7+n)
		gr, same := s.fast(t, a, lo, hi, write)
		if same {
			off += n
			continue
		}
		if gr != nil && !found && t.Disabled <= 0 && !onStack(t.GP, q) {
			// q is not on this goroutine's stack, so a is still its address.
			if done, ok := s.exclusive(t, q, gr, lo, hi, write, site, out); done {
				found = found || ok
				off += n
				continue
			}
		}
		if found {
			var r Race // only the first conflict is reported
			s.slow(t, q, lo, hi, write, site, &r)
		} else {
			found = s.slow(t, q, lo, hi, write, site, out)
		}
		off += n
	}
	if found {
		out.Write = write
	}
	return found
}

// AccessSparse is Access for one element of a sparse set of elements
// checked together (a footprint's side set: a conditional a[i], a
// gather): if it falls in a block run, the run keeps one state per
// element in a map (mapped.go) instead of giving the element's granule
// per-granule state. A lone access (Access) cuts the run around its
// granule, which suits the elements a shrinking pattern leaves behind
// one by one (the pivot column of LU factorization).
func (s *Space) AccessSparse(t *Thread, p unsafe.Pointer, size uintptr, write bool, site uint32) (race Race, found bool) {
	t.Recorded = t.Epoch
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
	t.Recorded = t.Epoch
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
	gen := uint32(lagGen.Load())
	for off := start; off < end; {
		a := uintptr(base) + off
		key := a >> pageShift
		pg := t.cache
		if t.cacheKey != key || pg == nil {
			pg = s.pages.lookup(key)
		}
		gi := (a & (pageSize - 1)) >> 3
		gn := min(uintptr(granulesPerPage), gi+(end-off)>>3)
		n := uintptr(0) // granules in the current epoch
		if pg != nil {
			for ; gi+n < gn; n++ {
				gr := pg.slot(gi + n)
				if gr == nil || gr.lo != 0 || gr.hi != 8 || !gr.current(gen) {
					break
				}
				if gr.whole.w.Load() != e && (write || gr.whole.r.Load() != e) { // or cell.ownWrite
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
			if !pg.add(gi, gr, true) {
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
		if found {
			var r Race // only the first conflict is reported
			s.update(t, pg, gi, gr, a, 0, 8, write, site, &r)
		} else if s.update(t, pg, gi, gr, a, 0, 8, write, site, &race) {
			found = true
			race.Addr = a
		}
	}
	mu.Unlock()
	return race, found
}

// sameSpan reports whether every granule of [a, a+size) is in t's cached
// page and already records this epoch in a whole cell that covers the
// bytes the access covers (a cell's state is that of each of its bytes).
func (s *Space) sameSpan(t *Thread, a, size uintptr, write bool) bool {
	pg := t.cache
	if pg == nil || t.cacheKey != a>>pageShift || (a+size-1)>>pageShift != t.cacheKey {
		return false
	}
	e := uint64(t.Epoch)
	gen := uint32(lagGen.Load())
	for end := a + size; a < end; {
		off := a & 7
		n := min(8-off, end-a)
		gr := pg.slot((a & (pageSize - 1)) >> 3)
		if gr == nil || uintptr(gr.lo) > off || uintptr(gr.hi) < off+n || !gr.current(gen) {
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

// Same is the fast path of Access: it reports whether the access of
// [a, a+size) by t is in the epoch already recorded ([READ SAME EPOCH],
// [READ SHARED SAME EPOCH], [WRITE SAME EPOCH]), in which case there is
// nothing to do. Otherwise the caller calls Access.
//
// Its common case, an access within one granule of the page t used
// last whose whole cell records t's current epoch, is Thread.Cached and
// Granule.Same, which inline; SameIn decides the rest in the granule
// Cached found, SameMiss everything else. The detector's
// check, the caller of every access, writes the three out (see Cached).
func (s *Space) Same(t *Thread, a, size uintptr, write bool) bool {
	gr := t.Cached(a)
	if gr == nil {
		return s.SameMiss(t, a, size, write)
	}
	return gr.Same(t, a, size, write) || s.SameIn(t, gr, a, size, write)
}

// A Granule is the shadow state of 8 aligned bytes, as Thread.Cached
// returns it for the inlined fast path.
type Granule = granule

// Cached returns the state of the granule at a if it is in the page t
// used last and has a slot there (a granule or a run), or nil. With
// Granule.Same, it is the inlined part of Same, which callers on the
// hottest path (the detector's check of every access) write out:
//
//	gr := t.Cached(a)
//	if gr != nil && (gr.Same(t, a, size, write) || space.SameIn(t, gr, a, size, write)) ||
//		gr == nil && space.SameMiss(t, a, size, write) {
//		// same epoch: nothing to do
//	}
//
// Each of the two is within the compiler's inlining budget, which Same
// as one function is not: a same-epoch access then costs no call, an
// index into the page's slot array, a load of the granule and a few
// comparisons.
func (t *Thread) Cached(a uintptr) *Granule {
	pg := t.cache
	if t.cacheKey != a>>pageShift || pg == nil {
		return nil
	}
	arr := pg.arr.Load()
	if arr == nil {
		return nil // a clean page, or a run over the whole page
	}
	return arr[(a&(pageSize-1))>>3].Load()
}

// Same reports whether gr, the granule of a (Thread.Cached), decides an
// access of size bytes at a by t in t's current epoch: its whole cell
// covers the access's bytes (a run's never does) and records t's
// current epoch in the word of the access's kind, in the current GC
// generation (see granule.current). It counts the check if so. A false
// result decides nothing: the caller calls SameMiss.
func (gr *Granule) Same(t *Thread, a, size uintptr, write bool) bool {
	word, rule := &gr.whole.r, ReadSameEpoch
	if write {
		word, rule = &gr.whole.w, WriteSameEpoch
	}
	if uintptr(gr.lo) > a&7 || uintptr(gr.hi) < a&7+size || gr.gen.Load() != atomic.LoadUint32(genWord) ||
		word.Load() != uint64(t.Epoch) {
		return false
	}
	t.Stats.Checks++
	t.Stats.Rules[rule]++
	return true
}

// SameMiss is Same for the callers that tried Thread.Cached and
// Granule.Same first: it decides every access those do not. A whole
// cell's state is that of each byte it covers, so an access of part of
// its bytes is in its epoch too (a byte of a bytes.Buffer that one copy
// wrote whole).
//
// The page is t's cached one or, for an access to another page, the page
// table's (which t then caches, as fast does): code that alternates
// between objects on a few pages (a decoder's state, its input and the
// value it fills) would otherwise take every access of a page it left to
// Access, through Check and checkPage to fast, to find the same epoch
// there.
func (s *Space) SameMiss(t *Thread, a, size uintptr, write bool) bool {
	off := a & 7
	if off+size > 8 {
		return s.sameWide(t, a, size, write)
	}
	pg := t.cache
	if key := a >> pageShift; t.cacheKey != key || pg == nil {
		if pg = s.pages.lookup(key); pg == nil {
			return false
		}
		t.cacheKey, t.cache = key, pg
	}
	arr := pg.arr.Load()
	if arr == nil {
		return false // a clean page, or a run over the whole page
	}
	gr := arr[(a&(pageSize-1))>>3].Load()
	if gr == nil {
		return false
	}
	return s.sameIn(t, gr, off, size, write)
}

// SameIn is SameMiss for the callers that have the granule of a from
// Thread.Cached, in which Granule.Same found no own epoch: a miss then
// does not look the granule up again. An access of several granules
// goes to sameWide, as in SameMiss.
func (s *Space) SameIn(t *Thread, gr *Granule, a, size uintptr, write bool) bool {
	off := a & 7
	if off+size > 8 {
		return s.sameWide(t, a, size, write)
	}
	return s.sameIn(t, gr, off, size, write)
}

// sameIn is the end of SameMiss and SameIn for an access of the bytes
// [off, off+size) of gr, a granule in its slot.
func (s *Space) sameIn(t *Thread, gr *granule, off, size uintptr, write bool) bool {
	if uintptr(gr.lo) > off || uintptr(gr.hi) < off+size ||
		!gr.whole.sameOwn(t, write) && (write || !gr.whole.sameShared(t) && !gr.whole.ownWrite(t)) { // cell.same, spelled out so that it inlines
		// A split granule's whole cell is empty: its parts hold the
		// state (accesses of adjacent fields, or the uint16 halves of a
		// read-shared key table, need not leave the fast path for
		// Access). The test of split here spares the first access in
		// an epoch of an unsplit granule a call.
		sp := gr.split.Load()
		if sp == nil || !gr.current(uint32(lagGen.Load())) {
			return false
		}
		return sp.same(t, off, off+size, write)
	}
	if !gr.current(uint32(lagGen.Load())) {
		return false
	}
	t.Stats.Checks++
	return true
}

// wideMax is the most bytes of an access that sameWide decides.
const wideMax = 64

// sameWide is Same for an access of up to wideMax bytes over several
// granules of one page: a string, slice or interface header, a small
// struct read or written whole. Each granule decides its bytes as in
// Same. Without it, every such access went from Same to Access's loop,
// which found the same epoch there granule by granule (fast).
func (s *Space) sameWide(t *Thread, a, size uintptr, write bool) bool {
	if size > wideMax || (a+size-1)>>pageShift != a>>pageShift {
		return false
	}
	pg := t.cache
	if key := a >> pageShift; t.cacheKey != key || pg == nil {
		if pg = s.pages.lookup(key); pg == nil {
			return false
		}
		t.cacheKey, t.cache = key, pg
	}
	arr := pg.arr.Load()
	if arr == nil {
		return false
	}
	gen := uint32(lagGen.Load())
	for end := a + size; a < end; {
		off := a & 7
		n := min(8-off, end-a)
		gr := arr[(a&(pageSize-1))>>3].Load()
		if gr == nil || !gr.current(gen) {
			return false
		}
		if uintptr(gr.lo) <= off && uintptr(gr.hi) >= off+n &&
			(gr.whole.sameOwn(t, write) || !write && (gr.whole.sameShared(t) || gr.whole.ownWrite(t))) { // cell.same, inlined
			t.Stats.Checks++
		} else if sp := gr.split.Load(); sp == nil || !sp.same(t, off, off+n, write) {
			return false
		}
		a += n
	}
	return true
}

// SameRange is Same for an access of any length: it reports whether every
// granule of [a, a+size) records t's current epoch for the bytes the
// access covers, in whatever form holds the granule's state (a whole
// cell, parts, a run, a fresh entry; see fast), in which case there is
// nothing to do. It changes nothing, and a false result decides nothing:
// the caller calls Check, which finds the same granules in the epoch
// again up to the first that is not, usually the first granule.
func (s *Space) SameRange(t *Thread, a, size uintptr, write bool) bool {
	for end := a + size; a < end; {
		n := min(8-a&7, end-a)
		if _, same := s.fast(t, a, uint8(a&7), uint8(a&7+n), write); !same {
			return false
		}
		a += n
	}
	return true
}

// fast is the lock-free same-epoch check of the bytes [lo, hi) of the
// granule at addr, in Access's loop; a whole cell that covers [lo, hi)
// decides it (see Same). When it fails at the whole cell of a granule
// that covers exactly [lo, hi), it returns that granule, from the page
// t.cache, for exclusive.
func (s *Space) fast(t *Thread, addr uintptr, lo, hi uint8, write bool) (*granule, bool) {
	key := addr >> pageShift
	pg := t.cache
	if t.cacheKey != key || pg == nil {
		if pg = s.pages.lookup(key); pg == nil {
			return nil, false
		}
		t.cacheKey, t.cache = key, pg
	}
	gi := (addr & (pageSize - 1)) >> 3
	gr := pg.slot(gi)
	if gr == nil {
		return nil, pg.sameFresh(t, gi, lo, hi, write)
	}
	if gr.isRun() {
		return nil, asRun(gr).sameBytes(t, gi, addr, uintptr(hi-lo), write)
	}
	if !gr.current(uint32(lagGen.Load())) {
		return nil, false // validate first (exclusive would decline too)
	}
	if sp := gr.split.Load(); sp != nil {
		return nil, sp.same(t, uintptr(lo), uintptr(hi), write)
	}
	if gr.lo > lo || gr.hi < hi {
		return nil, false
	}
	if !gr.whole.sameOwn(t, write) && (write || !gr.whole.sameShared(t) && !gr.whole.ownWrite(t)) { // cell.same, inlined
		if gr.lo != lo || gr.hi != hi {
			return nil, false
		}
		return gr, false
	}
	t.Stats.Checks++
	return nil, true
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
		pg, loaded := s.pages.LoadOrStore(key, ownheap.New[page])
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

// slow is the slow path of Access for the bytes [lo, hi) of the granule
// at p: it reports whether the access conflicts, storing the conflict in
// *out (only then).
func (s *Space) slow(t *Thread, p unsafe.Pointer, lo, hi uint8, write bool, site uint32, out *Race) bool {
	if t.Disabled > 0 || onStack(t.GP, p) {
		return false
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
		if gr == nil && !pg.maybeFresh(gi) && s.first(t, pg, gi, addr, lo, hi, write, site) {
			return false
		}
		locked := gr == nil || !gr.isRun()
		if locked {
			mu.Lock()
			gr = pg.slot(gi)
		}
		if gr == nil {
			gr = newGranule(t, lo, hi, uint32(lagGen.Load()))
			if !pg.add(gi, gr, true) {
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
			if found {
				*out = race
			}
			return found
		}
		found := s.update(t, pg, gi, gr, addr, lo, hi, write, site, out)
		mu.Unlock()
		if found {
			out.Addr = addr
		}
		return found
	}
}

// Test hooks, at the points where another goroutine may interleave:
// exclusiveHook in exclusive between its loads and its compare-and-swap,
// moveHook in promote, a split and the growth of a read vector clock
// between taking a cell's epochs or entries and storing them in the new
// state, checkHook in a locked update between its
// first load of its own epoch word and its store of it.
var exclusiveHook, moveHook, checkHook func()

// exclusive is the lock-free path of the first access in an epoch of a
// granule whose state only t recorded (issue #12): gr, the granule of
// address a in the page t.cache (as Check or fast found it), is not
// split and covers exactly [lo, hi); t owns it in the current GC
// generation (validate would return it as it is); and the
// epoch that this kind of access records (w for a write, r for a read)
// is an earlier epoch of t, which happens before t's current one. The
// access is then recorded by a compare-and-swap of that one word from
// the earlier epoch to the current one (and the site), with no lock and
// no allocation: the first write of a location in each epoch of a
// goroutine that alternates with others on a lock (WriteExclusive) or
// that takes a lock between accesses of its own data.
//
// It reports whether it recorded the access (done) and whether the
// access conflicts (found, with the conflict in *out, its Addr and Write
// set). It leaves the
// access to the locked path (done false) whenever anything is unusual:
// another goroutine's state in the cell, a read-shared state, or a
// failed compare-and-swap; a granule that left its slot after the
// compare-and-swap goes to redo.
//
// Why the update cannot be lost or hidden:
//   - Locked updates record an access in its own word (a swap of w, a
//     compare-and-swap of r) before they load the other word, and
//     exclusive loads the other word after its compare-and-swap, so of a
//     locked access and a concurrent exclusive one at least one sees the
//     other (see cell.check). A locked writer's swap returns an epoch
//     exclusive wrote after the writer's first load, which it checks.
//   - Code that moves the cell's state elsewhere (promote, a split) takes
//     the epochs first (cell.take), leaving zeros, which exclusive never
//     replaces. A granule freed (retire) holds zeros too, and a recycled
//     granule can never hold t's earlier epoch: only t records its own
//     epochs, and only while they are current. But once gr left its slot
//     its other word may be its next user's, another address's state
//     (offheap.go recycles a block at once), so exclusive trusts the
//     other word only if gr is still in its slot after loading it, and
//     settle looks again under the lock; otherwise the access goes to
//     redo, which checks it where the state is now.
//   - The GC state: the owner and generation checks are validate's own
//     shortcut. State that the sweeper drops after the check was
//     recorded in an older generation and would have been dropped with
//     the access on the locked path too.
//
// A race report in the window may pair the new epoch with the site of
// the access before it (the site is stored after the epoch).
func (s *Space) exclusive(t *Thread, p unsafe.Pointer, gr *granule, lo, hi uint8, write bool, site uint32, out *Race) (done, found bool) {
	tid := t.Epoch.TID()
	// The caller (Check, or fast in check's loop) checked the bounds
	// and that gr is not split. (A split since then took the whole
	// cell's epochs: the compare-and-swap fails.)
	if own := gr.owner.Load(); own != tid+1 && own != adopted || gr.gen.Load() != uint32(lagGen.Load()) {
		return false, false
	}
	c := &gr.whole
	if !write && c.ownWrite(t) {
		t.Stats.Checks++
		return true, false
	}
	if !write && c.r.Load() == shared {
		return s.sharedRead(t, p, gr, site, out)
	}
	return s.exclusiveCell(t, p, gr, nil, c, lo, hi, write, site, out)
}

// exclusiveCell is the end of exclusive and exclusivePart: it records t's
// access of the bytes [lo, hi) in c, the whole cell of gr (sp nil) or
// one of its parts sp, with a compare-and-swap of the word of the
// access's kind, if that word holds an earlier epoch of t and the other
// word only t's accesses (or none). gr is owned by t or adopted, in the
// current generation.
func (s *Space) exclusiveCell(t *Thread, p unsafe.Pointer, gr *granule, sp *parts, c *cell, lo, hi uint8, write bool, site uint32, out *Race) (done, found bool) {
	a := uintptr(p) // p is not on t's stack: its address
	tid := t.Epoch.TID()
	own, other, sites := &c.w, &c.r, &c.wsite
	if !write {
		own, other, sites = &c.r, &c.w, &c.rsite
	}
	old, o := own.Load(), other.Load()
	if old == 0 || old == shared || Epoch(old).TID() != tid || old == uint64(t.Epoch) ||
		o == shared || o != 0 && Epoch(o).TID() != tid {
		return false, false
	}
	atomicFirst := t.Atomic != 0 // see setSite
	if atomicFirst {
		setSite(sites, site)
	}
	if exclusiveHook != nil {
		exclusiveHook()
	}
	if !own.CompareAndSwap(old, uint64(t.Epoch)) {
		return false, false
	}
	if !atomicFirst {
		setSite(sites, site)
	}
	o = other.Load()
	pg, gi := t.cache, (a&(pageSize-1))>>3
	if pg.slot(gi) != gr || gr.split.Load() != sp {
		// gr left its slot (promote, a split, the sweeper), or its
		// parts were refined or merged: the state, with the access if
		// the move came after the compare-and-swap, is elsewhere or
		// gone, and o may be the cell's next user's.
		return true, s.redo(t, p, lo, hi, write, site, out)
	}
	t.Stats.count(write, WriteExclusive, ReadExclusive)
	if o == 0 || o != shared && Epoch(o).TID() == tid {
		return true, false // only t's accesses: no conflict
	}
	// Another goroutine recorded an access meanwhile: a conflict unless
	// it happens before t, which the locked path decides.
	return true, s.settle(t, p, pg, gi, gr, sp, lo, hi, write, site, out)
}

// exclusivePart is exclusive for an access of the one part of split
// granule gr (parts sp) at byte lo: a read of a read-shared part goes to
// sharedReadPart, a read of t's own write in the epoch is done, and
// otherwise the part's word of the access's kind is swapped from t's
// earlier epoch to its current one, as in exclusive (exclusiveCell). A
// []byte written a byte at a time by several sites, a pixel's four
// channels, is split into parts of one byte, and each epoch's first
// write of each byte took the stripe lock.
//
// A part's state moves only under the stripe lock, and every move takes
// its epochs (copyTo, for a refinement or a promote; a merge needs
// every part to hold the merging goroutine's current write, which no
// other goroutine's compare-and-swap expects; retire and freeParts zero
// them): a compare-and-swap after the move fails, one before it moves
// with the state, and the access, seeing gr or its parts replaced, is
// done again on the locked path (redo).
func (s *Space) exclusivePart(t *Thread, p unsafe.Pointer, gr *granule, sp *parts, lo uint8, write bool, site uint32, out *Race) (done, found bool) {
	tid := t.Epoch.TID()
	if own := gr.owner.Load(); own != tid+1 && own != adopted || gr.gen.Load() != uint32(lagGen.Load()) {
		return false, false
	}
	c := &sp.cells[lo>>sp.shift]
	if !write {
		if c.ownWrite(t) {
			t.Stats.Checks++
			return true, false
		}
		if c.r.Load() == shared {
			return s.sharedReadPart(t, p, gr, sp, lo, site, out)
		}
	}
	return s.exclusiveCell(t, p, gr, sp, c, lo, lo+1<<sp.shift, write, site, out)
}

// sharedRead is exclusive for a read of a read-shared cell ([READ
// SHARED]) in which t already has an entry: it sets the entry with a
// compare-and-swap, then checks the last write, which happens before t
// in the common case (readers of data a writer published under a lock).
// Locked writers swap the write epoch before they scan the entries, and
// every locked update that replaces or drops the read vector clock takes
// its entries first (takeEntry), so the read is either seen by them or
// not recorded here (the compare-and-swap fails, and the locked path
// records it). It leaves to the locked path a read vector clock without
// an entry for t, a last write that does not happen before t, and a
// granule that left its slot meanwhile.
func (s *Space) sharedRead(t *Thread, p unsafe.Pointer, gr *granule, site uint32, out *Race) (done, found bool) {
	a := uintptr(p) // p is not on t's stack: its address
	c := &gr.whole
	v, w, ok := c.setEntry(t, site)
	if !ok {
		return false, false
	}
	pg, gi := t.cache, (a&(pageSize-1))>>3
	if c.rvc.Load() != v || pg.slot(gi) != gr {
		// Replaced or dropped after the loads, perhaps with the read
		// (see exclusive): w may be another address's.
		return true, s.redo(t, p, gr.lo, gr.hi, false, site, out)
	}
	t.Stats.Checks++
	t.Stats.Rules[ReadShared]++
	if HB(w, t.VC) {
		return true, false
	}
	return true, s.settle(t, p, pg, gi, gr, nil, gr.lo, gr.hi, false, site, out)
}

// setEntry is the lock-free update of sharedRead and sharedReadPart: it
// sets t's entry in read-shared cell c's read vector clock to t's epoch
// with a compare-and-swap, if the clock has an entry for t, not frozen
// and not already of this epoch, and c's last write happens before t. It
// returns the clock and the last write loaded after the swap, which the
// caller checks against a move of the state meanwhile.
func (c *cell) setEntry(t *Thread, site uint32) (v *readVC, w Epoch, ok bool) {
	v = c.rvc.Load()
	i := v.find(t.Epoch.TID())
	if i < 0 {
		return nil, 0, false
	}
	x := v.ents[i].e.Load()
	if x == frozen || x == uint64(t.Epoch) || !HB(Epoch(c.w.Load()), t.VC) {
		return nil, 0, false
	}
	atomicFirst := t.Atomic != 0 // see setSite
	if atomicFirst {
		setSite(&v.ents[i].site, site)
	}
	if exclusiveHook != nil {
		exclusiveHook()
	}
	// The entry is t's (only t records t's epochs; others only freeze
	// it), so the swap fails exactly when it was taken meanwhile.
	if !v.ents[i].e.CompareAndSwap(x, uint64(t.Epoch)) {
		return nil, 0, false
	}
	if !atomicFirst {
		setSite(&v.ents[i].site, site)
	}
	return v, Epoch(c.w.Load()), true
}

// sharedReadPart is sharedRead for a read of the one part of split
// granule gr at byte lo, whose cell is read-shared with an entry for t:
// it sets the entry with a compare-and-swap, then checks the cell's last
// write. Its parts are written under the stripe lock but for these
// entries, and every locked update that replaces a part's read vector
// clock takes its entries first (readVC.with, a write's deflation,
// copyTo's refinement), so the read is either seen by it or not recorded
// here (the swap fails). Anything else, a clock, parts or granule that
// moved after the loads, or a last write not ordered before t, goes to
// the locked path (redo), which records the read again: the same epoch
// in the same entry.
func (s *Space) sharedReadPart(t *Thread, p unsafe.Pointer, gr *granule, sp *parts, lo uint8, site uint32, out *Race) (done, found bool) {
	a := uintptr(p) // p is not on t's stack: its address
	tid := t.Epoch.TID()
	if own := gr.owner.Load(); own != tid+1 && own != adopted || gr.gen.Load() != uint32(lagGen.Load()) {
		return false, false
	}
	c := &sp.cells[lo>>sp.shift]
	if c.r.Load() != shared {
		return false, false
	}
	v, w, ok := c.setEntry(t, site)
	if !ok {
		return false, false
	}
	hi := lo + 1<<sp.shift
	if pg, gi := t.cache, (a&(pageSize-1))>>3; c.rvc.Load() != v || gr.split.Load() != sp || pg.slot(gi) != gr || !HB(w, t.VC) {
		return true, s.redo(t, p, lo, hi, false, site, out)
	}
	t.Stats.Checks++
	t.Stats.Rules[ReadShared]++
	return true, false
}

// settle is the end of exclusive when, after it recorded t's access, the
// other word of the cell records another goroutine's access: under the
// stripe lock it checks that access, as update would, and starts afresh
// if the state belongs to a dead object (see update). The cell is gr's
// whole one, or, if sp is not nil, its part at byte lo. If gr left its
// slot (or sp its granule) before the lock was taken, it may hold
// another address's state already: redo checks the access where the
// state is now. A conflict it reports is complete: its Addr is p's, the
// access's address.
func (s *Space) settle(t *Thread, p unsafe.Pointer, pg *page, gi uintptr, gr *granule, sp *parts, lo, hi uint8, write bool, site uint32, out *Race) (found bool) {
	a := uintptr(p)
	mu := s.stripe(a>>pageShift, gi)
	mu.Lock()
	if pg.slot(gi) != gr || sp != nil && gr.split.Load() != sp {
		mu.Unlock()
		return s.redo(t, p, lo, hi, write, site, out)
	}
	defer mu.Unlock()
	c := &gr.whole
	if sp != nil {
		c = &sp.cells[lo>>sp.shift]
	}
	if write {
		if r := c.r.Load(); r == shared {
			found = c.scanShared(t, out, true, false)
		} else if t.conflicts(Epoch(r), &c.rsite) {
			*out, found = Race{Prev: Epoch(r), PrevSite: c.rsite.Load()}, true
		}
	} else if w := Epoch(c.w.Load()); t.conflicts(w, &c.wsite) {
		*out, found = Race{Prev: w, PrevSite: c.wsite.Load(), PrevWrite: true}, true
	}
	if found && !s.stillLive(gr, a) {
		gr = s.renew(t, pg, gi, gr, a, lo, hi)
		*out = Race{}
		found = gr.access(t, lo, hi, write, site, out)
	}
	if found {
		out.Addr, out.Write = a, write
	}
	return found
}

// redo applies t's access of the bytes [lo, hi) of p's granule on the
// locked path, after exclusive or sharedRead recorded it in a granule
// that then left its slot: the access moved with the state if the move
// came after its compare-and-swap, and what the lock-free path loaded
// after the move may be the block's next user's. The locked path checks
// the access against the state that is there now, even where that state
// records t's current epoch (t.recheck): a locked update that finished
// before the compare-and-swap saw neither t's access nor, after the
// move, t it.
func (s *Space) redo(t *Thread, p unsafe.Pointer, lo, hi uint8, write bool, site uint32, out *Race) bool {
	t.recheck = true
	found := s.slow(t, p, lo, hi, write, site, out)
	t.recheck = false
	return found
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
	// weak pointer lives on the heap (see tracked).
	gen := uint32(lagGen.Load())
	p := s.track(t, pg, addr, gen, false)
	if !p.immortal && p.id == nil && !s.noFresh && (pg.own.Load() == nil || pg.dense()) {
		// State proven by its word's version, or without a proof, on a
		// page without a slot array (new memory) or one dense in first
		// accesses: a fresh entry, no granule (fresh.go).
		switch pg.recordFresh(t, gi, lo, hi, write, site, gen, p, s.versions, addr>>pageShift) {
		case freshRecorded:
			return true
		case freshDeclined:
			return false
		}
		// No descriptor left: a granule, as on a page with a slot array.
	}
	return s.firstGranule(t, pg, gi, lo, hi, write, site, gen, p)
}

// firstGranule is the end of first: it records t's access of the bytes
// [lo, hi) of the empty slot gi in a new granule of generation gen with
// the proof track returned, and reports whether it did.
func (s *Space) firstGranule(t *Thread, pg *page, gi uintptr, lo, hi uint8, write bool, site uint32, gen uint32, p proof) bool {
	var gr *granule
	switch {
	case p.vok:
		gr = newGranule(t, lo, hi, gen)
		gr.ver, gr.vok = p.ver, true
	case p.id != nil:
		gr = heapGranule(lo, hi)
		gr.id = p.id
		initU32(&gr.gen, gen)
		madeHeapGranule()
	default:
		gr = newGranule(t, lo, hi, gen)
		gr.immortal = p.immortal
	}
	// gr is not published yet (initU32).
	initU32(&gr.owner, t.Epoch.TID()+1)
	if write {
		initU32(&gr.whole.wsite, site)
		initU64(&gr.whole.w, uint64(t.Epoch))
	} else {
		initU32(&gr.whole.rsite, site)
		initU64(&gr.whole.r, uint64(t.Epoch))
	}
	if !pg.add(gi, gr, false) {
		freeGranule(t, gr) // never published
		return false
	}
	t.Stats.count(write, WriteExclusive, ReadExclusive)
	return true
}

// add installs gr in the empty slot gi, unless the page was reclaimed or
// the slot is no longer empty. If absorb is set, gr is a new, empty
// off-heap granule, which takes the state of the slot's fresh entry, if
// any (fresh.go); otherwise gr records a first access (first), counted
// for dense, and a fresh entry makes the slot not empty.
func (pg *page) add(gi uintptr, gr *granule, absorb bool) bool {
	pg.mu.Lock()
	defer pg.mu.Unlock()
	if pg.dead.Load() || pg.slot(gi) != nil {
		// Reclaimed, or a run was installed: the caller looks again.
		return false
	}
	if pg.hasFresh(gi) {
		if !absorb {
			return false // the caller's locked path absorbs it
		}
		pg.absorb(gi, gr) // live moves from the entry to the slot
	} else if !absorb {
		pg.countFirst()
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

// update applies t's access of the bytes [lo, hi) at addr to gr, in
// slot gi of pg, with the stripe lock held, and reports whether it
// conflicts, storing the conflict in *out (see cell.check).
func (s *Space) update(t *Thread, pg *page, gi uintptr, gr *granule, addr uintptr, lo, hi uint8, write bool, site uint32, out *Race) (found bool) {
	gr = s.validate(t, pg, gi, gr, addr, lo, hi)
	if gr.split.Load() == nil && (gr.lo != lo || gr.hi != hi) {
		if gr.whole.empty() {
			var ngr *granule
			if gr.off {
				ngr = newGranule(t, lo, hi, gr.gen.Load())
				ngr.immortal, ngr.foreign = gr.immortal, gr.foreign
			} else {
				ngr = heapGranule(lo, hi)
				ngr.immortal, ngr.id = gr.immortal, gr.id
				ngr.gen.Store(gr.gen.Load())
			}
			ngr.vok, ngr.ver = gr.vok, gr.ver
			pg.set(gi, ngr)
			freeGranule(t, gr)
			gr = ngr
		} else if ulo, uhi, ok := gr.widens(t, lo, hi, write, site); ok {
			gr = pg.widen(t, gi, gr, ulo, uhi)
		} else {
			// Parts where the granule is: off the heap for an
			// off-heap granule (it holds no read vector clock).
			shift := partShift(gr.lo, gr.hi, lo, hi)
			var sp *parts
			if gr.off {
				sp = newOffParts(shift)
			} else {
				sp = newParts(shift)
			}
			// The whole cell moves to the parts. Fast paths that test
			// only the whole cell (Same, sameSpan, accessWords) must
			// fail from now on, and take's zeros (no epoch is 0) make
			// them fail; exclusive's last write, if any, moves too.
			w, r := gr.whole.take()
			v := gr.whole.rvc.Load().taken()
			if moveHook != nil {
				moveHook()
			}
			sp.fill(gr.lo, gr.hi, w, r, gr.whole.wsite.Load(), gr.whole.rsite.Load(), v)
			gr.split.Store(sp)
			gr.whole.rvc.Store(nil)
		}
	}
	if sp := gr.split.Load(); sp != nil && !sp.fits(lo, hi) {
		gr.split.Store(sp.refined(min(sp.shift, partShift(lo, hi, 0, 0))))
		freeParts(sp)
	}
	switch sp := gr.split.Load(); {
	case gr.off && !write && sp == nil:
		// A read vector clock is a heap object, which a granule off
		// the heap must not hold (the collector would not see it):
		// an adopted granule with a version stays off the heap until
		// a read needs one.
		var ok bool
		if found, ok = gr.whole.readMay(t, site, out, false); ok {
			t.Stats.Checks++ // as check counts it
		} else {
			gr = pg.promote(t, gi, gr)
			found = gr.access(t, lo, hi, write, site, out)
		}
	case gr.off && !write && sp.shares(t, lo, hi):
		// The same for its parts: the granule and its parts move
		// to the heap before the read.
		gr = pg.promote(t, gi, gr)
		found = gr.access(t, lo, hi, write, site, out)
	default:
		found = gr.access(t, lo, hi, write, site, out)
	}
	if sp := gr.split.Load(); !found && write && lo == 0 && hi == 8 && sp != nil && sp.mergeable(t) {
		gr = pg.merge(t, gi, gr)
	}
	if found && !s.stillLive(gr, addr) {
		// The object the state belonged to died and its memory was reused
		// before the GC generation we saw advanced: the conflict is with
		// a dead object. Start afresh.
		gr = s.renew(t, pg, gi, gr, addr, lo, hi)
		*out = Race{}
		found = gr.access(t, lo, hi, write, site, out)
	}
	return found
}

// widens reports whether t's access of the bytes [lo, hi) at site, next
// to or overlapping the bytes gr covers, may widen gr to their union
// [ulo, uhi) instead of splitting it: gr's only state is one access of
// that kind by t at the same site in t's current epoch (a write and no
// read, or a read and no write). The bytes the access adds have no state
// (an unsplit granule's bytes outside [lo, hi) were never accessed), so
// the access records there exactly the epoch and site gr records: the
// union in one cell is the state per-byte cells would hold, and a report
// names the same earlier access. The consecutive short copies into a
// bytes.Buffer by one goroutine (Write, WriteString, from fmt and
// encoding/json) are this case, which otherwise splits a granule into
// per-byte cells on the heap at the second copy that reaches it.
// The stripe lock is held.
func (gr *granule) widens(t *Thread, lo, hi uint8, write bool, site uint32) (ulo, uhi uint8, ok bool) {
	if lo > gr.hi || gr.lo > hi {
		return 0, 0, false // a gap between them
	}
	c := &gr.whole
	own, other, ownSite := c.w.Load(), c.r.Load(), c.wsite.Load()
	if !write {
		own, other, ownSite = other, own, c.rsite.Load()
	}
	if own != uint64(t.Epoch) || other != 0 || ownSite != site || c.rvc.Load() != nil {
		return 0, 0, false
	}
	return min(lo, gr.lo), max(hi, gr.hi), true
}

// widen replaces gr, in slot gi, by a granule of the same state over the
// bytes [lo, hi) (see widens) and returns it; the stripe lock is held.
// Like promote, it takes gr's epochs rather than loading them.
func (pg *page) widen(t *Thread, gi uintptr, gr *granule, lo, hi uint8) *granule {
	var ngr *granule
	if gr.off {
		ngr = newGranule(t, lo, hi, gr.gen.Load())
	} else {
		ngr = heapGranule(lo, hi)
		initU32(&ngr.gen, gr.gen.Load())
	}
	initU32(&ngr.owner, gr.owner.Load())
	w, r := gr.whole.take()
	if moveHook != nil {
		moveHook()
	}
	initU64(&ngr.whole.w, w)
	initU64(&ngr.whole.r, r)
	initU32(&ngr.whole.wsite, gr.whole.wsite.Load())
	initU32(&ngr.whole.rsite, gr.whole.rsite.Load())
	ngr.immortal, ngr.foreign, ngr.id = gr.immortal, gr.foreign, gr.id
	ngr.vok, ngr.ver = gr.vok, gr.ver
	pg.set(gi, ngr)
	freeGranule(t, gr)
	return ngr
}

// mergeable reports whether the parts of a granule t has just written
// whole hold one state: t's current epoch as every part's last write, at
// one site, and one last read (or none) at one site, no read vector
// clock. (A part the write found in its epoch already keeps the site of
// the earlier write.) The parts
// then say what one cell would, for every byte, and merge may make them
// one. (Dropping reads that t's clock orders before the write would be
// as sound, FastTrack drops them at a write over shared reads, but not
// the same state: after a later race the parts and the cell would
// diverge.)
func (sp *parts) mergeable(t *Thread) bool {
	c0 := &sp.cells[0]
	r, rsite, wsite := c0.r.Load(), c0.rsite.Load(), c0.wsite.Load()
	if r == shared {
		return false
	}
	for i := range sp.cells {
		c := &sp.cells[i]
		if c.w.Load() != uint64(t.Epoch) || c.wsite.Load() != wsite || c.rvc.Load() != nil || c.r.Load() != r || c.rsite.Load() != rsite {
			return false
		}
	}
	return true
}

// merge replaces gr, a granule in slot gi split into parts, whose eight
// bytes t has just written with no conflict, by an unsplit one
// (where gr is: off the heap or on it, as widen) with the parts' one
// state, and returns it; the stripe lock is held. The parts must be
// mergeable. Without it a granule split once (a buffer filled to a
// different length each time, the bytes of a random length read after
// it) stays split for its life, and each later write of the whole of it
// checks every part.
func (pg *page) merge(t *Thread, gi uintptr, gr *granule) *granule {
	var ngr *granule
	if gr.off {
		ngr = newGranule(t, 0, 8, gr.gen.Load())
	} else {
		ngr = heapGranule(0, 8)
		initU32(&ngr.gen, gr.gen.Load())
	}
	initU32(&ngr.owner, gr.owner.Load())
	c := &gr.split.Load().cells[0]
	initU64(&ngr.whole.w, uint64(t.Epoch))
	initU32(&ngr.whole.wsite, c.wsite.Load())
	initU64(&ngr.whole.r, c.r.Load())
	initU32(&ngr.whole.rsite, c.rsite.Load())
	ngr.immortal, ngr.foreign, ngr.id = gr.immortal, gr.foreign, gr.id
	ngr.vok, ngr.ver = gr.vok, gr.ver
	pg.set(gi, ngr)
	freeGranule(t, gr)
	return ngr
}

// access applies the FastTrack rule to the cells of the bytes [lo, hi)
// of gr and reports whether one conflicts, storing the first conflict in
// *out (see cell.check).
func (gr *granule) access(t *Thread, lo, hi uint8, write bool, site uint32, out *Race) (found bool) {
	sp := gr.split.Load()
	if sp == nil {
		return gr.whole.check(t, write, site, out)
	}
	for i := lo >> sp.shift; i < (hi-1)>>sp.shift+1; i++ {
		if found {
			var r Race // only the first conflict is reported
			sp.cells[i].check(t, write, site, &r)
		} else {
			found = sp.cells[i].check(t, write, site, out)
		}
	}
	return found
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
