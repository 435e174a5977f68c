// Copyright 2026 The bigfoot Authors. All rights reserved.

package detector

import (
	"math/bits"
	"unsafe"

	"github.com/bigfoot-go/bigfoot/shadow"
)

// Checks a nested standard-library function repeats.
//
// The standard library's footprints are checked at its functions'
// returns, never moved to the pending checks (popFootprints): a race in
// it is reported with the stack of the return, which names the library's
// function the program called, as go -race's report does. A recursive
// library function then checks its accesses again at every level of its
// recursion: slices.Sort's pdqsort partitions data[a:b], recurses into
// both halves and sorts the leaves by insertion, so each element is
// checked at each level, about log n times, and the partition's swaps,
// scattered writes its side sets hold, cost a check per short run at
// every level. Every check after an element's first in the epoch is
// FastTrack's same-epoch case, a no-op (Rhodes' thesis §2.3.7), but the
// shadow pays a lookup per run to find that out.
//
// So the footprints of a library function called by another library
// function with footprints (a nested return: the footprint below its
// first on the goroutine's stack is the library's) go through the
// goroutine's seen sets: a bitmap (a side set) per heap object, element
// size and kind, of the elements nested returns checked in the
// goroutine's current epoch; a key gets its set at its second nested
// return in the epoch, so that an object a nested return touches once
// (an encoder's value) costs none. At the return, the elements of a side
// set, or of a contiguous range of seenMin elements or more, that are not
// in the set join it and are checked, as maximal runs, at the
// footprint's site and with the stack of the return, as before; the
// others are not checked again. Nothing is deferred: the reports and the
// history are those of the checks made before, less the same-epoch ones.
//
// A set is forgotten when the goroutine's epoch or the GC generation
// changes (the shadow may drop a check's state after a cycle: Footprint's
// done), at the goroutine's synchronization (commitFootprints, which
// releases its object), and when another key needs its place (the
// oldest). A strided range with an element the set does not hold is
// checked whole, in one operation, as before; a range or side set outside
// its set's window, and memory that is not a heap object, are checked as
// before.

const (
	seenMax = 8 // seen sets per goroutine
	// seenMin is the fewest elements of a range that goes through the
	// seen sets: a short one is a check of a few granules anyway, and an
	// encoder's nested returns make many.
	seenMin = 32
)

// A seenSet is one key's elements checked in the epoch: a side set over a
// window of their object (side.nbits 0: the set is free), with nothing
// pending between two returns.
type seenSet struct {
	side  sideSet
	epoch shadow.Epoch // the goroutine's epoch of the elements
	seq   uint64       // when it was placed: the oldest gives way first
}

// stdSeen is a goroutine's seen sets; the array is made at the first
// nested return.
type stdSeen struct {
	n   int // sets in use
	seq uint64
	c   *[seenMax]seenSet
	// cand holds the keys that a nested return checked once in the
	// epoch without a set, the last seenCands of them: a key gets a set
	// at its second return, so that objects a nested return touches once
	// (an encoder's values) cost no set.
	cand [seenCands]seenKey
	next int
}

// seenCands is the number of keys without a set a goroutine remembers.
const seenCands = 4

// A seenKey is the object and kind of a nested return's checks, and the
// goroutine's epoch then. The object is an address, which keeps nothing
// alive: an object at the address of a freed one only gets a set at
// once.
type seenKey struct {
	obj   uintptr
	write bool
	epoch shadow.Epoch
}

// markStd marks f, just pushed by a standard-library function, as the
// library's.
func (s *fpStack) markStd(f *Footprint) {
	if !f.direct {
		f.std = true
	}
}

// checkNewRange adds the n elements of size f.size at start, start+step,
// ... (step positive) of f's range to the goroutine's seen set, and
// checks those the set did not hold, or, for a strided range that has
// some, reports false: the caller checks the range, in one operation, as
// before. It reports false if the set cannot hold the range, too.
func (g *G) checkNewRange(f *Footprint, start, step uintptr, n int) bool {
	if n == 1 {
		step = f.size
	}
	s := g.seenSet(f.obj, f.size, f.write, start, f.lo, f.lim)
	last := start + uintptr(n-1)*step
	if s == nil || step%f.size != 0 || !s.holds(start, f.size) || !s.holds(last, f.size) {
		return false
	}
	k := int((start - s.origin) / s.size)
	if step != f.size {
		d := int(step / f.size)
		for i := 0; i < n; i, k = i+1, k+d {
			s.add(k)
		}
		if s.count > 0 {
			s.settle()
			return false
		}
		return true
	}
	g.fpCommits++
	if g.changes != nil {
		g.flushChanges() // before the shadow holds the range
	}
	s.site = f.site
	s.checkNewRun(f, k, n)
	return true
}

// checkNewRun adds the window's n elements from k to the seen set s and
// checks those it did not hold, as maximal runs, at its site: it visits
// the words of the run only, not every chunk of the set, as a commit
// does.
func (s *sideSet) checkNewRun(f *Footprint, k, n int) {
	var r newRun
	for n > 0 {
		m := min(n, 64-k%64)
		s.checkNewBits(f, k, ^uint64(0)>>(64-m), &r)
		k, n = k+m, n-m
	}
	s.check(f, r.lo, r.hi)
}

// A newRun is the run of elements [lo, hi) of a seen set that
// checkNewBits is extending, unchecked yet.
type newRun struct{ lo, hi int }

// checkNewBits adds the window's elements k+t for each bit t of w to the
// seen set s, which visits them in increasing order: those it did not
// hold extend the run r, or check it and start another.
func (s *sideSet) checkNewBits(f *Footprint, k int, w uint64, r *newRun) {
	if sh := k % 64; sh != 0 {
		s.checkNewWord(f, k-sh, w<<sh, r)
		s.checkNewWord(f, k-sh+64, w>>(64-sh), r)
		return
	}
	s.checkNewWord(f, k, w, r)
}

// checkNewWord is checkNewBits for k a multiple of 64.
func (s *sideSet) checkNewWord(f *Footprint, k int, w uint64, r *newRun) {
	if w == 0 {
		return
	}
	c, j := s.chunk(k>>chunkShift), k/64%chunkWords
	w &^= c.seen[j]
	c.seen[j] |= w
	s.seen += bits.OnesCount64(w)
	for w != 0 {
		t := bits.TrailingZeros64(w)
		n := bits.TrailingZeros64(^(w >> t)) // the ones from t
		if k+t != r.hi {
			s.check(f, r.lo, r.hi)
			r.lo = k + t
		}
		r.hi = k + t + n
		if t+n == 64 {
			break
		}
		w &^= 1<<(t+n) - 1
	}
}

// checkNewSide checks those of the pending elements of the side set p of
// footprint f that the goroutine's seen set does not hold, adds them to
// it and clears them from p; it reports whether it could (else the
// caller checks them).
func (g *G) checkNewSide(p *sideSet, f *Footprint) bool {
	gen := shadow.Gen()
	if gen != p.gen && p.seen > p.count {
		return false // every element p has seen is checked again
	}
	if p.obj == nil {
		return false // not a heap object's
	}
	s := g.seenSet(p.obj, p.size, p.write, p.origin, p.origin, uintptr(p.nbits-1)*p.size)
	last := p.origin + uintptr(p.nbits-1)*p.size
	if s == nil || !s.holds(p.origin, p.size) || !s.holds(last, p.size) {
		return false
	}
	d := int((p.origin - s.origin) / s.size)
	g.fpCommits++
	if g.changes != nil {
		g.flushChanges()
	}
	g.committing = true
	defer func() { g.committing = false }()
	s.site = p.site
	var r newRun
	sortIndices(p.used)
	for _, i := range p.used {
		c := p.dir[i]
		for w := c.dirty; w != 0; w &= w - 1 {
			j := bits.TrailingZeros64(w)
			s.checkNewBits(f, d+int(i)<<chunkShift+j*64, c.pend[j], &r)
			c.pend[j] = 0
		}
		c.dirty = 0
	}
	s.check(f, r.lo, r.hi)
	p.count, p.gen = 0, gen
	return true
}

// seenSet returns the goroutine's seen set of the key (obj, size, write),
// forgetting it first if the epoch or the GC generation changed, or
// places a free one, its window around the element at a of the heap
// object [lo, lo+lim+size); nil for memory that is not a heap object
// (lim ^0), whose window would be sideWindow elements.
func (g *G) seenSet(obj unsafe.Pointer, size uintptr, write bool, a, lo, lim uintptr) *sideSet {
	if lim == ^uintptr(0) {
		return nil // not a heap object: a window of sideWindow elements
	}
	p := &g.seen
	if p.c == nil {
		p.c = new([seenMax]seenSet)
	}
	free := -1
	for i := range p.c {
		c := &p.c[i]
		s := &c.side
		switch {
		case s.nbits == 0:
			if free < 0 {
				free = i
			}
		case c.epoch != g.t.Epoch || s.gen != shadow.Gen():
			g.forgetSeen(c)
			if free < 0 {
				free = i
			}
		case s.obj == obj && s.size == size && s.write == write:
			return s
		}
	}
	if !p.again(obj, write, g.t.Epoch) {
		return nil
	}
	if free < 0 {
		free = 0
		for i := range p.c {
			if p.c[i].seq < p.c[free].seq {
				free = i
			}
		}
		g.forgetSeen(&p.c[free])
	}
	c := &p.c[free]
	f := Footprint{g: g, obj: obj, size: size, write: write, lo: lo, lim: lim}
	c.side.place(&f, a, size, 0) // makes the stack's sides dirty: commitFootprints forgets it
	p.seq++
	c.epoch, c.seq = g.t.Epoch, p.seq
	p.n++
	return &c.side
}

// again reports whether a nested return checked the key (obj, write) in
// epoch e before, and remembers it if not.
func (p *stdSeen) again(obj unsafe.Pointer, write bool, e shadow.Epoch) bool {
	k := seenKey{uintptr(obj), write, e}
	for _, c := range p.cand {
		if c == k {
			return true
		}
	}
	p.cand[p.next%seenCands] = k
	p.next++
	return false
}

// settle clears the pending bits of the seen set s: the caller checks
// their elements.
func (s *sideSet) settle() {
	for _, i := range s.used {
		c := s.dir[i]
		for w := c.dirty; w != 0; w &= w - 1 {
			c.pend[bits.TrailingZeros64(w)] = 0
		}
		c.dirty = 0
	}
	s.count = 0
}

// forgetSeen empties the seen set c, which has nothing pending, and
// releases its object.
func (g *G) forgetSeen(c *seenSet) {
	c.side.gen = shadow.Gen() // nothing to check again: see sideSet.commit
	c.side.reset(&Footprint{g: g})
	g.seen.n--
}

// forgetAllSeen empties every seen set and forgets the keys without one:
// the goroutine synchronizes.
func (g *G) forgetAllSeen() {
	for i := range g.seen.c {
		if c := &g.seen.c[i]; c.side.nbits != 0 {
			g.forgetSeen(c)
		}
	}
	g.seen.cand = [seenCands]seenKey{}
}

// release gives the chunks the seen sets keep to the shared pool; the
// goroutine ends, and commitFootprints has emptied them.
func (p *stdSeen) release() {
	if p.c == nil {
		return
	}
	for i := range p.c {
		p.c[i].side.release()
	}
	p.c = nil
}
