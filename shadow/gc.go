// Copyright 2026 The bigfoot Authors. All rights reserved.

package shadow

// Memory freed by the garbage collector and reused for a new object must not
// inherit the shadow state of the old one: the old object's accesses are
// unordered with the new object's and would be reported as races.
//
// The runtime offers no allocation hook, so the shadow detects reuse lazily,
// with two tools:
//
//   - The GC generation: the number of completed GC cycles. An object's
//     memory is freed only in the sweep after a cycle completes, and an
//     object unreachable at that cycle is never accessed again, so state
//     recorded at generation n can be stale only if the generation is now
//     greater than n. Where the driver exposes the runtime's own count
//     (runtimeNumGC), lagGen is that count and exactGen loads it. Otherwise
//     lagGen is a cheap lower bound of the generation, advanced by a
//     finalizer that runs after each cycle, and exactGen reads the exact
//     count from runtime/metrics (about 100ns).
//
//   - Weak pointers (package weak, which supports interior pointers): a
//     weak pointer to the object becomes nil in the sweep that frees the
//     object, before the memory can be reused, so it answers "is this still
//     the object the state belongs to" exactly and synchronously.
//
// Making a weak pointer costs about a microsecond, too much for every
// granule. But races need two goroutines, so a granule makes one only when
// a second goroutine touches it ("adopt"), after checking with exactGen
// that no cycle completed since the state was recorded (so the memory still
// holds the same object). Until then the granule carries the generation of
// its first record, and state older than the current generation is simply
// dropped: it could be stale, and one goroutine's accesses never race among
// themselves. A granule with a weak pointer is revalidated when the
// generation advances, and always before it reports a race.
//
// Memory is classified once per page, at its first adoption, by probing
// runtime.AddCleanup, which returns a no-op Cleanup for globals and panics
// for memory outside the heap. Globals are never freed ("immortal"). Other
// memory ("foreign": mmap, or a stack where getg is unavailable) cannot
// have weak pointers; its state is dropped at the next cycle like unshared
// state. Stacks are normally excluded earlier (onStack).
//
// After each cycle a sweeper drops granules of dead objects and stale
// granules, and frees empty pages, so shadow memory is bounded by the live
// memory instrumented code touched.

import (
	"runtime"
	"runtime/metrics"
	"sync/atomic"
	"unsafe"
	"weak"

	"github.com/bigfoot-go/bigfoot/internal/ownheap"
	"github.com/bigfoot-go/bigfoot/internal/spin"
)

var (
	lagGen   genCounter
	sentGen  atomic.Uint64 // the generation the sentinel last observed
	spacesMu spin.Mutex
	spaces   []*Space
)

func init() {
	lagGen.Store(exactGen())
	sentGen.Store(lagGen.Load())
	armSentinel()
}

// A genCounter is the generation the shadow stamps state with and
// compares stamps to. Where the runtime's count of cycles is available
// (runtimeNumGC) it is that count, exact at every read: state recorded
// after a cycle completed is never stamped with the generation before it,
// which the finalizer's lag made happen (see RefreshGen), and which made
// adoption drop the state as possibly another object's. Otherwise it is
// lag, the lower bound the sentinel's finalizer and RefreshGen advance.
type genCounter struct {
	lag atomic.Uint64
	// lag32 is lag's low 32 bits, the width of a granule's stamp: the
	// word genWord points to where the runtime's count is unavailable.
	lag32 uint32 // atomic
}

// genWord is the generation as a granule stamps it, one load for the
// inlined fast path (Granule.Same): the runtime's count of cycles, or
// lagGen's lower bound.
var genWord = func() *uint32 {
	if runtimeNumGC != nil {
		return runtimeNumGC
	}
	return &lagGen.lag32
}()

// Load returns the generation: the runtime's count, or the lower bound.
func (c *genCounter) Load() uint64 {
	if p := runtimeNumGC; p != nil {
		return uint64(atomic.LoadUint32(p))
	}
	return c.lag.Load()
}

// Store sets the lower bound (the sentinel's first reading; tests).
func (c *genCounter) Store(n uint64) {
	c.lag.Store(n)
	atomic.StoreUint32(&c.lag32, uint32(n))
}

// advanceGen raises the lower bound to n unless it is already there. It
// never decreases: several goroutines refresh it, each with an exact
// count read at some point, and an older read must not undo a newer one.
func advanceGen(n uint64) {
	for {
		cur := lagGen.lag.Load()
		if n <= cur {
			return
		}
		if lagGen.lag.CompareAndSwap(cur, n) {
			break
		}
	}
	// lag32 follows lag: raised to its new value unless a concurrent
	// advance raised it further.
	for {
		cur := atomic.LoadUint32(&lagGen.lag32)
		if uint32(n) <= cur || atomic.CompareAndSwapUint32(&lagGen.lag32, cur, uint32(n)) {
			return
		}
	}
}

// RefreshGen brings lagGen up to date with the exact GC generation (about
// 100ns) and returns it. The sentinel's finalizer alone can leave lagGen
// behind for a long time: the finalizer runs only when the finalizer
// goroutine is scheduled, and a sentinel it allocates while the next cycle
// is marking is allocated black, survives that cycle and reports only the
// one after (with GOGC=off, never). Every granule created meanwhile is
// stamped with an old generation, so the first access by a second
// goroutine (adoption) takes it for state recorded before a cycle and drops
// it: the race is missed. So the runtime also refreshes lagGen where it
// pays for it easily: when a page is created, at adoption (which reads the
// exact count anyway), and at goroutine and test boundaries (detector).
func RefreshGen() uint64 {
	n := exactGen()
	advanceGen(n)
	return n
}

// genSample is the sample exactGen reads, under its lock: a fresh slice
// per call escaped to the heap (48 bytes per adoption, which the collector
// then had to reclaim).
var genSample struct {
	mu spin.Mutex
	s  [1]metrics.Sample
}

// runtimeNumGC is the runtime's count of completed GC cycles
// (runtime.memstats.numgc, which /gc/cycles/total:gc-cycles reports), set
// by the file bigfoot's driver adds to package runtime (driver/gccount.go)
// in the runtime's own init. It is nil when the runtime has no such file:
// in this package's tests, and where the toolchain's runtime does not
// have the field the file names. The variable is the file's through a
// linkname: no other code writes it.
var runtimeNumGC *uint32

// runtimeFinishSweep sweeps the spans the runtime has not swept since the
// last GC cycle, set by the file bigfoot's driver adds to package runtime
// (driver/sweephook.go) in the runtime's own init; nil without it.
var runtimeFinishSweep func()

// FinishSweep finishes the runtime's sweep after the last GC cycle, so
// that every object the cycle found unreachable is freed (its allocation
// versions advanced) before the caller tells dead objects from live ones.
// Without the runtime's file it does nothing.
func FinishSweep() {
	if f := runtimeFinishSweep; f != nil {
		f()
	}
}

// exactGen returns the number of completed GC cycles: a load of the
// runtime's count where the driver made it available (a nanosecond or
// two), otherwise a read of runtime/metrics (about 100ns, under a lock;
// the pipeline workload's reducer spent 3.7% of all samples there).
func exactGen() uint64 {
	if p := runtimeNumGC; p != nil {
		return uint64(atomic.LoadUint32(p))
	}
	genSample.mu.Lock()
	defer genSample.mu.Unlock()
	s := genSample.s[:]
	s[0].Name = "/gc/cycles/total:gc-cycles"
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return s[0].Value.Uint64()
}

// Gen returns the GC generation state is stamped with (genCounter).
func Gen() uint64 { return lagGen.Load() }

type sentinel struct {
	_ *int
	_ [3]uintptr
}

// armSentinel allocates an unreachable object whose finalizer, run after the
// next GC cycle, advances lagGen, starts a sweep and re-arms itself.
func armSentinel() {
	runtime.SetFinalizer(new(sentinel), func(*sentinel) {
		// What this runs on the finalizer goroutine allocates for the
		// detector, not for the program (internal/ownheap).
		m := ownheap.Begin()
		defer m.End()
		// Re-arm first: a cycle that completes after the new sentinel
		// exists collects it, so every cycle completing after the read
		// below runs this finalizer again.
		armSentinel()
		n := exactGen()
		advanceGen(n)
		sentGen.Store(n)
		sweepAll()
		hooksMu.Lock()
		hs := append([]*hook{}, hooks...)
		hooksMu.Unlock()
		for _, h := range hs {
			// Like the shadow sweep, at most one run per hook at a
			// time: back-to-back cycles (a program calling runtime.GC
			// from thousands of goroutines) must not pile up sweepers
			// that compete with the program for the CPU.
			if h.running.CompareAndSwap(false, true) {
				goBackground(func() {
					defer h.running.Store(false)
					h.f()
				})
			}
		}
	})
}

// sweepAll starts a sweep of every space that is not being swept, each in
// a goroutine of its own, and the release of held objects (ident.go).
func sweepAll() {
	releaseLater()
	spacesMu.Lock()
	ss := append([]*Space(nil), spaces...)
	spacesMu.Unlock()
	for _, s := range ss {
		s.stallIfBehind()
		s.startSweep()
	}
}

// startSweep starts a sweep of s in a goroutine of its own, or, if one is
// running, has it sweep once more when it is done: a sweep that started
// before the last cycle completed cannot drop what that cycle found dead,
// and without another one that garbage's heap shadow was marked live by
// the next cycle too (on pipeline a sweep lasts about as long as the
// interval between cycles, and one in three was skipped).
func (s *Space) startSweep() {
	for {
		if s.sweeping.CompareAndSwap(false, true) {
			goBackground(s.sweepLoop)
			return
		}
		s.again.Store(true)
		if s.sweeping.Load() {
			return // the running sweep sees again before it stops
		}
	}
}

// sweepLoop sweeps s until no sweep was asked for meanwhile.
func (s *Space) sweepLoop() {
	for {
		s.again.Store(false)
		s.Sweep()
		if !s.sweepDone() {
			return
		}
	}
}

// sweepDone ends a sweep of s and reports whether the caller must sweep
// again, as startSweep asked while it ran (s.sweeping is then still set).
func (s *Space) sweepDone() bool {
	s.sweeping.Store(false)
	return s.again.Load() && s.sweeping.CompareAndSwap(false, true)
}

func registerSpace(s *Space) {
	spacesMu.Lock()
	spaces = append(spaces, s)
	spacesMu.Unlock()
}

const (
	kindUnknown  uint32 = iota
	kindHeap            // the garbage-collected heap
	kindImmortal        // globals: never freed
	kindForeign         // neither: memory not managed by Go, or a stack
)

// classify reports whether p points into the garbage-collected heap, into
// globals, or elsewhere (memory not managed by Go, or, without getg, a
// goroutine stack). Only the first two are properties of the page: a stack
// span can be freed and reused for heap objects.
//
// A heap object is found by the runtime's findObject, which allocates
// nothing: the detector's own allocations count in the program's
// runtime.MemStats.Mallocs, which tests compare (testing.AllocsPerRun).
// Elsewhere, AddCleanup tells a global (where it does nothing) from the
// rest (where it panics).
func classify(p unsafe.Pointer) (kind uint32) {
	if heapObject(p) {
		return kindHeap
	}
	defer func() {
		if recover() != nil {
			kind = kindForeign
		}
	}()
	c := runtime.AddCleanup((*byte)(p), func(int) {}, 0)
	if c == (runtime.Cleanup{}) {
		return kindImmortal // global: AddCleanup is a no-op
	}
	c.Stop()
	return kindHeap
}

// heapObject reports whether p points into an object of the heap. It is
// nosplit so that the address findObject sees is p's after any move of
// the goroutine's stack (objectSpan).
//
//go:nosplit
func heapObject(p unsafe.Pointer) bool {
	base, s, _ := findObject(uintptr(p), 0, 0)
	return base != 0 && s != nil
}

// findObject returns the base address of the heap object that contains p,
// or 0 if p is not in an allocated span of the heap (globals, stacks,
// memory not managed by Go). It is the runtime's, which keeps it
// accessible by linkname (go.dev/issue/67401).
//
//go:linkname findObject runtime.findObject
func findObject(p, refBase, refOff uintptr) (base uintptr, s unsafe.Pointer, objIndex uintptr)

// objectWeak returns a weak pointer to the heap object that contains addr,
// which the caller keeps reachable. It is made for the object's base
// address, not addr: the runtime keeps one weak handle per distinct
// address in a sorted list per span, so weak pointers to every granule of
// a large array (a []byte written by one goroutine and read by others)
// cost time quadratic in the array's size (runtime.getWeakHandle and
// addspecial were 13% of the crypt workload), while all granules of one
// object share the base's handle. Both become nil in the sweep that frees
// the object, so they answer the same question.
func objectWeak(addr uintptr) weak.Pointer[byte] {
	if base, _, _ := findObject(addr, 0, 0); base != 0 {
		addr = base
	}
	m := ownheap.Begin()
	wp := weak.Make((*byte)(ptrOf(addr)))
	m.End()
	return wp
}

// An identEntry is an ident made when gen cycles had completed (an exact
// count). The ident is part of the entry, one allocation: granules refer
// to it, which keeps the entry alive after the cache dropped it.
type identEntry struct {
	gen uint32
	id  ident
}

// newIdentEntry returns a new entry for an ident of the object at base
// made in generation gen, allocated as the detector's (internal/ownheap).
func newIdentEntry(gen uint32, base uintptr) *identEntry {
	e := ownheap.New[identEntry]()
	e.gen, e.id.base = gen, base
	return e
}

// identCache holds recently made idents, direct-mapped by base address.
// Objects handed from goroutine to goroutine (a pipeline's fresh record
// per item) are adopted granule by granule and by several goroutines;
// without the cache each adoption made its own weak pointer and read the
// exact generation. Entries are immutable; a stale entry is recognized
// because its ident is no longer live.
var identCache [1 << 12]atomic.Pointer[identEntry]

func identSlot(base uintptr) *atomic.Pointer[identEntry] {
	return &identCache[uint64(base>>3)*0x9e3779b97f4a7c15>>52]
}

// adoptIdent returns an ident of the heap object that contains addr (which
// t keeps reachable), for state stamped with generation stamp, and reports
// whether that state is the current object's: no GC cycle completed since
// it was recorded (else the memory may have held another object, and the
// caller drops the state).
//
// A cached ident that is still live was made for this very object (a held
// object is not freed, and a weak pointer becomes nil when its object
// dies, before the memory is reused). If it was made in generation stamp,
// the state was recorded either after it was made (the object has not
// changed since) or before, in the same generation, when the address held
// the same object too (an object accessed in generation n is freed at the
// earliest in the sweep after cycle n+1). Either way the state is the
// current object's, and neither the exact generation nor a new ident is
// needed.
func adoptIdent(t *Thread, addr uintptr, stamp uint32) (*ident, bool) {
	base, size, noscan := noscanObject(addr)
	if base == 0 {
		return newIdent(addr), uint32(RefreshGen()) == stamp
	}
	slot := identSlot(base)
	if e := slot.Load(); e != nil && e.id.base == base && e.gen == stamp && (noCycleSince(e.gen) || e.id.live()) {
		return &e.id, true
	}
	// Read the generation first: the object the caller keeps reachable is
	// the same from here on, so the entry's generation is one in which
	// the ident's object was at base.
	n := uint32(RefreshGen())
	e := newIdentEntry(n, base)
	e.id.prove(t, size, noscan)
	slot.Store(e)
	return &e.id, n == stamp
}

// noCycleSince reports whether the exact count of completed cycles is
// still gen, where reading it is cheap (runtimeNumGC). An ident made when
// gen cycles had completed is then live without asking its proof: its
// object was reachable when it was made, and memory is freed only by a
// cycle that completes after its object became unreachable.
func noCycleSince(gen uint32) bool {
	return runtimeNumGC != nil && uint32(exactGen()) == gen
}

// ptrOf turns the address of memory the caller keeps reachable back into a
// pointer. Addresses travel as uintptr through the shadow so that checking
// an access never makes the checked variable escape to the heap.
func ptrOf(addr uintptr) unsafe.Pointer {
	return *(*unsafe.Pointer)(unsafe.Pointer(&addr))
}

// validate returns the granule to use for an access by t at addr, replacing
// gr by a fresh one if its state may belong to a dead object, and adopting
// it (giving it a weak pointer) when a second goroutine touches it. The
// stripe lock is held.
func (s *Space) validate(t *Thread, pg *page, gi uintptr, gr *granule, addr uintptr, lo, hi uint8) *granule {
	gen := uint32(lagGen.Load())
	if gr.immortal {
		gr.kept(t, gen)
		return gr
	}
	if gr.vok {
		if g := gr.gen.Load(); g != gen {
			if !gr.versionLive(s.versions, addr, g, gen) {
				return s.renew(t, pg, gi, gr, addr, lo, hi)
			}
			gr.gen.Store(gen) // renewed: gen was read before the version
		}
		gr.kept(t, gen)
		return gr
	}
	if gr.id != nil {
		if gr.gen.Load() != gen {
			gr.gen.Store(gen)
			if !gr.id.live() {
				return s.renew(t, pg, gi, gr, addr, lo, hi)
			}
		}
		gr.kept(t, gen)
		return gr
	}
	owner := t.Epoch.TID() + 1
	if gr.owner.Load() == owner && gr.gen.Load() == gen {
		// Only t recorded state here, in this generation: what the
		// checks below would find, without scanning up to 8 cells
		// (every first access of a byte in an epoch comes here).
		return gr
	}
	if gr.empty() {
		gr.gen.Store(gen)
		gr.owner.Store(owner) // t's access follows
		return s.tracked(t, pg, gi, gr, addr, gen)
	}
	if gr.gen.Load() != gen {
		if pg.kind.Load() == kindImmortal {
			// A global, classified since the state was recorded:
			// never freed, so the state is current.
			gr.immortal = true
			return gr
		}
		// Recorded before a GC cycle: possibly another object's.
		return s.renew(t, pg, gi, gr, addr, lo, hi)
	}
	if !gr.cross(t) {
		gr.owner.Store(owner)
		return gr
	}
	// A second goroutine. With the runtime's allocation versions, a
	// heap object's state is proven by its word's version and stays
	// where it is (update moves it to the heap if a read needs a read
	// vector clock). The state was recorded in generation gen (above),
	// which was read before the version.
	if s.versions != nil && !gr.foreign && pg.kind.Load() != kindImmortal {
		if v, ok := s.versions.at(addr); ok {
			gr.ver, gr.vok = v, true
			if pg.kind.Load() == kindUnknown {
				pg.kind.Store(kindHeap) // as classify would find
			}
			// Shared state, as a promoted granule's is: the sweeps
			// between cycles drop it once settled (settle.go).
			madeHeapGranule()
			return gr
		}
	}
	// Otherwise the state may get a read vector clock and a weak
	// pointer, which the collector must see (see "Adoption off the
	// heap, tried" in docs/runtime.md).
	gr = pg.promote(t, gi, gr)
	if gr.foreign {
		return gr
	}
	kind := pg.kind.Load()
	if kind == kindUnknown {
		kind = classify(ptrOf(addr))
		if kind != kindForeign {
			pg.kind.Store(kind) // heap and global pages keep their role
		}
	}
	if kind == kindImmortal {
		gr.immortal = true
		return gr
	}
	if kind == kindForeign {
		if uint32(RefreshGen()) != gr.gen.Load() {
			gr = pg.promote(t, gi, pg.replace(t, gi, gr, lo, hi))
		}
		// No weak pointer is possible: keep the generation stamp, so the
		// state is dropped after the next cycle like unshared state.
		gr.foreign = true
		return gr
	}
	id, same := adoptIdent(t, addr, gr.gen.Load())
	if !same {
		gr = pg.promote(t, gi, pg.replace(t, gi, gr, lo, hi))
	}
	gr.id = id
	gr.gen.Store(gen)
	return gr
}

// renew replaces gr, whose state may belong to a dead object, by an
// empty granule for t's access of the bytes [lo, hi) at addr, with the GC
// state track gives first state (tracked): the state recorded next is
// the new object's first, and must be kept across GC cycles as any
// first state is, or a race that straddles the next cycle is missed. The
// stripe lock is held.
func (s *Space) renew(t *Thread, pg *page, gi uintptr, gr *granule, addr uintptr, lo, hi uint8) *granule {
	gr = pg.replace(t, gi, gr, lo, hi)
	gr.owner.Store(t.Epoch.TID() + 1) // t's access follows
	return s.tracked(t, pg, gi, gr, addr, gr.gen.Load())
}

// adopted is the owner of a granule that validate keeps as it is while
// the generation stays the same (a global's, or one with a weak pointer)
// and that goroutines other than its first have touched: for the
// lock-free paths (exclusive, sharedRead), as good an owner as the
// accessing goroutine. No thread id maps to it.
const adopted = ^uint32(0)

// kept records that validate keeps gr, a global's state or one with a
// weak pointer, as it is for t in generation gen: it stamps gen (a
// global's state is never stale; its stamp only serves the lock-free
// paths) and makes gr adopted if t is not its owner.
func (gr *granule) kept(t *Thread, gen uint32) {
	if gr.gen.Load() != gen {
		gr.gen.Store(gen)
	}
	if o := gr.owner.Load(); o != t.Epoch.TID()+1 && o != adopted {
		gr.owner.Store(adopted)
	}
}

// tracked gives gr, about to record t's first state at addr, the GC state
// track finds for it (a proof). Where the runtime keeps allocation
// versions, the version of addr's word proves the object, and gr stays
// where it is. Otherwise a granule off the heap that gets an ident moves
// to the heap first (promote): the collector does not see pointers off
// the heap, and a weak pointer whose handle it cannot see may be freed
// and reused.
func (s *Space) tracked(t *Thread, pg *page, gi uintptr, gr *granule, addr uintptr, gen uint32) *granule {
	p := s.track(t, pg, addr, gen, false)
	if p.vok {
		gr.ver, gr.vok = p.ver, true
		return gr
	}
	if p.id != nil && gr.off {
		gr = pg.promote(t, gi, gr)
	}
	gr.immortal, gr.id = p.immortal, p.id
	return gr
}

// A proof is what track gives first state to be kept across GC cycles:
// what says, after a cycle, that the memory still holds the object the
// state was recorded for. The zero proof is none: the state is dropped
// at the first access after the next cycle (foreign memory).
type proof struct {
	immortal bool   // a global's memory: never freed
	id       *ident // the heap object's ident
	vok      bool   // ver, the word's allocation version, proves it
	ver      uint8
}

// track returns the proof of first state about to be recorded at addr (in
// page pg) by t in generation gen, read before. A global's state is
// immortal. Heap state, where the runtime keeps allocation versions, is
// proven by the version of addr's word, read now (the object at addr is
// the one t accesses, live); a run, which covers many words, gets an ident
// of its object instead (needIdent), proven by the version at its base
// where there are versions. Other heap state gets an ident. Memory outside
// the heap has no proof.
//
// Without a proof, state recorded by one goroutine is dropped at the first
// access after a GC cycle (it might belong to a dead object whose memory
// was reused), and a race whose two accesses straddle a cycle is missed,
// where Go's race runtime, which hooks every allocation, reports it. So
// every first state of the heap and of globals gets one: there is no
// budget. What that costs is bounded by what is tracked: a version is a
// lookup in the runtime's span table; an ident is made once per object
// (Thread.tracked and the adoption cache reuse it for the object's other
// granules and runs), proven by its version, or by a hold that a release
// turns into a weak pointer in sorted batches (ident.go); a page is
// classified once (a global's or the heap's for good; foreign for the
// rest of the generation, since a stack span can later hold heap
// objects). The stripe (or run) lock is held.
func (s *Space) track(t *Thread, pg *page, addr uintptr, gen uint32, needIdent bool) proof {
	kind := pg.kind.Load()
	if kind == kindImmortal {
		return proof{immortal: true}
	}
	if pg.foreignIn.Load() == gen+1 || trackOff.Load() {
		return proof{}
	}
	if !needIdent && s.versions != nil {
		if v, ok := s.versions.at(addr); ok {
			if kind == kindUnknown {
				pg.kind.Store(kindHeap) // as classify would find
			}
			return proof{vok: true, ver: v}
		}
	}
	if id := trackIdent(t, addr); id != nil {
		if kind == kindUnknown {
			pg.kind.Store(kindHeap)
		}
		return proof{id: id}
	}
	// Not in a heap object: a global, or memory not managed by Go.
	if kind = classify(ptrOf(addr)); kind == kindForeign {
		pg.foreignIn.Store(gen + 1)
		return proof{}
	}
	pg.kind.Store(kind)
	return proof{immortal: kind == kindImmortal}
}

// trackOff, set by tests, leaves first state of the heap without a proof,
// as memory outside the heap is: what adoption and the off-heap granules
// do with such state is theirs to check.
var trackOff atomic.Bool

// A trackMemo is the last object trackIdent returned an ident for, for
// one thread (Thread.tracked): [base, base+size) and the ident. It is the
// thread's, not a shared pointer to an immutable memo, which was a heap
// object per ident made (a tenth of what a JSON round-trip workload
// allocated under bigfoot).
type trackMemo struct {
	base, size uintptr
	id         *ident
}

// trackIdent returns an ident of the heap object that contains addr, which
// t keeps reachable, or nil if addr is not in a heap object. An ident made
// earlier is reused if it is still live: it was then made for this very
// object. A new one is proven as adoption proves one (ident.prove).
func trackIdent(t *Thread, addr uintptr) *ident {
	if m := &t.tracked; addr-m.base < m.size && m.id.live() {
		return m.id
	}
	base, size, noscan := noscanObject(addr)
	if base == 0 {
		return nil
	}
	slot := identSlot(base)
	var id *ident
	if e := slot.Load(); e != nil && e.id.base == base && e.id.live() {
		id = &e.id
	} else {
		n := uint32(RefreshGen()) // before the ident: see adoptIdent
		e := newIdentEntry(n, base)
		e.id.prove(t, size, noscan)
		slot.Store(e)
		id = &e.id
	}
	if size != 0 {
		t.tracked = trackMemo{base, size, id}
	}
	return id
}

// reclaimable reports whether gr's state can be dropped: it belongs to a
// dead object, or it was recorded before the last GC cycle and never shared
// (so validate would drop it anyway). The stripe lock is held.
func (gr *granule) reclaimable(vers *pageVersions, gi uintptr, gen uint32) bool {
	switch {
	case gr.immortal:
		return false
	case gr.vok:
		vp, pv := vers.get()
		return !gr.versionLiveIn(vp, pv, gi, gr.gen.Load(), gen)
	case gr.id != nil:
		return !gr.id.live()
	default:
		// Older than the sweep's generation. Not "different": lagGen
		// may have been refreshed since the sweep read it, and a granule
		// stamped with the newer generation is current.
		return int32(gr.gen.Load()-gen) < 0
	}
}

// pageVersions looks up the allocation versions of a page once, when the
// sweep first needs them (see version.go).
type pageVersions struct {
	src    versionSource
	page   uintptr
	done   bool
	values *[512]uint8
	pv     uint8
}

func (v *pageVersions) get() (*[512]uint8, uint8) {
	if !v.done && v.src != nil {
		v.values, v.pv = v.src(v.page)
		v.done = true
	}
	return v.values, v.pv
}

// sweepAhead is how many slots ahead of the one it looks at the sweep
// prefetches a granule. At 4 the first load of each granule was still
// a third of the sweep's samples on the pipeline workload (its records'
// granules, one per adopted field, a few per 64 bytes); at 16 the
// workload's CPU time is about 2% lower (medians of 7 alternating runs,
// 4.42 against 4.51 s).
const sweepAhead = 16

// A lookahead starts loading the granules of a page's slots before the
// sweep reaches them, keeping sweepAhead of them in flight. It looks at
// every slot, the empty ones the sweep skips included: where the sweep
// prefetched only inside a stripe group, the granule sweepAhead slots
// ahead of the one it looked at, the first granules of each page and of
// each cluster after a stretch of empty slots (a page of scattered small
// objects: goldmark's AST, bintrees' nodes) were misses it waited for,
// 63% of its own samples on goldmark's TestManyCDATAPerformance.
type lookahead struct {
	at    int // the first slot the sweep has not passed
	next  int // the first slot not looked at
	ahead int // granules prefetched in the slots [at, next)
}

// reach tells l that the sweep is at slot gi of arr, which holds a
// granule or a run (nil arr: the page has none, nothing to prefetch), and
// prefetches further granules. The sweep calls it at the slots that are
// not nil; it passes the others itself.
func (l *lookahead) reach(arr *slotArray, gi int) {
	if arr == nil || gi < l.at {
		return
	}
	for ; l.at <= gi; l.at++ {
		if l.at < l.next && l.ahead > 0 && arr[l.at].Load() != nil {
			l.ahead--
		}
	}
	l.next = max(l.next, l.at)
	for ; l.ahead < sweepAhead && l.next < granulesPerPage; l.next++ {
		if nx := arr[l.next].Load(); nx != nil {
			prefetch(uintptr(unsafe.Pointer(nx)))
			l.ahead++
		}
	}
}

// Sweep drops the shadow state of dead objects and settled state (see
// frontier.go) and frees empty pages. It runs after every GC cycle; tests
// call it directly.
func (s *Space) Sweep() {
	s.sweepGen.Store(exactGen())
	defer endStall()
	gen := uint32(lagGen.Load())
	f := s.frontierNow()
	m := ownheap.Begin()
	seen := make(map[*granule]struct{})
	m.End()
	var freed blockCache
	var kept int64 // heap granules kept (see settle.go)
	// deadBytes is the heap shadow dropped that the last completed cycle
	// marked (offheap_pace.go): everything the sweep drops was reachable
	// until now. lagGen may lag that cycle; its exact count does not.
	var deadBytes int64
	marked := uint32(exactGen())
	var lastID *ident
	s.pages.Range(func(key uintptr, pg *page) bool {
		// A global's state is never stale, even where it was recorded
		// before the page was classified (validate keeps it too).
		immortal := pg.kind.Load() == kindImmortal
		vers := pageVersions{src: s.versions, page: key << pageShift}
		dropped := 0 // granules: pg.live is decremented once, below
		gi := 0
		if pg.arr.Load() == nil && pg.full.Load() == nil {
			// Every slot is nil (a page of fresh objects keeps its
			// state in fresh entries, below): no slot to visit, where
			// 512 loads per page were most of the sweep's time on
			// BenchmarkFreshObject. A slot array made meanwhile holds
			// current state, for the next sweep.
			gi = granulesPerPage
		}
		var ahead lookahead
		for gi < granulesPerPage {
			g := pg.slot(uintptr(gi))
			if g == nil {
				gi++
				continue
			}
			ahead.reach(pg.arr.Load(), gi)
			if g.isRun() {
				r := asRun(g)
				r.mu.Lock()
				if !r.dead && r.covers(uintptr(gi)) {
					switch {
					case r.reclaimable(&vers, uintptr(gi), gen) || r.settled(f):
						s.dropRun(pg, r)
					case r.m != nil && r.m.one.Load():
						// Uniform since some check (unify): a
						// block run again.
						nr := r.blockOf()
						s.replaceRun(pg, r, nr)
						gi = int(nr.e.Load()) - 1
					default:
						gi = int(r.e.Load()) - 1
					}
				}
				r.mu.Unlock()
				gi++
				continue
			}
			if immortal && f == nil {
				gi++
				continue
			}
			// The granules of a stripe group under one lock.
			mu := s.stripe(key, uintptr(gi))
			mu.Lock()
			for end := gi | (stripeGroup - 1) + 1; gi < end; gi++ {
				gr := pg.slot(uintptr(gi))
				if gr == nil {
					continue
				}
				// The granules of dead objects were last touched
				// long ago: start loading those ahead (the first
				// load of each was most of the sweep).
				ahead.reach(pg.arr.Load(), gi)
				if gr.isRun() {
					break
				}
				// Off the heap no dead bytes are counted, and
				// whether the state is settled, which the loaded
				// granule says, is asked before its page's versions.
				var dead bool
				drop := gr.off && gr.settled(f)
				if !drop {
					dead = !immortal && gr.reclaimable(&vers, uintptr(gi), gen)
					drop = dead || !gr.off && gr.settled(f)
				}
				if !drop {
					if !gr.off || gr.vok {
						kept++
					}
					continue
				}
				// The stripe lock owns a granule's slot; pg.mu, which
				// guards live, is taken once per page below (live
				// stays high meanwhile, which only keeps the page).
				pg.set(uintptr(gi), nil)
				dropped++
				if !gr.off && (dead || int32(gr.gen.Load()-gen) < 0) {
					// Its object died before the cycle completed,
					// or it was stamped before: it existed, and
					// was marked, in that cycle.
					deadBytes += heapGranuleBytes
					if gr.id != nil && gr.id != lastID {
						deadBytes += identBytes
						lastID = gr.id
					}
				}
				if retire(gr) && recycleGranules {
					freed.free(&granulePool, unsafe.Pointer(gr))
				}
			}
			mu.Unlock()
		}
		pg.prune(seen)
		pg.mu.Lock()
		used := pg.live != 0 // state recorded since the last sweep
		pg.live -= dropped
		pg.sweepFresh(gen, f, &vers)
		dead := false
		// A page of fresh entries only (no slot array, no run) that
		// had state until now stays one sweep more, empty: the
		// allocator reuses the memory of the objects that died in the
		// cycle, and the page would be made again at their successors'
		// first accesses (the map's insertion and a page, a fifth of
		// BenchmarkFreshObject's shadow cost). A page still empty at
		// the next sweep goes.
		keep := used && pg.arr.Load() == nil && pg.full.Load() == nil
		if pg.live == 0 && !pg.dead.Load() && !keep {
			s.pages.CompareAndDelete(key, pg)
			pg.dead.Store(true)
			dead = true
		}
		pg.mu.Unlock()
		if dead {
			pg.retireKeep()
		}
		return true
	})
	freed.flush(&granulePool)
	noteDeadHeap(marked, deadBytes)
	setShadowGoal()
	sweptHeapGranules(kept)
}

type hook struct {
	f       func()
	running atomic.Bool
}

var (
	hooksMu spin.Mutex
	hooks   []*hook
)

// AfterGC registers f to run (in its own goroutine) after every GC cycle,
// once lagGen has advanced. The detector sweeps its sync-object tables this
// way.
func AfterGC(f func()) {
	hooksMu.Lock()
	hooks = append(hooks, &hook{f: f})
	hooksMu.Unlock()
}

// IsHeap reports whether p, which must not point into a goroutine stack,
// points into the garbage-collected heap.
func IsHeap(p unsafe.Pointer) bool { return classify(p) == kindHeap }

// InHeapObject reports whether p points into an allocated object of the
// heap. Unlike IsHeap it never registers a cleanup (which starts the
// runtime's cleanup goroutine): anything else is false.
func InHeapObject(p unsafe.Pointer) bool { return heapObject(p) }

// PtrOf converts an address the caller keeps reachable back to a pointer.
func PtrOf(addr uintptr) unsafe.Pointer { return ptrOf(addr) }

// OnStack reports whether p points into the stack of the goroutine whose
// runtime g is gp (nil: unknown, false).
func OnStack(gp, p unsafe.Pointer) bool { return onStack(gp, p) }

// ExactGen returns the number of completed GC cycles.
func ExactGen() uint64 { return exactGen() }

// GCCounter names where the shadow reads the number of completed GC
// cycles: "runtime" (the count the driver's file in package runtime
// exposes) or "metrics" (runtime/metrics).
func GCCounter() string {
	if runtimeNumGC != nil {
		return "runtime"
	}
	return "metrics"
}

// IdentProof says how the shadow proves that state kept across GC cycles
// is still its object's: "version" where the runtime counts allocations
// (runtimeVersionPage), else "weak" (holds and weak pointers).
func IdentProof() string {
	if runtimeVersionPage != nil {
		return "version"
	}
	return "weak"
}

// Quiesce waits until the shadow has observed the last GC cycle and no
// background sweep is running. Tests use it before they trigger cycles:
// the sweeper's weak.Pointer.Value calls keep objects alive if they run
// during a mark phase.
func Quiesce() {
	for i := 1; ; i++ {
		unseen := sentGen.Load() != exactGen()
		busy := unseen || releaseRunning.Load()
		spacesMu.Lock()
		for _, s := range spaces {
			busy = busy || s.sweeping.Load()
		}
		spacesMu.Unlock()
		hooksMu.Lock()
		for _, h := range hooks {
			busy = busy || h.running.Load()
		}
		hooksMu.Unlock()
		if !busy {
			return
		}
		if unseen && i%1000 == 0 {
			// A sentinel allocated during a cycle's mark phase survives
			// that cycle; only a later cycle runs its finalizer. Only
			// then: a cycle forced while a long sweep runs starts
			// another sweep, and Quiesce would never return.
			runtime.GC()
		}
		runtime.Gosched()
	}
}
