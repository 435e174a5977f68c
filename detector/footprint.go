// Copyright 2026 The bigfoot Authors. All rights reserved.

package detector

import (
	"math/bits"
	"runtime"
	"unsafe"

	"github.com/bigfoot-go/bigfoot/shadow"
)

// Footprints: deferred, coalesced checks.
//
// BigFoot moves a check to the next synchronization operation and, for a
// loop over a[i], replaces the per-element checks by one range check after
// the loop (003_2c4adee4d326f5a8.txt:694-713, :837-841); SlimState defers
// the checks of array accesses into a per-thread footprint committed at
// the next synchronization (003_2c4adee4d326f5a8.txt:937-945). Emitted code
// gets the same effect with a Footprint per access site that the static
// pass chose (one in a loop whose checks coalesce): the site records its
// address in place of a check, the footprint merges consecutive addresses
// into one strided range (start, step, n elements of size bytes), and the
// range is checked in one call when
//
//   - an address does not extend it (the old range is checked and a new
//     one starts),
//   - the goroutine synchronizes (every sync hook commits all pending
//     footprints before it acquires or releases: countSync),
//   - the function returns (PopFootprints, emitted before each return and
//     at the end of the body),
//   - the goroutine ends (Exit), or
//   - the same address repeats many times (a loop that may never
//     terminate still commits periodically).
//
// A function that panics leaves its footprints on the goroutine's stack of
// footprints; they stay pending and are committed at the goroutine's next
// synchronization, when a caller pops below them, or at its end — so a
// recovered panic, runtime.Goexit and a loop that never ends lose no check.
//
// Every checked element was accessed (the range is built from the
// addresses actually recorded) and every recorded access is checked before
// the goroutine's next synchronization: the range checks are legitimate
// and cover every access, in the sense of 003_2c4adee4d326f5a8.txt:748-760,
// by construction.

// A Footprint is the pending accesses of one access site: count()
// elements of size bytes at start, start+step, ..., as a strided range (the affine
// range), plus a set of the accesses that do not fit it (the side set).
// Emitted code obtains one per site from Footprint at function entry and
// records accesses with F.
//
// Both stay within one heap object, and hold a pointer to it until they
// are committed: the garbage collector may otherwise free the object while
// its check is pending and reuse the memory for another goroutine's
// object, whose state the commit would then find (a false race). A range
// that would extend past the object's end, or an access in another
// object, commits and starts over.
type Footprint struct {
	next uintptr // the address that extends the range (0: the range is empty)
	end  uintptr // the first address of the progression past the object (0: none)
	step uintptr // distance between elements (two's complement: may be negative)
	// lo and lim bound the range to its object: an element at a lies in
	// it if a-lo <= lim (unsigned), lim = the object's size - size.
	lo, lim uintptr
	start   uintptr        // first element recorded
	obj     unsafe.Pointer // the range's heap object, kept alive until the commit
	size    uintptr        // element size
	reps    int            // repeated accesses since the last commit
	g       *G
	side    *sideSet // accesses that do not fit the range (nil: none yet)
	site    uint32
	write   bool
	// direct: the goroutine's footprint stack is full; this footprint
	// checks every access at once.
	direct bool
	// stack: the range is in the goroutine's own stack, which is never
	// checked; its commit does nothing.
	stack bool
	Range // a static loop range (range.go), if one is open
}

const (
	fpChunk     = 16   // footprints allocated at a time
	fpMaxChunks = 64   // at most fpChunk*fpMaxChunks pending footprints per goroutine
	fpMaxReps   = 4096 // repeated accesses of one range between commits, at least
)

// fpStack is a goroutine's stack of footprints. Chunks never move, so
// emitted code may hold pointers to its footprints.
type fpStack struct {
	chunks []*[fpChunk]Footprint
	top    int  // footprints in use
	dirty  bool // some footprint may hold a pending range
	direct Footprint
}

// Footprint returns a footprint for the accesses of kind write at site,
// pushed on the goroutine's stack of footprints. Emitted code calls it at
// function entry for each site it defers and pops them all with
// PopFootprints before returning.
func (g *G) Footprint(site uint32, write bool) *Footprint {
	s := &g.fp
	if s.top == fpChunk*fpMaxChunks {
		// Too deep (recursion, or frames left by panics): check at once.
		return &Footprint{g: g, site: site, write: write, direct: true}
	}
	c := s.top / fpChunk
	if c == len(s.chunks) {
		s.chunks = append(s.chunks, new([fpChunk]Footprint))
	}
	f := &s.chunks[c][s.top%fpChunk]
	side := f.side // empty: popped footprints are committed
	*f = Footprint{g: g, site: site, write: write, side: side}
	s.top++
	g.footprints++
	return f
}

// PopFootprints commits f and every footprint pushed after it and pops
// them: emitted before each return of a function whose first footprint is
// f (and at the end of its body).
func (g *G) PopFootprints(f *Footprint) {
	if f.direct {
		return
	}
	s := &g.fp
	idx := -1
	for c := len(s.chunks) - 1; c >= 0; c-- {
		base := uintptr(unsafe.Pointer(&s.chunks[c][0]))
		if p := uintptr(unsafe.Pointer(f)); p >= base && p < base+fpChunk*unsafe.Sizeof(Footprint{}) {
			idx = c*fpChunk + int((p-base)/unsafe.Sizeof(Footprint{}))
			break
		}
	}
	if idx < 0 || idx >= s.top {
		return // already popped below f (a caller returned past a panic)
	}
	for i := s.top - 1; i >= idx; i-- {
		f := &s.chunks[i/fpChunk][i%fpChunk]
		f.commitAll()
		f.Range = Range{} // closed: let its array go
	}
	s.top = idx
}

// commitFootprints commits every pending footprint of the goroutine; the
// footprints stay on the stack, empty. Called before every synchronization
// operation and at the goroutine's end.
func (g *G) commitFootprints() {
	s := &g.fp
	if !s.dirty {
		return
	}
	s.dirty = false
	for i := 0; i < s.top; i++ {
		s.chunks[i/fpChunk][i%fpChunk].commitAll()
	}
}

// F records an access of *p (of the footprint's kind) at site in
// footprint f and returns p: the deferred form of R and W,
// (*__bf.F(__bfF3, &a[i], s)) and *__bf.F(__bfF3, &a[i], s) = v. A race
// found when the range is checked is reported at the site of the range's
// first access.
func F[T any](f *Footprint, p *T, site uint32) *T {
	f.record(unsafe.Pointer(p), unsafe.Sizeof(*p), site)
	return p
}

// FG is F for a field group (RG's deferred form): it records an access of
// the bytes [lo, hi) of the struct whose field at offset anchor is *p, the
// group's consecutive fields, and returns p. A group of one loop-invariant
// object records one address again and again; a group of the elements of
// an array records a strided range.
func FG[T any](f *Footprint, p *T, anchor, lo, hi uintptr, site uint32) *T {
	f.record(unsafe.Add(unsafe.Pointer(p), int(lo)-int(anchor)), hi-lo, site)
	return p
}

// record adds an access of size bytes at a. The common case, the next
// element of the range, is two comparisons and an addition. F inlines
// into its call site (TestInlining); record, a little over the inlining
// budget, is a call. Builds that count accesses or verify checks take the
// slow path every time (setNext makes end equal to next there).
func (f *Footprint) record(p unsafe.Pointer, size uintptr, site uint32) {
	if a := uintptr(p); a == f.next && a != f.end {
		f.next = a + f.step
		return
	}
	f.recordSlow(p, size, site)
}

// recordSlow is record for an access that does not extend the range.
// An access in the range's object goes to the side set, so the range keeps
// growing; one in another object commits the range and starts a new one.
func (f *Footprint) recordSlow(p unsafe.Pointer, size uintptr, site uint32) {
	if countAccesses {
		f.g.accesses++
	}
	if verifyChecks {
		f.g.verifyRecord(p, size, 0, 1, verifyKind(f.write)|vAccess, site)
	}
	a := uintptr(p)
	switch {
	case (countAccesses || verifyChecks) && a == f.next && a-f.lo <= f.lim:
		f.next = a + f.step // the next element, in a counting build
		f.end = f.next
		return
	case f.direct:
		f.g.checkOne(p, size, f.write, site)
		return
	case size == 0:
		return // no bytes: nothing to check
	case f.next == 0:
		f.begin(p, size, site)
		return
	case f.stack:
		if onStack(f.g, p) {
			// Still the stack: nothing to record. Follow the access,
			// with the stride of this jump, so that a loop over a
			// stack array (a matrix a worker multiplies in place)
			// takes record's fast path again instead of coming here
			// for every element.
			if d := a - (f.next - f.step); int(d) >= int(size) || -int(d) >= int(size) {
				f.step = d
			}
			f.setNext(a + f.step)
			return
		}
	case size != f.size:
	case a-f.lo > f.lim, f.lim == ^uintptr(0) && isHeap(a):
		// Another object (a heap object after a global one, too): the
		// range's object may die once it is committed, and its memory
		// be reused.
	case f.count() == 1:
		d := a - f.start // two's complement: negative for descending
		if int(d) >= int(size) || -int(d) >= int(size) {
			f.step = d
			f.setNext(a + d)
			return
		}
		if d == 0 && f.repeat() {
			return
		}
	case f.contains(a):
		// A repeat of an element already in the range: covered.
		if f.repeat() {
			return
		}
	default:
		// In the range's object, off its stride: the side set.
		if f.sideRecord(a, size, site) {
			return
		}
	}
	f.commit()
	f.begin(p, size, site)
}

// repeat counts a repeated access and reports whether the range may stay
// pending: a loop that never synchronizes nor returns still commits after
// fpMaxReps repeats and at least as many as the footprint holds elements,
// so that its accesses are eventually published.
func (f *Footprint) repeat() bool {
	f.reps++
	held := f.count()
	if f.side != nil {
		held += f.side.count
	}
	return f.reps < fpMaxReps || f.reps < held
}

// begin starts a range at p, in the empty footprint f: it finds the
// object of p, which bounds the range and which f keeps alive.
func (f *Footprint) begin(p unsafe.Pointer, size uintptr, site uint32) {
	a := uintptr(p)
	f.start, f.size, f.site, f.stack = a, size, site, false
	f.step = size // guess: ascending, contiguous
	f.g.fp.dirty = true
	base, osize, heap := shadow.ObjectBounds(a)
	switch {
	case heap:
		f.obj = shadow.PtrOf(base)
		f.lo, f.lim = base, osize-size
		if osize < size {
			// Unknown size (or an access past the slot, which the
			// program's own access would fault on): this element only.
			f.lo, f.lim = a, 0
		}
	case onStack(f.g, p):
		f.stack = true
		gp := f.g.t.GP
		lo := *(*uintptr)(gp)
		f.lo, f.lim = lo, *(*uintptr)(unsafe.Add(gp, unsafe.Sizeof(uintptr(0))))-lo-size
	default:
		// Globals and memory not managed by Go: never reused by the
		// garbage collector.
		f.lo, f.lim = 0, ^uintptr(0)
	}
	f.setNext(a + size)
}

// setNext sets the address that extends the range to a, and the end of
// the progression: the first of its addresses past the object's bounds,
// where the range stops growing (0: never, for memory that is not a heap
// object). The range's length is always (next-start)/step.
func (f *Footprint) setNext(a uintptr) {
	f.next, f.end = a, 0
	switch step := int(f.step); {
	case countAccesses || verifyChecks:
		f.end = a // every access takes recordSlow, which counts it
	case a-f.lo > f.lim:
		f.end = a // past the object's end: the range stops here
	case f.lim == ^uintptr(0):
		// Not a heap object: unbounded.
	case step > 0:
		f.end = a + ((f.lo+f.lim-a)/uintptr(step)+1)*uintptr(step)
	case step < 0:
		f.end = a - ((a-f.lo)/uintptr(-step)+1)*uintptr(-step)
	}
}

// isHeap reports whether a, which the caller keeps reachable, is in a
// heap object.
func isHeap(a uintptr) bool {
	_, _, heap := shadow.ObjectBounds(a)
	return heap
}

// onStack reports whether p is in g's own stack.
func onStack(g *G, p unsafe.Pointer) bool { return shadow.OnStack(g.t.GP, p) }

// count returns the number of elements in the range: the distance from
// its start to the address that would extend it, in steps (0: empty).
func (f *Footprint) count() int {
	if f.next == 0 {
		return 0
	}
	return int(f.next-f.start) / int(f.step)
}

// contains reports whether a is one of the range's elements.
func (f *Footprint) contains(a uintptr) bool {
	n := f.count()
	if n == 0 {
		return false
	}
	d := int(a - f.start)
	step := int(f.step)
	if n == 1 || step == 0 {
		return d == 0
	}
	if d%step != 0 {
		return false
	}
	k := d / step
	return k >= 0 && k < n
}

// commitAll checks and empties f's range and side set. A range that lies
// in the side set's window joins it first, so that a loop whose accesses
// together cover a stretch of the array (a stencil's even and odd
// neighbours, a histogram's buckets) is checked as one range.
func (f *Footprint) commitAll() {
	if s := f.side; s != nil && s.count > 0 {
		if f.next != 0 && !f.stack && s.absorb(f) {
			f.next, f.end, f.reps, f.obj = 0, 0, 0, nil
		} else {
			f.commit()
		}
		s.commit(f)
		return
	}
	f.commit()
}

// absorb adds the elements of f's range to the side set s if they all lie
// in its window, and reports whether it did.
func (s *sideSet) absorb(f *Footprint) bool {
	n := f.count()
	if f.size != s.size {
		return false
	}
	first, step := f.start, f.step
	if int(step) < 0 {
		first += uintptr(n-1) * step
		step = -step
	}
	if n == 1 {
		step = s.size
	}
	last := first + uintptr(n-1)*step
	if first < s.origin || (first-s.origin)%s.size != 0 || step%s.size != 0 ||
		(last-s.origin)/s.size >= uintptr(s.nbits) {
		return false
	}
	k, d := int((first-s.origin)/s.size), int(step/s.size)
	s.lo, s.hi = min(s.lo, k), max(s.hi, k+(n-1)*d+1)
	for i := 0; i < n; i, k = i+1, k+d {
		s.bits[k>>6] |= 1 << (k & 63)
	}
	return true
}

// commit checks the pending range, if any, and empties it.
func (f *Footprint) commit() {
	if f.base != nil {
		f.loadRange()
	}
	n := f.count()
	if n == 0 {
		return
	}
	start, step := f.start, f.step
	obj := f.obj
	f.next, f.end, f.reps, f.obj = 0, 0, 0, nil
	if f.stack {
		return
	}
	g := f.g
	g.fpCommits++
	g.committing = true
	defer func() { g.committing = false }()
	if n == 1 {
		g.checkOne(shadow.PtrOf(start), f.size, f.write, f.site)
	} else {
		if int(step) < 0 {
			// Descending: the same elements, ascending from the last.
			start += uintptr(n-1) * step
			step = -step
		}
		g.checkStrided(shadow.PtrOf(start), f.size, step, n, f.write, f.site)
	}
	runtime.KeepAlive(obj)
}

// A sideSet holds the accesses of a footprint that do not extend its
// affine range (a histogram h[t[i]]++, a stencil's a[i-1] and a[i+1], a
// compaction's out[pos]): one bit per element of a window of the range's
// object, so that they neither commit the range nor are checked one by
// one. Its commit checks each maximal run of set bits as one range.
type sideSet struct {
	obj    unsafe.Pointer // the window's heap object, kept alive until the commit
	origin uintptr        // address of the window's element 0
	size   uintptr        // element size
	nbits  int            // elements in the window
	lo, hi int            // set bits lie in [lo, hi)
	count  int            // set bits
	site   uint32         // site of the first access recorded
	bits   []uint64
}

// sideWindow is the most elements a side set covers: its bitmap is at
// most sideWindow/8 bytes.
const sideWindow = 1 << 15

// sideRecord adds the access of size bytes at a, in f's object, to f's
// side set and reports whether it could: false if the set is full of
// another window and was committed, or a is not an element of the window;
// the caller then commits the range.
func (f *Footprint) sideRecord(a, size uintptr, site uint32) bool {
	s := f.side
	if s == nil {
		s = new(sideSet)
		f.side = s
	}
	if s.count > 0 && (a < s.origin || (a-s.origin)%s.size != 0 || (a-s.origin)/s.size >= uintptr(s.nbits)) {
		s.commit(f) // another window
	}
	if s.count == 0 {
		s.place(f, a, size, site)
	}
	k := int((a - s.origin) / s.size)
	w, bit := k>>6, uint64(1)<<(k&63)
	if s.bits[w]&bit != 0 {
		return f.repeat()
	}
	s.bits[w] |= bit
	s.count++
	s.lo, s.hi = min(s.lo, k), max(s.hi, k+1)
	return true
}

// place sets up the empty side set s of f for a window of f's object (of
// elements aligned with a) that contains a.
func (s *sideSet) place(f *Footprint, a, size uintptr, site uint32) {
	s.size, s.site = size, site
	// The object is [f.lo, f.lo+f.lim+f.size): its elements aligned
	// with a from first, total of them.
	first := a - (a-f.lo)/size*size
	total := (f.lim + f.size - (first - f.lo)) / size
	if f.lim == ^uintptr(0) {
		total = sideWindow // not a heap object: unbounded
		first = a - min((a-f.lo)/size, sideWindow/2)*size
	}
	k := (a - first) / size
	switch {
	case total <= sideWindow:
		s.origin, s.nbits = first, int(total)
	default:
		k0 := min(k-min(k, sideWindow/2), total-sideWindow)
		s.origin, s.nbits = first+k0*size, sideWindow
	}
	s.obj = f.obj
	nw := (s.nbits + 63) / 64
	if cap(s.bits) < nw {
		s.bits = make([]uint64, nw)
	}
	s.bits = s.bits[:nw]
	s.lo, s.hi = s.nbits, 0
	f.g.fp.dirty = true
}

// commit checks every maximal run of set bits of s as one range, clears
// s and releases its object.
func (s *sideSet) commit(f *Footprint) {
	g := f.g
	g.fpCommits++
	g.committing = true
	defer func() { g.committing = false }()
	for k := s.lo; k < s.hi; {
		w := s.bits[k>>6] >> (k & 63)
		if w == 0 {
			k = (k | 63) + 1
			continue
		}
		k += bits.TrailingZeros64(w)
		e := k + 1
		for e < s.hi && s.bits[e>>6]&(1<<(e&63)) != 0 {
			e++
		}
		p := shadow.PtrOf(s.origin + uintptr(k)*s.size)
		if e-k == 1 {
			g.checkOne(p, s.size, f.write, s.site)
		} else {
			g.checkStrided(p, s.size, s.size, e-k, f.write, s.site)
		}
		k = e
	}
	clear(s.bits[s.lo>>6 : (s.hi+63)>>6])
	runtime.KeepAlive(s.obj)
	s.obj, s.count = nil, 0
}

// checkOne checks one access found in a footprint: a check operation
// without the access count (recorded when the access was).
func (g *G) checkOne(p unsafe.Pointer, size uintptr, write bool, site uint32) {
	if countAccesses {
		g.checkOps++
	}
	if verifyChecks {
		g.verifyRecord(p, size, 0, 1, verifyKind(write)|vCheck, site)
	}
	if space.Same(&g.t, uintptr(p), size, write) {
		return
	}
	g.checkSlow(p, size, write, site)
}

// checkStrided checks n accesses of size bytes at start, start+step, ...
// in one operation.
func (g *G) checkStrided(start unsafe.Pointer, size, step uintptr, n int, write bool, site uint32) {
	if countAccesses {
		g.checkOps++
	}
	g.ranges++
	if uintptr(start) < minAddr {
		return
	}
	if verifyChecks {
		g.verifyRecord(start, size, step, n, verifyKind(write)|vCheck, site)
	}
	if r, ok := space.AccessStrided(&g.t, start, size, step, n, write, site); ok {
		report(g, r, site)
	}
}
