// Copyright 2026 The bigfoot Authors. All rights reserved.

package detector

import (
	"io"

	"github.com/bigfoot-go/bigfoot/shadow"
)

// An access a goroutine made before the one whose check found a race may
// still be unchecked: held in a footprint or a pending check, whose check
// comes at the next synchronization or return. Go's race runtime checks
// every access as it is made and reports the race at the first access of
// the racing bytes that conflicts; a report of a check made at its access
// (a loop's range pending at a copy of the same elements) names the
// pending access instead, if it conflicts.

// commitBefore commits (to the pending checks, where they may move) the
// footprints of g whose pending accesses overlap [lo, hi), which a range
// moved to the pending checks is about to cover (copy's): their accesses
// came first, and are checked first, so that a race on those bytes names
// them, as go -race would.
func (g *G) commitBefore(lo, hi uintptr) {
	s := &g.fp
	for i := 0; i < s.top; i++ {
		f := &s.chunks[i/fpChunk][i%fpChunk]
		if f.stack || f.direct || !f.overlaps(lo, hi) {
			continue
		}
		s.moving = true
		f.commit()
		s.moving = false
	}
}

// overlaps reports whether f's pending range (its elements' hull) meets
// [lo, hi).
func (f *Footprint) overlaps(lo, hi uintptr) bool {
	if n := f.count(); n > 0 {
		a, b := f.start, f.start+uintptr(n-1)*f.step
		if a > b {
			a, b = b, a
		}
		if a < hi && lo < b+f.size {
			return true
		}
	}
	r := &f.Range
	if r.base == 0 || r.stack {
		return false
	}
	plo, phi, ok := r.pending()
	return ok && r.base+uintptr(plo)*r.elem < hi && lo < r.base+uintptr(phi)*r.elem+r.elem
}

// A heldAccess is an access a footprint or a pending check holds
// unchecked: its site, kind and element grid (Footprint.org), and a
// pending check's stack (0 for a footprint's access, whose function is
// on the goroutine's stack).
type heldAccess struct {
	site      uint32
	write     bool
	org, elem uintptr
	stack     uint32
}

// earlierAccess returns the access of the racing bytes of r that g made
// before the one at site whose check found the race, and still holds
// unchecked, if it conflicts with r's earlier access, with the stack to
// print for it (nil: pcs, the check's, from the frame of the access's
// function). A check made at its access has every access g holds before
// it; a footprint's check (a function's return), only a pending check's
// that took the bytes before the footprint was pushed (pendingBefore):
// a copy the caller made before calling the function whose footprint
// raced. An access of another function whose stack is not known
// (a pending check of ranges made with several) and whose function is
// not on pcs is left out.
func (g *G) earlierAccess(r *shadow.Race, site uint32, pcs []uintptr) (a heldAccess, stack []uintptr, ok bool) {
	switch {
	case !g.committing:
		a, ok = g.earlierPending(r.Addr)
	case g.commitFP != nil:
		a, ok = g.pendingBefore(r.Addr, g.commitFP)
	}
	if !ok || !a.write && !r.PrevWrite || a.site == site {
		return heldAccess{}, nil, false
	}
	switch {
	case funcOfSite(a.site) == funcOfSite(site):
		return a, nil, true
	case a.stack != 0 && a.stack != unknownStack:
		return a, stackOf(a.stack), true
	case writeAccessStack(io.Discard, a.site, access{}, false, pcs, true):
		return a, pcs, true
	}
	return heldAccess{}, nil, false
}

// earlierPending returns an access of addr that one of g's footprints or
// pending checks holds unchecked; ok is false if there is none.
func (g *G) earlierPending(addr uintptr) (a heldAccess, ok bool) {
	if a, ok := g.pendingHolding(addr, -1); ok {
		return a, true
	}
	s := &g.fp
	for i := 0; i < s.top; i++ {
		f := &s.chunks[i/fpChunk][i%fpChunk]
		if f.stack || f.direct {
			continue
		}
		if n := f.count(); n > f.done && inElements(addr, f.start+uintptr(f.done)*f.step, f.step, f.size, n-f.done) {
			return heldAccess{f.site, f.write, f.org, f.orgElem, 0}, true
		}
		r := &f.Range
		if r.base == 0 || r.stack {
			continue
		}
		if lo, hi, held := r.pending(); held {
			s := uintptr(abs(r.step)) * r.elem
			if inElements(addr, r.base+uintptr(lo)*r.elem+r.off, s, r.size, (hi-lo)/abs(r.step)+1) {
				return heldAccess{f.site, f.write, r.org, r.elem, 0}, true
			}
		}
	}
	return heldAccess{}, false
}

// pendingBefore returns an access of addr that one of g's pending checks
// took before footprint f was pushed: the sub that holds it took its
// last bytes while the footprint stack was no higher than f's place.
func (g *G) pendingBefore(addr uintptr, f *Footprint) (heldAccess, bool) {
	if i := g.fp.indexOf(f); i >= 0 && i < g.fp.top {
		return g.pendingHolding(addr, i)
	}
	return heldAccess{}, false
}

// pendingHolding returns an access of addr that one of g's pending
// checks holds, in a sub that took its last bytes while the footprint
// stack was at most top high (-1: at any height).
func (g *G) pendingHolding(addr uintptr, top int) (heldAccess, bool) {
	for i := 0; i < g.pend.n; i++ {
		c := &g.pend.c[i]
		if addr < c.lo || addr >= c.hi {
			continue
		}
		for _, s := range c.subs[:c.nsub] {
			if addr >= s.lo && addr < s.hi && (top < 0 || s.top <= top) {
				return heldAccess{s.site, c.write, s.org, s.orgElem, c.stack}, true
			}
		}
	}
	return heldAccess{}, false
}

// inElements reports whether addr is in one of the n elements of size
// bytes at start, start+step, ... (step two's complement: negative for
// descending).
func inElements(addr, start, step, size uintptr, n int) bool {
	if n <= 0 {
		return false
	}
	if int(step) < 0 {
		start += uintptr(n-1) * step
		step = -step
	}
	if addr < start || step == 0 && addr-start >= size {
		return false
	}
	if step == 0 {
		return true
	}
	d := addr - start
	return d/step < uintptr(n) && d%step < size
}

// ownAccess returns the access of kind write at site s itself.
func ownAccess(s uint32, write bool) (access, bool) {
	_, si, ok := site(s)
	return access{line: si.line, col: si.col, write: write}, ok
}
