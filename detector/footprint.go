// Copyright 2026 The bigfoot Authors. All rights reserved.

package detector

import (
	"runtime"
	"unsafe"

	"github.com/bigfoot-go/bigfoot/shadow"
)

// Footprints: deferred, coalesced checks.
//
// BigFoot moves a check to the next synchronization operation and, for a
// loop over a[i], replaces the per-element checks by one range check after
// the loop (Rhodes' thesis §3.2 and §3.3.3); SlimState defers
// the checks of array accesses into a per-thread footprint committed at
// the next synchronization (Rhodes' thesis §3.5.2). Emitted code
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
// synchronization, when a caller pops below them, when a function no
// deeper in the goroutine's stack than theirs pushes its first footprint
// (FootprintFrame), or at the goroutine's end — so a recovered panic,
// runtime.Goexit and a loop that never ends lose no check.
//
// Every checked element was accessed (the range is built from the
// addresses actually recorded) and every recorded access is checked before
// the goroutine's next synchronization: the range checks are legitimate
// and cover every access, in the sense of Rhodes' thesis §3.3.1,
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
	// cur is the range's element last repeated (0: none), so that a
	// loop rescanning the range (pairs j > i for each i) finds the next
	// one inline.
	cur uintptr
	// done is the number of the range's first elements already checked
	// in this span, by a periodic commit (repeat): only the others are
	// pending.
	done    int
	doneGen uint64 // the GC generation (shadow.Gen) when done was set
	// repLimit is the number of repeats allowed before repeat looks at
	// the footprint again (0: look at the next one).
	repLimit int
	g        *G
	side     *sideSet // accesses that do not fit the range (nil: none yet)
	site     uint32
	write    bool
	// last is the site of the access FM recorded last in the range (0:
	// none since it began), which FM's inline path requires.
	last uint32
	// direct: the goroutine's footprint stack is full; this footprint
	// checks every access at once.
	direct bool
	// stack: the range is in the goroutine's own stack, which is never
	// checked; its commit does nothing.
	stack bool
	// org and orgElem: the element grid of the pending range, for
	// reports (exact.go): the static range's (Range.org) when it was
	// loaded from it, else the address and size of the access that
	// began it, its site's own (an "l" entry counts from it).
	org, orgElem uintptr
	// depth is the depth in the goroutine's stack of the frame of the
	// function that pushed it (frameDepth; 0: unknown).
	depth uintptr
	// std: a function of the standard library pushed it (stdseen.go).
	std   bool
	Range // a static loop range (range.go), if one is open
}

const (
	fpChunk     = 16   // footprints allocated at a time
	fpMaxChunks = 64   // at most fpChunk*fpMaxChunks pending footprints per goroutine
	fpMaxReps   = 4096 // repeated accesses of one range between commits, at least
	// fpRepFactor times as many repeats as a footprint holds elements
	// may pass between its commits: a commit costs up to one check per
	// element held.
	fpRepFactor = 8
)

// fpStack is a goroutine's stack of footprints. Chunks never move, so
// emitted code may hold pointers to its footprints.
type fpStack struct {
	chunks []*[fpChunk]Footprint
	top    int  // footprints in use
	dirty  bool // some footprint may hold a pending range
	// sides: some footprint, in use or popped, may hold a placed side
	// set, whose seen elements the span's end must forget.
	sides bool
	// span counts the goroutine's synchronization operations: the
	// stretch of code between two is a span.
	span uint64
	// moving: the footprint being committed is not at a
	// synchronization but at its function's return (PopFootprints) or
	// at its loop's next execution (OpenRangeAt): its contiguous ranges
	// may move to the goroutine's pending checks (pending.go).
	moving bool
	// popping: popFootprints is committing the footprints it pops,
	// after which the stack is popTo high.
	popping bool
	popTo   int
	// nested: the footprints being popped are a library function's
	// called by another (stdseen.go): the elements their checks repeat
	// in the epoch are not checked again.
	nested bool
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
		s.chunks = append(s.chunks, fpChunks.get())
	}
	f := &s.chunks[c][s.top%fpChunk]
	// A popped footprint's side set has nothing pending, and what it
	// has seen in this span stands for accesses of its kind only.
	side := f.side
	if side != nil && side.nbits > 0 && side.write != write {
		side.reset(f)
	}
	*f = Footprint{g: g, site: site, write: write, side: side}
	if s.top > 0 {
		// Pushed by the frame of the footprint below (FootprintFrame
		// pushes a function's first).
		f.depth = s.chunks[(s.top-1)/fpChunk][(s.top-1)%fpChunk].depth
	}
	s.top++
	g.footprints++
	return f
}

// FootprintFrame is Footprint for the first footprint of a function's
// prologue; frame is the address of the function's goroutine variable
// (__bfg), whose depth in the goroutine's stack is its frame's. The
// footprints on the stack pushed by frames at that depth or deeper
// belong to frames that are gone: a panic unwound them and a caller
// recovered (the function is a new frame, so none of them is its own).
// FootprintFrame commits and pops them first. Otherwise a goroutine
// that recovers from panics again and again (a parser that fails by
// panicking, recovered in its entry point) piles up the dead frames'
// footprints until its stack of them is full, and every footprint after
// that is a heap object that checks each access at once.
func (g *G) FootprintFrame(site uint32, write bool, frame **G) *Footprint {
	d := frameDepth(g.t.GP, unsafe.Pointer(frame))
	if d != 0 {
		g.popDead(d)
	}
	f := g.Footprint(site, write)
	f.depth = d
	return f
}

// frameDepth returns the distance from the top of the stack of the
// goroutine whose runtime g is gp to the address p in it: the same for a
// frame's variable when the runtime moves the stack, greater in a callee
// than in its callers. It returns 0 if gp is nil or p is not on its
// stack.
func frameDepth(gp, p unsafe.Pointer) uintptr {
	if gp == nil || !ownStack(gp, uintptr(p)) {
		return 0
	}
	return *(*uintptr)(unsafe.Add(gp, unsafe.Sizeof(uintptr(0)))) - uintptr(p)
}

// popDead commits and pops the footprints at the top of g's stack that
// frames at depth d or deeper pushed (a footprint of unknown depth stops
// the search).
func (g *G) popDead(d uintptr) {
	s := &g.fp
	i := s.top
	for i > 0 && s.chunks[(i-1)/fpChunk][(i-1)%fpChunk].depth >= d {
		i--
	}
	if i < s.top {
		g.popFootprints(&s.chunks[i/fpChunk][i%fpChunk], popUnwound)
	}
}

// PopFootprints commits f and every footprint pushed after it and pops
// them: emitted before each return of a function whose first footprint is
// f (and at the end of its body).
func (g *G) PopFootprints(f *Footprint) {
	g.popFootprints(f, popReturn)
}

// A popKind says why footprints are popped.
type popKind uint8

const (
	popReturn    popKind = iota // the program's function returns
	popStdReturn                // a standard-library function returns
	popUnwound                  // their frames are gone (popDead)
)

// popFootprints is PopFootprints. At the program's returns, contiguous
// ranges may move to the goroutine's pending checks (pending.go). The
// standard library's do not: a race inside it is reported with the stack
// of its return, which names the library's exported function the program
// called (sort.Ints for slices.insertionSortOrdered), as go -race's
// report does; a library function called by another library function
// leaves out the elements nested returns checked in the epoch
// (stdseen.go).
func (g *G) popFootprints(f *Footprint, kind popKind) {
	if f.direct {
		return
	}
	s := &g.fp
	idx := s.indexOf(f)
	if idx < 0 || idx >= s.top {
		return // already popped below f (a caller returned past a panic)
	}
	s.moving, s.popping, s.popTo = kind == popReturn, true, idx
	if kind == popStdReturn && idx > 0 {
		s.nested = s.chunks[(idx-1)/fpChunk][(idx-1)%fpChunk].std
	}
	for i := s.top - 1; i >= idx; i-- {
		f := &s.chunks[i/fpChunk][i%fpChunk]
		f.commitAll()
		f.Range = Range{} // closed: let its array go
	}
	s.moving, s.popping, s.nested = false, false, false
	s.top = idx
	g.popped()
}

// indexOf returns the place of f in the stack's chunks (in use or not),
// or -1 if f is not one of them.
func (s *fpStack) indexOf(f *Footprint) int {
	for c := len(s.chunks) - 1; c >= 0; c-- {
		base := uintptr(unsafe.Pointer(&s.chunks[c][0]))
		if p := uintptr(unsafe.Pointer(f)); p >= base && p < base+fpChunk*unsafe.Sizeof(Footprint{}) {
			return c*fpChunk + int((p-base)/unsafe.Sizeof(Footprint{}))
		}
	}
	return -1
}

// commitFootprints commits every pending footprint of the goroutine; the
// footprints stay on the stack, empty. Called before every synchronization
// operation and at the goroutine's end: it ends the goroutine's span, so
// the side sets forget what they have seen.
func (g *G) commitFootprints() {
	if g.pend.n > 0 || g.fp.dirty || g.fp.sides {
		g.commitSlow()
		return
	}
	g.fp.span++
}

// commitSlow is commitFootprints when there is something to check, kept
// out of line so that the common case inlines into every sync operation.
func (g *G) commitSlow() {
	if g.pend.n > 0 {
		g.checkAllPending()
	}
	if g.seen.n > 0 {
		g.forgetAllSeen()
	}
	s := &g.fp
	s.span++
	if s.dirty || s.sides {
		g.commitPending()
	}
}

// commitPending is the rest of commitFootprints, kept out of line so that
// the common case, nothing pending, inlines into every sync operation.
func (g *G) commitPending() {
	s := &g.fp
	s.dirty = false
	for i := 0; i < s.top; i++ {
		s.chunks[i/fpChunk][i%fpChunk].commitAll()
	}
	if s.sides {
		s.sides = false
		for _, c := range s.chunks {
			for i := range c {
				if side := c[i].side; side != nil && side.nbits > 0 {
					side.reset(&c[i])
				}
			}
		}
	}
}

// fpChunks holds cleared chunks of footprints for new goroutines.
var fpChunks = newFreeList[[fpChunk]Footprint](1024) // about 1 MiB

// release gives the stack's chunks, and the chunks its side sets keep for
// reuse, to the shared free lists; the goroutine ends, and
// commitFootprints has reset every side set. A side set still placed (it
// cannot be, after commitFootprints) would keep its chunk of footprints.
func (s *fpStack) release() {
	for _, c := range s.chunks {
		placed := false
		for i := range c {
			if side := c[i].side; side != nil {
				if side.nbits != 0 {
					placed = true
					continue
				}
				side.release()
			}
		}
		if !placed {
			*c = [fpChunk]Footprint{}
			fpChunks.put(c)
		}
	}
	s.chunks, s.top = nil, 0
}

// F records an access of *p (of the footprint's kind) at site in
// footprint f and returns p: the deferred form of R and W,
// (*__bf.F(__bfF3, &a[i], s)) and *__bf.F(__bfF3, &a[i], s) = v. A race
// found when the range is checked is reported at the site of the range's
// first access, or the site its "l" entry names (exact.go).
func F[T any](f *Footprint, p *T, site uint32) *T {
	// record's first case, inline: the next element of the range. (Of
	// the forms tried, this one is within the inlining budget:
	// TestInlining.)
	if f.next == uintptr(unsafe.Pointer(p)) && f.next != f.end {
		f.next += f.step
	} else {
		f.record(unsafe.Pointer(p), unsafe.Sizeof(*p), site)
	}
	return p
}

// FM is F for a footprint whose sites the index does not tell apart
// (s[i] in both branches of an if, a merge's dst[k]): its fast path
// also requires the site of the footprint's last record, so that each
// change of site reaches recordAt, which logs it (sitechange.go) for a
// report to name the access that touched the racing element. The site's
// comparison puts FM over the inlining budget, which F fills: such a
// footprint's accesses pay a call each, and FM does the common cases
// without another.
func FM[T any](f *Footprint, p *T, site uint32) *T {
	if a := uintptr(unsafe.Pointer(p)); a == f.next && a != f.end {
		// record's first case, and the change of site logged here: a
		// merge changes branch at every other element.
		f.next += f.step
		if f.last != site {
			f.last = site
			// siteChange, its common case written out.
			if l := f.g.changes; l != nil && l.n < changeBuf && !f.stack {
				l.ents[l.n] = siteChange{a, f.g.t.Epoch.Clock(), f.site, site, uint32(unsafe.Sizeof(*p))}
				l.n++
			} else if !f.stack {
				f.g.siteChange(a, unsafe.Sizeof(*p), f.site, site)
			}
		}
		return p
	}
	f.recordAt(unsafe.Pointer(p), unsafe.Sizeof(*p), site)
	return p
}

// recordAt is record for FM: an access that began the range or grew it
// at a site other than the last one logged in the range is logged. A
// repeat of an element (a loop-invariant a[p] read at three sites of
// the loop) or an access off the range's stride is not: a report names
// for it the site logged for the elements around it.
func (f *Footprint) recordAt(p unsafe.Pointer, size uintptr, site uint32) {
	next := f.next
	f.record(p, size, site)
	if f.last != site && (f.last == 0 || f.next != next) {
		f.last = site
		if !f.stack && !f.direct {
			f.g.siteChange(uintptr(p), size, f.site, site)
		}
	}
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

// record adds an access of size bytes at a. The common cases are a few
// instructions without a call: the next element of the range (two
// comparisons and an addition), the range's last element again (a
// loop-invariant field, a loop condition's a[i+1]) and an element of the
// side set's window (a gather's x[col[k]]). F inlines into its call site
// with the first of them (TestInlining); record is a call. Builds that count accesses or verify
// checks take the slow path every time (setNext makes end equal to next
// there).
func (f *Footprint) record(p unsafe.Pointer, size uintptr, site uint32) {
	a := uintptr(p)
	if a == f.next && a != f.end {
		f.next = a + f.step
		return
	}
	if !countAccesses && !verifyChecks {
		if a+f.step == f.next && f.next != 0 && size == f.size && f.reps+1 < f.repLimit {
			f.reps++ // a repeat: covered
			return
		}
		// The element after the last repeated one, short of next: in
		// the range, a repeat.
		if a == f.cur+f.step && a != f.next && f.cur != 0 && size == f.size && f.reps+1 < f.repLimit {
			f.cur = a
			f.reps++
			return
		}
		// The side set's window, where the element's chunk exists:
		// sideSet.add without the allocation.
		if s := f.side; s != nil {
			if k, ok := s.index(a, size); ok {
				if i := k >> chunkShift; i < uintptr(len(s.dir)) && s.dir[i] != nil {
					c, j, bit := s.dir[i], k/64%chunkWords, uint64(1)<<(k%64)
					switch {
					case c.seen[j]&bit == 0:
						c.seen[j] |= bit
						c.pend[j] |= bit
						c.dirty |= 1 << j
						s.count++
						s.seen++
						return
					case f.reps+1 < f.repLimit:
						f.reps++ // a repeat: covered
						return
					}
				}
			}
		}
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
			f.cur = a
			return
		}
	case a == f.start-f.step && f.done == 0:
		// The element before the first: the range grows at its other
		// end (a descending loop over a[j-1], a[j], as an insertion
		// sort's, records a[i-1], a[i], then a[i-2], a[i-3], ...).
		f.start = a
		return
	case f.contains(a):
		// A repeat of an element already in the range: covered.
		if f.repeat() {
			f.cur = a
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
// pending. A loop that never synchronizes nor returns must still publish
// its accesses: after fpMaxReps repeats, and at least fpRepFactor times
// as many as the footprint holds elements (its range and the elements its
// side set has seen, which bound the cost of a commit), the pending
// elements are checked. The range keeps its extent, its elements now
// checked in this span (done), so that later repeats of them, which a
// loop rescanning a range makes, are covered and cost no check. A static
// range cannot stay open that way: the caller then commits it.
func (f *Footprint) repeat() bool {
	f.reps++
	if f.reps < f.repLimit {
		return true
	}
	held := f.count()
	if f.side != nil {
		held += f.side.seen
	}
	f.repLimit = max(fpMaxReps, fpRepFactor*held)
	if f.reps < f.repLimit {
		return true
	}
	if f.side != nil && f.side.count > 0 {
		f.side.commit(f)
	}
	if f.base != 0 {
		return false
	}
	f.reps = 0
	f.checkDone()
	if n := f.count(); n > f.done && !f.stack {
		gen := shadow.Gen()
		f.g.fpCommits++
		f.checkElems(f.done, n)
		f.done, f.doneGen = n, gen
	}
	return true
}

// begin starts a range at p, in the empty footprint f: it finds the
// object of p, which bounds the range and which f keeps alive.
func (f *Footprint) begin(p unsafe.Pointer, size uintptr, site uint32) {
	a := uintptr(p)
	f.start, f.size, f.site, f.stack, f.done, f.last = a, size, site, false, 0, 0
	f.org, f.orgElem = a, size
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
	f.next, f.end, f.cur = a, 0, 0
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
		if f.next != 0 && !f.stack && f.done == 0 && s.absorb(f) {
			f.next, f.end, f.cur, f.reps, f.repLimit, f.obj = 0, 0, 0, 0, 0, nil
		} else {
			f.commit()
		}
		f.commitSide()
		return
	}
	f.commit()
}

// commitSide checks f's side set, less the elements the goroutine's
// seen sets hold if f is a nested library function's (stdseen.go).
func (f *Footprint) commitSide() {
	if f.g.fp.nested && f.g.checkNewSide(f.side, f) {
		return
	}
	f.side.commit(f)
}

// commit checks the pending range, if any, and empties it.
func (f *Footprint) commit() {
	if f.base != 0 {
		f.loadRange()
	}
	f.checkDone()
	n, done := f.count(), f.done
	if n == 0 {
		return
	}
	if n > done && !f.stack {
		f.g.fpCommits++
		f.checkElems(done, n)
	}
	runtime.KeepAlive(f.obj)
	f.next, f.end, f.cur, f.reps, f.repLimit, f.done, f.obj = 0, 0, 0, 0, 0, 0, nil
}

// checkDone forgets that the range's first elements were checked if a GC
// cycle completed since: the shadow may drop the state of a check made
// before a cycle when another goroutine touches it (GC reuse), so that
// check no longer covers the elements' later repeats.
func (f *Footprint) checkDone() {
	if f.done > 0 && shadow.Gen() != f.doneGen {
		f.done = 0
	}
}

// checkElems checks the range's elements [i, n) in one operation.
func (f *Footprint) checkElems(i, n int) {
	g := f.g
	if f.last != 0 {
		// FM's range: its run of site changes ends at its last
		// element; a periodic commit's range logs a new run as it
		// grows.
		g.siteChange(f.next-f.step, f.size, f.site, 0)
		f.last = 0
	}
	g.committing, g.commitFP, g.org, g.orgElem = true, f, f.org, f.orgElem
	defer func() { g.committing, g.commitFP, g.org, g.orgElem = false, nil, 0, 0 }()
	start, step := f.start+uintptr(i)*f.step, f.step
	if n -= i; n > 1 {
		if int(step) < 0 {
			// Descending: the same elements, ascending from the last.
			start += uintptr(n-1) * step
			step = -step
		}
		if g.fp.moving && step == f.size && !f.stack && uintptr(n)*step < pendLarge {
			// To the pending checks, whose check moves the site
			// changes (makePending); a large range at once
			// (pendLarge).
			g.deferRange(start, f.size, n, f.write, f.site, f.obj, f.org, f.orgElem)
			return
		}
	}
	if g.fp.nested && n >= seenMin && !f.stack && g.checkNewRange(f, start, step, n) {
		return
	}
	if g.changes != nil {
		g.flushChanges() // before the shadow holds the range
	}
	if n == 1 {
		g.checkOne(shadow.PtrOf(start), f.size, f.write, f.site)
		return
	}
	g.checkStrided(shadow.PtrOf(start), f.size, step, n, f.write, f.site)
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
	if gr := g.t.Cached(uintptr(p)); gr != nil && (gr.Same(&g.t, uintptr(p), size, write) ||
		space.SameIn(&g.t, gr, uintptr(p), size, write)) || gr == nil && (onStack(g, p) || space.SameMiss(&g.t, uintptr(p), size, write)) { // space.Same and the stack, written out (check)
		return
	}
	g.checkSlow(p, size, write, site)
}

// checkOneSparse is checkOne for one element of a side set: the shadow
// may keep a map of element states for the sparse set
// (shadow.Space.AccessSparse).
func (g *G) checkOneSparse(p unsafe.Pointer, size uintptr, write bool, site uint32) {
	if countAccesses {
		g.checkOps++
	}
	if verifyChecks {
		g.verifyRecord(p, size, 0, 1, verifyKind(write)|vCheck, site)
	}
	if space.Same(&g.t, uintptr(p), size, write) || uintptr(p) < minAddr {
		return
	}
	g.note(site, uintptr(p), uintptr(p)+size)
	if r, ok := space.AccessSparse(&g.t, p, size, write, site); ok {
		report(g, r, site)
	}
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
	c := stridedCheck{uintptr(start), size, step, n, write, g.t.Epoch, shadow.Gen()}
	if !countAccesses && !verifyChecks && g.lastStrided.covers(c) {
		return
	}
	if step == size && shortBytes(size, n) {
		g.checkBytes(start, uintptr(n)*size, write, site)
	} else {
		g.note(site, uintptr(start), uintptr(start)+uintptr(n-1)*step+size)
		if r, ok := space.AccessStrided(&g.t, start, size, step, n, write, site); ok {
			report(g, r, site)
		}
	}
	g.lastStrided = c
}

// A stridedCheck is a strided check a goroutine made: its elements, its
// kind, the goroutine's epoch and the GC generation.
//
// A function that checks the same elements on every call, with no
// synchronization in between (raytracer's nearest, whose footprint over
// the scene's spheres is committed at each return), repeats a check in
// the same epoch: FastTrack's same-epoch rule makes it a no-op
// (epochs: Rhodes' thesis §2.3.7), which the goroutine can tell without
// the shadow. A GC cycle ends the rule's use, as for Footprint.done: the
// shadow may drop state recorded before it. Builds that count or verify
// checks make every one.
type stridedCheck struct {
	start, size, step uintptr
	n                 int
	write             bool
	epoch             shadow.Epoch
	gen               uint64
}

// covers reports whether the check m makes c redundant: the same
// elements, in the same epoch and generation, and a write if c is one.
func (m *stridedCheck) covers(c stridedCheck) bool {
	return m.start == c.start && m.size == c.size && m.step == c.step && m.n == c.n &&
		(m.write || !c.write) && m.epoch == c.epoch && m.gen == c.gen
}
