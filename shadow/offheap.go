// Copyright 2026 The bigfoot Authors. All rights reserved.

package shadow

// Shadow memory outside the Go heap.
//
// The shadow of a freshly allocated object (a granule per 8 bytes touched,
// a 4 KiB slot array per page) used to live on the Go heap. The garbage
// collector's pacer counts it as live heap, so every cycle's goal grew
// with the shadow of the previous cycle's garbage, which let the program
// allocate more garbage before the next cycle, which made more shadow: on
// bench/workloads/montecarlo (10M small objects, all dropped) the live
// heap after each cycle grew by about 1.4x per cycle, to 670 MB and a
// peak RSS of 940 MiB, where the plain program needs 11 MiB.
//
// So the two structures that grow with the memory a program touches, the
// slot arrays of pages and the granules of memory one goroutine touched,
// are carved out of memory mapped outside the heap (offheap_linux.go), in
// fixed-size blocks recycled through free lists. The pacer never sees
// them, the collector never scans them, and a granule dropped because its
// object died is reused for the next object at once instead of becoming
// garbage for the next cycle.
//
// The collector does not see pointers stored outside the heap either, so
// the rules are:
//
//   - An off-heap granule (granule.off) holds no pointer into the heap: no
//     read vector clock, no weak pointer, and parts only off the heap
//     (newOffParts), themselves without read vector clocks. Those appear
//     only once a second goroutine touches the granule (validate) or a
//     read needs a read vector clock (update); both first move the state,
//     parts included, to a heap granule (promote). retire frees the parts
//     with their granule.
//   - Every slot store goes through page.set or page.setRange. A heap
//     granule or run stored in a slot is also kept in the page's keep
//     list, which is on the heap; the sweep prunes the entries neither
//     the page's array nor full refers to any more (page.prune). The
//     stores themselves need no write barrier (storeSlot).
//   - A page gets a slot array lazily (slotsW; a page one run covers
//     needs none) and keeps it until the page is unreachable (page.own,
//     freed by a cleanup on the page), because goroutines cache pages and
//     read their slots without locks: compress only drops arr, and the
//     next slotsW refills the same array. A granule is freed under its stripe lock, when it
//     leaves its slot; a fast path that loaded it just before may read its
//     next user's epochs, which are never its own current epoch (only the
//     reading goroutine writes that), so it falls back to the slow path,
//     which reads the slot again under the lock. A freed granule keeps
//     hi != 0, so that it is never taken for a run.

import (
	"runtime"
	"sync/atomic"
	"unsafe"

	"github.com/bigfoot-go/bigfoot/internal/ownheap"
	"github.com/bigfoot-go/bigfoot/internal/spin"
)

// OffHeap returns n bytes of zeroed memory outside the Go heap, never freed
// (on Linux; elsewhere pointer-free chunks of the heap kept forever: see
// mapMemory). It is for the detector's tables that must neither count
// in a program's allocations nor raise the collector's heap goal; they
// may hold no pointer into the heap.
func OffHeap(n uintptr) unsafe.Pointer { return mapMemory(n, false) }

// A blockPool hands out fixed-size blocks of memory outside the Go heap.
// Goroutines take and return granules poolBatch at a time, through a cache
// in their Thread, so that the pool's lock is taken once per poolBatch
// first accesses of fresh memory; the free blocks are kept as addresses in
// a stack of their own (freestack.go) rather than linked through the
// blocks, so that moving a batch touches none of them.
type blockPool struct {
	size  uintptr // bytes per block
	chunk uintptr // bytes mapped at a time
	huge  bool    // map with huge pages (see mapMemory)
	warm  uintptr // bytes of the next free block get prefetches (see get)
	inUse atomic.Int64

	mu   spin.Mutex
	free freeStack // addresses of free blocks
	next uintptr   // next unused block of the current chunk
	left uintptr   // unused blocks in the current chunk
}

// poolBatch is how many blocks move at once between the pool and a
// goroutine's cache, or from the sweeper to the pool.
const poolBatch = 32

// get fills dst with free blocks. Their contents are those of their last
// user (zero for a block never used).
func (p *blockPool) get(dst []uintptr) {
	if n := p.inUse.Add(int64(len(dst))); p == &granulePool {
		paceGranules(n)
	}
	p.mu.Lock()
	n := p.free.pop(dst)
	if p.warm != 0 && p.free.len() > 0 {
		// The next get's block, last written a GC cycle ago, is loaded
		// while its caller does other work (fresh.go's clear of it).
		for b, off := p.free.last(), uintptr(0); off < p.warm; off += 64 {
			prefetch(b + off)
		}
	}
	for ; n < len(dst); n++ {
		if p.left == 0 {
			p.next = uintptr(mapMemory(p.chunk, p.huge))
			p.left = p.chunk / p.size
		}
		dst[n] = p.next
		p.next += p.size
		p.left--
	}
	p.mu.Unlock()
}

// put returns the blocks src to the pool.
func (p *blockPool) put(src []uintptr) {
	p.inUse.Add(-int64(len(src)))
	p.mu.Lock()
	p.free.push(src)
	p.mu.Unlock()
}

// A blockCache holds up to poolBatch free blocks of a pool for one owner.
type blockCache struct {
	n int
	b [poolBatch]uintptr
}

// alloc returns a block from c, refilling it from p if it is empty, and
// prefetches the block the next alloc will return. A recycled block was
// last written by the sweeper, long before, and blocks come back in no
// useful order, so the first store into each one missed the caches (with
// four fresh granules per item, newGranule was 14% of the pipeline
// workload's time); a goroutine makes its next granule after the access
// that wanted this one, time enough for the line to arrive.
func (c *blockCache) alloc(p *blockPool) unsafe.Pointer {
	if c.n == 0 {
		p.get(c.b[:])
		c.n = len(c.b)
	}
	c.n--
	if c.n > 0 {
		prefetch(c.b[c.n-1])
	}
	return ptrOf(c.b[c.n])
}

// free adds block b to c, returning c's blocks to p if it is full.
func (c *blockCache) free(p *blockPool, b unsafe.Pointer) {
	if c.n == len(c.b) {
		p.put(c.b[:])
		c.n = 0
	}
	c.b[c.n] = uintptr(b)
	c.n++
}

// flush returns c's blocks to p.
func (c *blockCache) flush(p *blockPool) {
	p.put(c.b[:c.n])
	c.n = 0
}

// Release returns the off-heap blocks t caches to their pools. The
// detector calls it when t's goroutine exits.
func (t *Thread) Release() {
	t.granules.flush(&granulePool)
}

var (
	granulePool = blockPool{
		size:  unsafe.Sizeof(granule{}),
		chunk: granuleChunk,
		huge:  true,
	}
	slotsPool = blockPool{
		// One cache line more than the array, so that consecutive
		// arrays do not map slot i to the same cache set.
		size:  unsafe.Sizeof(slotArray{}) + 64,
		chunk: slotsChunk,
	}
)

// newGranule returns an empty off-heap granule for the bytes [lo, hi)
// stamped with generation gen, for an access by t.
func newGranule(t *Thread, lo, hi uint8, gen uint32) *granule {
	gr := (*granule)(t.granules.alloc(&granulePool))
	// Field by field: a fast path that loaded this block while it held
	// another granule may still read it, and must never see hi == 0 (a
	// run). The fields that hold pointers are zero in every free block:
	// id and whole.rvc in every off-heap granule, split since retire.
	gr.lo, gr.hi = lo, hi
	gr.off = true
	initU32(&gr.owner, 0)
	initU32(&gr.whole.wsite, 0)
	initU32(&gr.whole.rsite, 0)
	gr.immortal, gr.foreign, gr.vok, gr.id = false, false, false, nil
	initU32(&gr.gen, gen)
	return gr
}

// initU32 sets an atomic field of a granule that no slot holds yet (new,
// or recycled and not yet published) with a plain store. An atomic store
// is a locked instruction, which on the first touch of a fresh block
// waits for the cache miss (newGranule's stores of owner, sites and gen
// were 5% of the pipeline workload's time as atomic stores); publication
// (page.add, page.set) orders the plain stores before any reader that
// finds the granule in its slot. A lock-free path that loaded the block
// from a slot before it was recycled may read either value (see the
// package comment of offheap.go); under Go's race detector blocks are
// not recycled (recycleGranules), so it sees no race.
func initU32(a *atomic.Uint32, v uint32) {
	*(*uint32)(unsafe.Pointer(a)) = v
}

// initU64 is initU32 for an epoch word. first writes the epoch of a new
// granule with it: the granule's block is usually cold (recycled by the
// sweeper, or never touched), and an atomic store, a locked instruction,
// waits for the miss where a plain store leaves it to the store buffer
// (the atomic store was 18% of BenchmarkFreshObject's samples).
func initU64(a *atomic.Uint64, v uint64) {
	*(*uint64)(unsafe.Pointer(a)) = v
}

// freeGranule returns gr to the pool if it is off the heap; the stripe
// lock of its slot is held and gr is no longer in it. t is the goroutine
// that frees it, if any.
func freeGranule(t *Thread, gr *granule) {
	if !retire(gr) || !recycleGranules {
		return
	}
	if t == nil {
		granulePool.put([]uintptr{uintptr(unsafe.Pointer(gr))})
		return
	}
	t.granules.free(&granulePool, unsafe.Pointer(gr))
}

// retire prepares gr to be freed and reports whether it is off the heap.
func retire(gr *granule) bool {
	if gr == nil || !gr.off {
		return false
	}
	// Fast paths that loaded gr before it left its slot must fail.
	// An epoch word that is 0 already is left alone (a granule of
	// fresh memory usually recorded only a write or only a read): an
	// atomic store is a locked instruction, and no one makes a 0 word
	// nonzero meanwhile (exclusive replaces only nonzero epochs, and
	// the locked paths need the stripe lock, which the caller holds).
	if gr.whole.w.Load() != 0 {
		gr.whole.w.Store(0)
	}
	if gr.whole.r.Load() != 0 {
		gr.whole.r.Store(0)
	}
	if sp := gr.split.Load(); sp != nil {
		// Fast paths that loaded gr then find its whole cell, zeroed.
		gr.split.Store(nil)
		freeParts(sp)
	}
	return true
}

// promote returns a heap granule with gr's state, installed in slot gi in
// its place, if gr is off the heap (else gr). The stripe lock is held.
// It is called before gr gets anything the collector must see.
func (pg *page) promote(t *Thread, gi uintptr, gr *granule) *granule {
	if !gr.off {
		return gr
	}
	ngr := heapGranule(gr.lo, gr.hi)
	madeHeapGranule()
	initU32(&ngr.owner, gr.owner.Load())
	// take, not a load: exclusive may be writing gr's epochs, and
	// must not write one that the copy misses.
	w, r := gr.whole.take()
	if moveHook != nil {
		moveHook()
	}
	ngr.whole.w.Store(w)
	ngr.whole.r.Store(r)
	ngr.whole.copySites(&gr.whole)
	ngr.immortal, ngr.foreign, ngr.id = gr.immortal, gr.foreign, gr.id
	ngr.vok, ngr.ver = gr.vok, gr.ver
	initU32(&ngr.gen, gr.gen.Load())
	if sp := gr.split.Load(); sp != nil {
		// copyTo takes the parts' epochs and entries, as above for
		// the whole cell. freeGranule frees gr's.
		np := newParts(sp.shift)
		sp.copyTo(np)
		ngr.split.Store(np)
	}
	pg.set(gi, ngr)
	freeGranule(t, gr)
	return ngr
}

// heapGranule returns a new granule on the heap for the bytes [lo, hi),
// allocated as the detector's (internal/ownheap).
func heapGranule(lo, hi uint8) *granule {
	m := ownheap.Begin()
	gr := &granule{lo: lo, hi: hi}
	m.End()
	return gr
}

// newSlots returns a cleared slot array from the pool for pg, which owns
// it from now on: it returns to the pool when pg is unreachable, for
// goroutines cache pages and read their slots without locks.
func newSlots(pg *page) *slotArray {
	if slotsFreed.Load() != 0 {
		reclaimSlots()
	}
	var b [1]uintptr
	slotsPool.get(b[:])
	a := (*slotArray)(ptrOf(b[0]))
	// Cleared as words: clear of the pointer-typed slots would take the
	// collector's bulk barrier path, for memory it never scans.
	clear((*[granulesPerPage]uintptr)(ptrOf(b[0]))[:])
	pg.own.Store(a)
	m := ownheap.Begin()
	runtime.AddCleanup(pg, freeSlots, b[0])
	m.End()
	return a
}

// slotsFreed is a stack of the slot arrays freeSlots returned, linked
// through their first word, which newSlots moves to slotsPool.
var slotsFreed atomic.Uintptr

// freeSlots returns the slot array at b of an unreachable page: it pushes
// it on slotsFreed, and the next newSlots moves it to the pool. It runs as
// a cleanup, on the runtime's cleanup goroutine, which a program listing
// its goroutines (runtime.Stack) sees while it runs a cleanup, and does
// no more than a push: no lock, no pool's free list that may map memory
// to grow. It does not look at the slots: a page leaves the page table only
// once every slot is nil (Sweep), and what a page that was never removed
// (that of a discarded Space, in tests) still holds may be heap objects
// the collector has freed with the page's keep list; its off-heap
// granules are not reused.
func freeSlots(b uintptr) {
	for {
		next := slotsFreed.Load()
		*(*uintptr)(ptrOf(b)) = next
		if slotsFreed.CompareAndSwap(next, b) {
			return
		}
	}
}

// reclaimSlots moves the slot arrays on slotsFreed to slotsPool. It takes
// the whole stack at once, so a concurrent push or reclaim cannot see an
// array it took.
func reclaimSlots() {
	var batch [poolBatch]uintptr
	n := 0
	for b := slotsFreed.Swap(0); b != 0; {
		next := *(*uintptr)(ptrOf(b))
		batch[n] = b
		if n++; n == len(batch) {
			slotsPool.put(batch[:])
			n = 0
		}
		b = next
	}
	if n > 0 {
		slotsPool.put(batch[:n])
	}
}

// set stores gr in slot gi. The collector does not look at slots, so a
// heap granule or run is also kept in the page's keep list, after it is
// in the slot (see prune). The caller holds the lock that owns the slot.
func (pg *page) set(gi uintptr, gr *granule) {
	storeSlot(&pg.slotsW()[gi], gr)
	if gr == nil {
		return
	}
	if !gr.off {
		pg.keepOf(gr)
	}
}

// setRange stores gr in the slots [g0, g1), like set.
func (pg *page) setRange(g0, g1 uintptr, gr *granule) {
	a := pg.slotsW()
	for gi := g0; gi < g1; gi++ {
		storeSlot(&a[gi], gr)
	}
	if gr != nil && !gr.off {
		pg.keepOf(gr)
	}
}

// storeSlot stores gr in slot s without a write barrier. The collector
// never scans slot arrays (they are off the heap, or pointer-free heap
// chunks under go test -race), and every heap object a slot holds is also
// in its page's keep list, stored with a barrier; the barrier's work on
// every slot store, shading both pointers while a cycle runs, would be
// wasted.
func storeSlot(s *atomic.Pointer[granule], gr *granule) {
	(*atomic.Uintptr)(unsafe.Pointer(s)).Store(uintptr(unsafe.Pointer(gr)))
}

// keepOf adds the heap granule or run gr to the keep list. A page's
// first entry takes a list a dead page left (keepLists).
func (pg *page) keepOf(gr *granule) {
	pg.keepMu.Lock()
	if pg.keep == nil {
		pg.keep = keepLists.get()
	}
	if n := len(pg.keep); n == 0 || pg.keep[n-1] != gr {
		pg.keep = ownheap.Append(pg.keep, gr)
	}
	pg.keepMu.Unlock()
}

// retireKeep gives the empty keep list of pg, a page the sweep removed, to
// keepLists. A goroutine that still holds the page and adds to its list
// later gets a new one.
func (pg *page) retireKeep() {
	pg.keepMu.Lock()
	if len(pg.keep) == 0 && cap(pg.keep) != 0 {
		keepLists.put(pg.keep)
		pg.keep = nil
	}
	pg.keepMu.Unlock()
}

// keepLists holds the keep lists of dead pages for new pages. A page of
// objects that two goroutines share gets a heap granule per adopted
// granule, and its list grew by appending from nothing on every page:
// on the pipeline workload, where each page lives for a cycle or two,
// the lists' growth was 34 bytes of heap per item, 7% of what the process
// allocated (a heap profile at MemProfileRate=4096).
var keepLists keepListPool

// A keepListPool holds empty keep lists.
type keepListPool struct {
	mu    spin.Mutex
	lists [][]*granule
}

// maxKeepLists bounds the lists a pool keeps; maxKeepCap the capacity of
// a list it keeps (a page has granulesPerPage slots).
const (
	maxKeepLists = 256
	maxKeepCap   = granulesPerPage
)

// get returns an empty list, or nil if the pool has none.
func (k *keepListPool) get() []*granule {
	k.mu.Lock()
	defer k.mu.Unlock()
	n := len(k.lists)
	if n == 0 {
		return nil
	}
	l := k.lists[n-1]
	k.lists[n-1] = nil
	k.lists = k.lists[:n-1]
	return l
}

// put keeps the empty list l unless the pool is full or l is too large.
func (k *keepListPool) put(l []*granule) {
	if cap(l) > maxKeepCap {
		return
	}
	clear(l[:cap(l)]) // no pointer to a dropped granule stays reachable
	k.mu.Lock()
	if len(k.lists) < maxKeepLists {
		k.lists = ownheap.Append(k.lists, l[:0])
	}
	k.mu.Unlock()
}

// prune drops the entries of the keep list that no slot holds. A writer
// stores into a slot before it adds to the list, and keeps the pointer
// reachable meanwhile, so nothing in a slot is ever unreachable.
func (pg *page) prune(seen map[*granule]struct{}) {
	pg.keepMu.Lock()
	defer pg.keepMu.Unlock()
	if len(pg.keep) == 0 {
		return
	}
	clear(seen)
	if f := pg.full.Load(); f != nil {
		seen[f] = struct{}{} // it may be what a stale array still shows
	}
	if a := pg.own.Load(); a != nil {
		// own, not arr: a reader may still read the array compress dropped.
		for i := range a {
			if gr := a[i].Load(); gr != nil && !gr.off {
				seen[gr] = struct{}{}
			}
		}
	}
	k := pg.keep[:0]
	for _, gr := range pg.keep {
		if _, ok := seen[gr]; ok {
			k = append(k, gr)
			delete(seen, gr)
		}
	}
	clear(pg.keep[len(k):])
	pg.keep = k
}
