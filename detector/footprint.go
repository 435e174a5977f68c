// Copyright 2026 The bigfoot Authors. All rights reserved.

package detector

import "unsafe"

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

// A Footprint is the pending accesses of one access site: n elements of
// size bytes at start, start+step, ..., as a strided range. Emitted code
// obtains one per site from Footprint at function entry and records
// accesses with F.
type Footprint struct {
	next  uintptr        // the address that extends the range (0: none does)
	step  uintptr        // distance between elements (two's complement: may be negative)
	start unsafe.Pointer // first element recorded; keeps its object alive until the commit
	size  uintptr        // element size
	n     int            // elements in the range
	reps  int            // repeated accesses since the last commit
	g     *G
	site  uint32
	write bool
	// direct: the goroutine's footprint stack is full; this footprint
	// checks every access at once.
	direct bool
	Range  // a static loop range (range.go), if one is open
}

const (
	fpChunk     = 16   // footprints allocated at a time
	fpMaxChunks = 64   // at most fpChunk*fpMaxChunks pending footprints per goroutine
	fpMaxReps   = 4096 // repeated accesses of one range between commits
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
		f := &Footprint{g: g, site: site, write: write, direct: true}
		return f
	}
	c := s.top / fpChunk
	if c == len(s.chunks) {
		s.chunks = append(s.chunks, new([fpChunk]Footprint))
	}
	f := &s.chunks[c][s.top%fpChunk]
	*f = Footprint{g: g, site: site, write: write}
	s.top++
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
		f.commit()
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
		s.chunks[i/fpChunk][i%fpChunk].commit()
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

// record adds an access of size bytes at a. The common case, the next
// element of the range, is a comparison and two additions.
func (f *Footprint) record(p unsafe.Pointer, size uintptr, site uint32) {
	if countAccesses {
		f.g.accesses++
	}
	if verifyChecks {
		f.g.verifyRecord(p, size, 0, 1, verifyKind(f.write)|vAccess, site)
	}
	if uintptr(p) == f.next {
		f.next += f.step
		f.n++
		return
	}
	f.recordSlow(p, size, site)
}

func (f *Footprint) recordSlow(p unsafe.Pointer, size uintptr, site uint32) {
	a := uintptr(p)
	switch {
	case f.direct:
		f.g.checkOne(p, size, f.write, site)
		return
	case f.n == 0:
		f.start, f.size, f.n, f.site = p, size, 1, site
		f.step, f.next = size, a+size // guess: ascending, contiguous
		f.g.fp.dirty = true
		return
	case size != f.size:
	case f.n == 1 && p != f.start:
		d := a - uintptr(f.start) // two's complement: negative for descending
		if int(d) >= int(size) || -int(d) >= int(size) {
			f.step, f.next, f.n = d, a+d, 2
			return
		}
	case f.contains(a):
		// A repeat of an element already in the range: covered.
		if f.reps++; f.reps < fpMaxReps {
			return
		}
	}
	f.commit()
	f.start, f.size, f.n, f.site = p, size, 1, site
	f.step, f.next = size, a+size
	f.g.fp.dirty = true
}

// contains reports whether a is one of the range's elements.
func (f *Footprint) contains(a uintptr) bool {
	if f.n == 0 {
		return false
	}
	d := int(a - uintptr(f.start))
	step := int(f.step)
	if f.n == 1 || step == 0 {
		return d == 0
	}
	if d%step != 0 {
		return false
	}
	k := d / step
	return k >= 0 && k < f.n
}

// commit checks the pending range, if any, and empties f.
func (f *Footprint) commit() {
	if f.base != nil {
		f.loadRange()
	}
	n := f.n
	if n == 0 {
		return
	}
	start, step := f.start, f.step
	f.n, f.next, f.reps, f.start = 0, 0, 0, nil
	g := f.g
	g.fpCommits++
	g.committing = true
	defer func() { g.committing = false }()
	if n == 1 {
		g.checkOne(start, f.size, f.write, f.site)
		return
	}
	if int(step) < 0 {
		// Descending: the same elements, ascending from the last.
		start = unsafe.Add(start, (n-1)*int(step))
		step = -step
	}
	g.checkStrided(start, f.size, step, n, f.write, f.site)
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
