// Copyright 2026 The bigfoot Authors. All rights reserved.

package detector

import (
	"sync/atomic"
	"unsafe"

	"github.com/bigfoot-go/bigfoot/internal/spin"
	"github.com/bigfoot-go/bigfoot/shadow"
)

// The history: what a report needs to print the stack of a race's
// earlier access, whose shadow cell keeps only its epoch and site.
//
// Go's race runtime keeps a trace per goroutine of function entries,
// exits and memory accesses, and replays it up to the earlier access's
// epoch (ThreadSanitizer's RestoreStack). bigfoot's instrumented code
// makes no call at function entry or exit, and its same-epoch checks
// store nothing. So the history is written where a check records an
// epoch and a site in the shadow, its slow path (check after a failed
// Same, range, strided and footprint checks), never on the same-epoch
// fast path: the slow path walks the goroutine's frame pointers and
// hashes the return addresses, and a goroutine's thread id keeps a ring
// of entries (site, stack, clocks from–to, bytes), each saying that every
// access at the site in those epochs of the thread id was made with that
// stack, and which bytes they touched in the last of them. A site's next
// access with the stack of its last entry widens the bytes or extends
// the entry to the current clock (one atomic store per site and epoch);
// another stack appends an entry. Stacks are hash-consed (stacks.go).
//
// A report looks up the earlier access's thread id, clock, site and
// address (restore). It cannot restore the stack when the ring has moved
// past the access (histMax entries, each a new (site, stack) pair of the
// thread id since), when the depot was full, or when a pending check's
// ranges came through several stacks: the report then prints the site
// and says so.

const (
	histMin   = 32   // entries of a new ring
	histMax   = 1024 // entries of a ring at most (40 KiB)
	histSlots = 256  // the per-thread-id cache of sites' last entries
)

// A history is one thread id's: the ring of its entries and the cache
// its current owner, the only writer, appends and extends through.
// Thread ids outlive goroutines (recycled ids continue their clocks), so
// a goroutine that has finished keeps its history until the ring moves
// on.
//
// The owner appends under mu with plain stores (add), and extends an
// entry without it by atomic stores of to, lo and hi (extend): a report
// holds mu and loads those three atomically (restore). Every atomic
// store is a full barrier on amd64, so add stores none.
type history struct {
	mu   spin.Mutex // guards ents, n and appends; held by readers
	ents []histEntry
	n    uint64 // entries appended; entry k is ents[k%len(ents)]
	// first is the first entry the ring holds: a ring that wrapped
	// before it grew lost the ones before (grownRing).
	first uint64
	// slots[slotOf(s)] is site s's last entry (the owner's only)
	slots [histSlots]histSlot
	// changes is the thread id's log of footprints' site changes
	// (sitechange.go), a ring of changeMin to changeMax entries once
	// made; change k is changes[k%len(changes)]. Guarded by mu.
	changes []siteChange
	cn      uint64
}

// slotOf returns the cache slot of site s: a multiplicative hash, since
// one function's sites are consecutive.
func slotOf(s uint32) uint32 { return s * 0x9e3779b1 >> 24 }

// A histEntry says that every access at site by the thread id in the
// clocks [from, to] had the stack stack, and those of clock to touched
// bytes within [lo, hi). to, lo and hi are accessed atomically but in
// add, under the history's mu.
type histEntry struct {
	from, to    uint64
	lo, hi      uintptr
	site, stack uint32
}

// A histSlot caches a site's last entry: its stack's hash (of the frame
// walk, stackHash) and the entry's sequence number plus 1.
type histSlot struct {
	site uint32
	hash uint64
	seq  uint64
}

// historyOf returns thread id tid's history, making it, or nil while
// the history is off (BIGFOOT_OPTIONS=history=0).
func (ts *tidTable) historyOf(tid uint32) *history {
	if !opts.history {
		return nil
	}
	ts.mu.Lock()
	defer ts.mu.Unlock()
	for len(ts.hists) <= int(tid) {
		ts.hists = append(ts.hists, nil)
	}
	h := ts.hists[tid]
	if h == nil {
		h = &history{ents: make([]histEntry, histMin)}
		ts.hists[tid] = h
	}
	return h
}

// note records that g's access of the bytes [lo, hi) at site in its
// current epoch is made with the calling stack. Only the slow paths of
// checks call it.
func (g *G) note(site uint32, lo, hi uintptr) {
	if g.hist != nil && site != 0 && !unnoted(site) {
		g.noteSlow(site, lo, hi)
	}
}

//go:noinline
func (g *G) noteSlow(site uint32, lo, hi uintptr) {
	if ownStack(g.t.GP, lo) {
		// The shadow never records the goroutine's own stack, so no
		// report asks for the stack of such an access; and it takes the
		// slow path every time. (An address left stale by a move of the
		// stack is noted, which is harmless.)
		return
	}
	h := g.hist
	clock := g.t.Epoch.Clock()
	if id := g.pendStack; id != 0 {
		// A pending check (pending.go): its accesses' stack, taken
		// when it opened, or none.
		hash := 1<<63 | uint64(id)
		if id == unknownStack {
			id = 0
		}
		h.noteStack(site, hash, id, clock, lo, hi)
		return
	}
	walk := stackHash(g.t.GP)
	hash := walk
	if g.committing {
		hash = ^hash
	}
	s := &h.slots[slotOf(site)]
	if s.site == site && s.hash == hash && s.seq != 0 && h.extend(s, clock, lo, hi) {
		return
	}
	id := depotLookup(walk)
	if id == 0 && !depotFull.Load() {
		var pcs [maxStack]uintptr
		id = intern(pcs[:stackPCs(g.t.GP, &pcs)])
	}
	if id != 0 && g.committing {
		id |= commitStack
	}
	h.add(s, site, hash, id, clock, lo, hi)
}

// commitStack marks the stack id of an entry noted by a footprint's
// commit (footprint.go): the stack is where the check was made, the
// function of the access's site somewhere on it, not necessarily its
// first frame. Ids stay below it (depotMax).
const commitStack = 1 << 31

// noteStack records an access of [lo, hi) at site in clock made with the
// stack id, whose cache hash is hash.
func (h *history) noteStack(site uint32, hash uint64, id uint32, clock uint64, lo, hi uintptr) {
	s := &h.slots[slotOf(site)]
	if s.site == site && s.hash == hash && s.seq != 0 && h.extend(s, clock, lo, hi) {
		return
	}
	h.add(s, site, hash, id, clock, lo, hi)
}

// extend makes slot s's entry cover an access of [lo, hi) in clock, if
// the ring still holds it. The entry's bytes are those of its last
// clock: a new clock starts them anew, after storing to, so that a
// reader that finds to unchanged around its loads of lo and hi has
// bytes of that clock (restore).
func (h *history) extend(s *histSlot, clock uint64, lo, hi uintptr) bool {
	k := s.seq - 1
	if h.n-k > uint64(len(h.ents)) || k < h.first {
		return false // overwritten
	}
	e := &h.ents[k%uint64(len(h.ents))]
	// The owner's loads need not be atomic: it is the only writer.
	if e.to != clock {
		atomic.StoreUint64(&e.to, clock)
		atomic.StoreUintptr(&e.lo, lo)
		atomic.StoreUintptr(&e.hi, hi)
		return true
	}
	if lo < e.lo {
		atomic.StoreUintptr(&e.lo, lo)
	}
	if hi > e.hi {
		atomic.StoreUintptr(&e.hi, hi)
	}
	return true
}

// add appends an entry of site, stack id, clock and bytes [lo, hi) and
// caches it in s.
func (h *history) add(s *histSlot, site uint32, hash uint64, id uint32, clock uint64, lo, hi uintptr) {
	h.mu.Lock()
	n := h.n
	if l := uint64(len(h.ents)); n >= l && l < histMax {
		if r := grownRing(h.ents, n); r != nil {
			h.ents, h.first = r, max(h.first, n-l)
		}
	}
	h.ents[n%uint64(len(h.ents))] = histEntry{from: clock, to: clock, lo: lo, hi: hi, site: site, stack: id}
	h.n = n + 1
	h.mu.Unlock()
	*s = histSlot{site: site, hash: hash, seq: n + 1}
}

// The rings a history grows to, made ahead (reserve.go), 140 KiB at the
// start. A ring full while its reserve is out of rings wraps, and grows
// later (grownRing): a history never allocates in the middle of a call
// that a test counts the allocations of.
var (
	rings64   = newReserve[[64]histEntry](8, 128)
	rings128  = newReserve[[128]histEntry](4, 64)
	rings256  = newReserve[[256]histEntry](2, 32)
	rings512  = newReserve[[512]histEntry](2, 16)
	rings1024 = newReserve[[histMax]histEntry](1, 8)
)

// grownRing returns a ring of twice the entries of ents, holding its
// entries of sequence numbers below n (the last len(ents) of them) at
// their places in the larger ring; or nil if the reserve of the size
// is out of rings.
func grownRing(ents []histEntry, n uint64) []histEntry {
	var r []histEntry
	switch 2 * len(ents) {
	case 64:
		if p := rings64.tryGet(); p != nil {
			r = p[:]
		}
	case 128:
		if p := rings128.tryGet(); p != nil {
			r = p[:]
		}
	case 256:
		if p := rings256.tryGet(); p != nil {
			r = p[:]
		}
	case 512:
		if p := rings512.tryGet(); p != nil {
			r = p[:]
		}
	case histMax:
		if p := rings1024.tryGet(); p != nil {
			r = p[:]
		}
	}
	if r == nil {
		return nil
	}
	l, m := uint64(len(ents)), uint64(len(r))
	for k := n - min(n, l); k < n; k++ {
		r[k%m] = ents[k%l]
	}
	return r
}

// restore returns the stack of the access at site in epoch e that
// touched the 8-byte granule of addr, and whether a footprint's commit
// noted it (commitStack). The shadow keeps the first access of a
// location in an epoch (later ones of the same kind are same-epoch), and
// the entries of one site and clock are in the order of their first
// access in that clock (an entry extended into the clock was the site's
// last, so it came before any added in it; one extended past the clock
// was the last added in it): so the first entry of the site and clock
// whose bytes of that clock touch the granule made the access, and an
// entry with no bytes of that clock (extended past it) is the only one
// left that can have. [lo, hi) are the bytes the entry's last clock
// touched (0 if no entry is found): a report finds from them where the
// range the access was checked in started, and which bytes of a group's
// granule raced (exact.go).
func restore(e shadow.Epoch, site uint32, addr uintptr) (pcs []uintptr, commit bool, lo, hi uintptr) {
	tids.mu.Lock()
	var h *history
	if t := e.TID(); int(t) < len(tids.hists) {
		h = tids.hists[t]
	}
	tids.mu.Unlock()
	if h == nil || site == 0 {
		return nil, false, 0, 0
	}
	clock, gran := e.Clock(), addr&^7
	h.mu.Lock()
	n := h.n
	id, found := uint32(0), false
	for k := max(n-min(n, uint64(len(h.ents))), h.first); k < n && !found; k++ {
		x := &h.ents[k%uint64(len(h.ents))]
		to := atomic.LoadUint64(&x.to)
		if x.site != site || clock < x.from || clock > to {
			continue
		}
		xlo, xhi := atomic.LoadUintptr(&x.lo), atomic.LoadUintptr(&x.hi)
		if to == clock && atomic.LoadUint64(&x.to) == clock && (xhi <= gran || xlo >= gran+8) {
			continue // its bytes of the clock are elsewhere
		}
		id, found, lo, hi = x.stack, true, xlo, xhi
	}
	h.mu.Unlock()
	if pcs := stackOf(id &^ commitStack); pcs != nil {
		return pcs, id&commitStack != 0, lo, hi
	}
	return nil, false, lo, hi
}

// ownStack reports whether address a is on the stack of the goroutine
// whose runtime g is gp (nil: unknown, false), whose bounds are the g's
// first two words.
func ownStack(gp unsafe.Pointer, a uintptr) bool {
	if gp == nil {
		return false
	}
	return *(*uintptr)(gp) <= a && a < *(*uintptr)(unsafe.Add(gp, unsafe.Sizeof(uintptr(0))))
}
