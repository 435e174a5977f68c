// Copyright 2026 The bigfoot Authors. All rights reserved.

package detector

import (
	"runtime"
	"unsafe"

	"github.com/bigfoot-go/bigfoot/shadow"
)

// Checks moved past a function's return.
//
// A function's footprints are committed when it returns (PopFootprints).
// BigFoot may move a check later, up to the goroutine's next
// synchronization, when that lets one check cover more accesses
// (Rhodes' thesis §3.3.1: a check is legitimate anywhere in the
// release-free span after its access, and coalescing checks of adjacent
// elements is what makes it cheaper). A recursive, synchronization-free
// computation over one array (a merge sort's leaves and merges, a
// divide-and-conquer scan) returns from thousands of calls, each with a
// contiguous range over a neighbouring part of the array: checked at each
// return, that is one shadow operation per call, and a shadow refined
// into one run per call's range.
//
// So a footprint committed at its function's return, or at its loop's
// next execution (a static range that does not continue where the last
// one ended), whose range is contiguous (step equal to the element size),
// is not checked at once but merged into the goroutine's pending checks
// (as are the checks of copy): a few contiguous byte ranges, each of one object, one
// kind (read or write), one element size and one function (the function
// of its sites, so that a report names a line of the function that made
// the access). A range that overlaps or touches a pending one of the same
// key extends it: the union holds only accessed elements, each of that
// kind in this span, so checking it is legitimate. The pending checks are
// made
//
//   - before the goroutine's next synchronization and when it ends
//     (commitFootprints), as every footprint is;
//   - before time.Sleep (a goroutine that sleeps after its work must
//     have it checked, for another goroutine's later access to find it);
//   - when a pending check has merged pendMerges ranges, or the goroutine
//     has popped pendPops footprints since the oldest pending check
//     began: a goroutine that keeps calling functions without ever
//     synchronizing has its accesses checked at least that often;
//   - and when a range that extends none finds the set full: the oldest
//     of its key if there is one (a loop that writes only some elements
//     leaves gaps, and moves on), else the oldest.
//
// Each pending check holds its object (so the collector cannot reuse its
// memory before the check), exactly as the footprint did.

const (
	pendMax    = 8    // pending checks per goroutine
	pendMerges = 4096 // ranges merged into one pending check, at most
	pendPops   = 4096 // footprint pops between the oldest pending check's start and its check
	// pendLarge is the size in bytes from which a range is checked at
	// once: it is one operation already, over runs of whole pages, and
	// the program's next accesses of it would otherwise make per-granule
	// state of their own before the pending write came (a buffer filled,
	// then read word by word: the shadow's memory more than doubled).
	pendLarge = 16 << 10
)

// A pendingCheck is a contiguous range check moved past the return of
// the function that made its accesses.
type pendingCheck struct {
	lo, hi uintptr        // the bytes [lo, hi): whole elements of size bytes
	size   uintptr        // element size
	obj    unsafe.Pointer // the heap object of the range, kept alive; nil for a global
	fn     uint32         // siteFunc(site)
	site   uint32         // the site of the first range merged in
	write  bool
	merges int
	// stack is the id of the accesses' stack (history.go) from their
	// function's frame (userPCs), taken when the check opened, or
	// unknownStack once a range made with another stack merged in; hash
	// is the hash of the first's callers.
	stack uint32
	hash  uint64
	// subs are the ranges merged in, by site, in the order they came
	// (nsub of them). A check of more than one is made
	// sub by sub, each at its site, so that a race names the site that
	// accessed the racing bytes, and the shadow keeps it, as the
	// accesses' own checks would. A range of a site the subs do not
	// hold, when they are full, makes the check first (deferRange).
	subs [pendSubs]pendingSub
	nsub int
}

// pendSubs is the number of ranges of distinct sites a pending check
// tells apart.
const pendSubs = 4

// A pendingSub is one range of a pending check's: the bytes [lo, hi) a
// site accessed, and the element grid of its range (Footprint.org; 0 if
// unknown: the array is taken to start its heap object).
type pendingSub struct {
	lo, hi       uintptr
	org, orgElem uintptr
	site         uint32
	// top is the height of the goroutine's footprint stack when the
	// sub last took bytes, less the footprints being popped then (the
	// highest, of subs joined): a footprint now at or above it was
	// pushed after, so the sub's accesses came before all of that
	// footprint's (pendingBefore).
	top int
}

// mergeSubs adds o's subs to c's and reports whether they fit; if not,
// c is left as it was. A sub joins one of the same site that it overlaps
// or touches, unless it overlaps a later sub (whose access came before
// it: checked first, the later sub would be named for bytes the earlier
// one's site accessed first); else it is added. Two grids make the
// joined sub's unknown: a recursion over the subslices of one array (a
// merge sort's) defers one range per call, each on its own grid, and
// must not fill the subs.
func (c *pendingCheck) mergeSubs(o *pendingCheck) bool {
	subs, n := c.subs, c.nsub
next:
	for _, s := range o.subs[:o.nsub] {
		for i := n - 1; i >= 0; i-- {
			l := &subs[i]
			if l.site == s.site && s.lo <= l.hi && s.hi >= l.lo {
				l.lo, l.hi = min(l.lo, s.lo), max(l.hi, s.hi)
				l.top = max(l.top, s.top)
				if l.org != s.org || l.orgElem != s.orgElem {
					l.org, l.orgElem = 0, 0
				}
				continue next
			}
			if s.lo < l.hi && s.hi > l.lo {
				break // overlaps a later sub
			}
		}
		if n == pendSubs {
			return false
		}
		subs[n] = s
		n++
	}
	c.subs, c.nsub = subs, n
	return true
}

// unknownStack is a pending check's stack when its ranges were made
// with several stacks, or none was kept.
const unknownStack = ^uint32(0)

// pendingChecks is a goroutine's set of pending checks, oldest first.
// The checks' array is made at the goroutine's first deferred range:
// inline it was two thirds of a G (about 2 KB of the 2.8 KB that every go
// statement allocated), and most goroutines never defer one.
type pendingChecks struct {
	n     int
	pops  int                    // footprints popped since the oldest pending check began
	c     *[pendMax]pendingCheck // nil until the first deferRange
	moved uint64                 // ranges moved into the set (stats)
	made  uint64                 // pending checks made (stats)
	// site and fn cache the last siteFunc lookup.
	site, fn uint32
}

// deferRange merges the n contiguous elements of size bytes at lo, of
// kind write, made at site, into the goroutine's pending checks.
func (g *G) deferRange(lo, size uintptr, n int, write bool, site uint32, obj unsafe.Pointer, org, orgElem uintptr) {
	p := &g.pend
	if p.c == nil {
		p.c = new([pendMax]pendingCheck)
	}
	r := pendingCheck{lo: lo, hi: lo + uintptr(n)*size, size: size, obj: obj, fn: g.siteFunc(site), site: site, write: write, nsub: 1}
	top := g.fp.top
	if g.fp.popping {
		top = g.fp.popTo // the footprints being popped are done with
	}
	r.subs[0] = pendingSub{r.lo, r.hi, org, orgElem, site, top}
	var pcs [maxStack]uintptr
	var user []uintptr // the program's frames (userstack.go)
	if g.hist != nil {
		user = userPCs(pcs[:stackPCs(g.t.GP, &pcs)])
		if len(user) > 0 {
			// The callers of the accesses' function: its own frame's
			// pc (the copy's, the return's) is not the accesses',
			// whose lines a report takes from their sites.
			r.hash = hashPCs(user[1:])
		}
	}
	p.moved++
	for i := 0; i < p.n; i++ {
		if c := &p.c[i]; c.joins(&r) {
			if !c.mergeSubs(&r) {
				// A site more than the check tells apart: make
				// it, and let r start another.
				g.checkPending(i)
				break
			}
			c.lo, c.hi = min(c.lo, r.lo), max(c.hi, r.hi)
			c.merges++
			if c.hash != r.hash {
				c.stack = unknownStack
			}
			i = p.join(i)
			if p.c[i].merges >= pendMerges {
				g.checkPending(i)
			}
			return
		}
	}
	if p.n == pendMax {
		// Make the oldest check of the same key: the ranges of one
		// key that left a gap (a loop writing only some elements)
		// move on and rarely come back to it; other keys' checks
		// are still growing.
		victim := 0
		for i := 0; i < p.n; i++ {
			if p.c[i].sameKey(&r) {
				victim = i
				break
			}
		}
		g.checkPending(victim)
	}
	if p.n == 0 {
		p.pops = 0
	}
	r.stack = unknownStack
	if id := intern(user); id != 0 {
		r.stack = id
	}
	p.c[p.n] = r
	p.n++
}

// sameKey reports whether c and o are checks of one object, kind,
// element size and function (of one site if the function is unknown).
func (c *pendingCheck) sameKey(o *pendingCheck) bool {
	return c.obj == o.obj && c.write == o.write && c.size == o.size &&
		(c.site == o.site || c.fn == o.fn && c.fn != 0)
}

// joins reports whether c and o have the same key and their elements
// overlap or touch on one grid: their union is one contiguous range.
func (c *pendingCheck) joins(o *pendingCheck) bool {
	return c.sameKey(o) && o.lo <= c.hi && o.hi >= c.lo && int(o.lo-c.lo)%int(c.size) == 0
}

// moveRange checks n contiguous elements of size bytes at p of kind
// write, made at site, before the goroutine's next synchronization: in
// its pending checks if they lie in a heap object (which the pending
// check keeps alive), at once otherwise (a stack, which may move, or
// memory the collector does not manage) and if they are pendLarge bytes
// or more. copy's checks take this path:
// those of a merge's copies coalesce with its loops' ranges.
func (g *G) moveRange(p unsafe.Pointer, size uintptr, n int, write bool, site uint32) {
	base, osize, heap := shadow.ObjectBounds(uintptr(p))
	if !heap || osize == 0 || uintptr(p) < minAddr || uintptr(n)*size >= pendLarge {
		g.checkRange(p, size, 0, n, 1, write, site)
		return
	}
	if countAccesses {
		g.accesses += uint64(n)
	}
	if verifyChecks {
		g.verifyRecord(p, size, size, n, verifyKind(write)|vAccess, site)
	}
	if g.fp.dirty {
		g.commitBefore(uintptr(p), uintptr(p)+uintptr(n)*size)
	}
	g.deferRange(uintptr(p), size, n, write, site, shadow.PtrOf(base), 0, 0)
}

// join merges into pending check i every other one that it now overlaps
// or touches (a range that filled the gap between two), and returns i's
// index.
func (p *pendingChecks) join(i int) int {
	for j := 0; j < p.n; j++ {
		c, o := &p.c[i], &p.c[j]
		if j == i || !c.joins(o) || !c.mergeSubs(o) {
			continue // two checks of more sites than one tells apart stay two
		}
		c.lo, c.hi = min(c.lo, o.lo), max(c.hi, o.hi)
		c.merges += o.merges + 1
		if c.hash != o.hash || o.stack == unknownStack {
			c.stack = unknownStack
		}
		copy(p.c[j:p.n], p.c[j+1:p.n])
		p.n--
		p.c[p.n] = pendingCheck{}
		if j < i {
			i--
		}
		j = -1 // look again: the union may touch another
	}
	return i
}

// siteFunc identifies the function of site s (0 if unknown), through a
// one-entry cache: a goroutine mostly defers the ranges of one function
// again and again.
func (g *G) siteFunc(s uint32) uint32 {
	p := &g.pend
	if s != p.site || s == 0 {
		p.site, p.fn = s, funcOfSite(s)
	}
	return p.fn
}

// popped counts a PopFootprints and makes the pending checks if the
// oldest has waited pendPops pops.
func (g *G) popped() {
	p := &g.pend
	if p.n == 0 {
		return
	}
	if p.pops++; p.pops >= pendPops {
		g.checkAllPending()
	}
}

// checkPending makes pending check i and removes it from the set.
func (g *G) checkPending(i int) {
	p := &g.pend
	c := p.c[i]
	copy(p.c[i:p.n], p.c[i+1:p.n])
	p.n--
	p.c[p.n] = pendingCheck{}
	g.makePending(&c)
}

// checkAllPending makes every pending check, oldest first.
func (g *G) checkAllPending() {
	p := &g.pend
	for p.n > 0 {
		g.checkPending(0)
	}
	p.pops = 0
}

// makePending checks the elements of c in one operation, as the
// footprint it came from would have, or in one per site when ranges of
// several sites merged into it.
func (g *G) makePending(c *pendingCheck) {
	if g.changes != nil {
		g.flushChanges()
	}
	g.committing = true
	g.pendStack = c.stack
	defer func() { g.committing, g.pendStack, g.org, g.orgElem = false, 0, 0, 0 }()
	g.pend.made++
	if c.nsub == 1 {
		g.org, g.orgElem = c.subs[0].org, c.subs[0].orgElem
		g.checkElements(c.lo, c.hi, c.size, c.write, c.site)
	} else {
		for _, s := range c.subs[:c.nsub] {
			g.org, g.orgElem = s.org, s.orgElem
			g.checkElements(s.lo, s.hi, c.size, c.write, s.site)
		}
	}
	runtime.KeepAlive(c.obj)
}

// checkElements checks the elements of size bytes in [lo, hi).
func (g *G) checkElements(lo, hi, size uintptr, write bool, site uint32) {
	if n := int((hi - lo) / size); n == 1 {
		g.checkOne(shadow.PtrOf(lo), size, write, site)
	} else {
		g.checkStrided(shadow.PtrOf(lo), size, size, n, write, site)
	}
}
