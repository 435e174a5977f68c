// Copyright 2026 The bigfoot Authors. All rights reserved.

package detector

import (
	"math/bits"
	"runtime"
	"unsafe"

	"github.com/bigfoot-go/bigfoot/shadow"
)

// Side sets: the accesses of a footprint that do not extend its affine
// range.
//
// A gather s += v[k] * x[col[k]], a histogram h[t[i]]++, a stencil's a[i-1]
// and a[i+1], a compaction's out[pos]: their addresses follow no stride,
// so each would break the footprint's range and commit it. Instead they go
// to the footprint's side set, one bit per element of a window of the
// range's object, so that they neither commit the range nor are checked
// one by one. The window covers the whole object when it has at most
// sideWindow elements (a sliding window over larger ones), so that a
// gather over an array of any size in a loop that does not synchronize
// costs one bit per access and its check one range per maximal run of set
// bits, once, at the commit.
//
// The bitmap is split into chunks of chunkBits elements allocated when
// an access first falls into them: memory and commit time follow the
// elements accessed, not the size of the object. Setting the bit of an
// element whose chunk exists is a few instructions inside record, which
// is the common case once a loop has run for a while.
//
// A set remembers, until the goroutine's next synchronization, which
// elements it has seen in the current span (the stretch between two
// synchronization operations of the goroutine), checked or not: an
// element already checked in the span needs no second check (FastTrack's
// same-epoch rule, Rhodes' thesis §2.3.2–§2.3.3 in spirit), so a
// function that gathers from the same array on every call, with no
// synchronization between the calls, checks each element once per span
// rather than once per call. Only the pending bits, seen and not yet
// checked, are checked at a commit. The seen bits stay valid while the set
// holds its object (so its memory cannot be reused by another object)
// and its kind of access; every synchronization clears them (resetSides).

// A sideSet holds the accesses of one footprint that do not fit its
// affine range.
type sideSet struct {
	obj    unsafe.Pointer // the window's heap object, kept alive while the set is placed
	origin uintptr        // address of the window's element 0
	size   uintptr        // element size
	// span is the bytes of the window record may set bits in without a
	// call: nbits*size when the set is placed (and below 4 GB if size
	// is not a power of two), else 0. An element's index is d>>shift,
	// or, when size is not a power of two, the high word of d*magic
	// (d/size for d below 2^32: Lemire, Kaser and Kurz, "Faster
	// remainder by direct computation", 2019).
	span  uintptr
	shift uint
	magic uint64
	nbits int    // elements in the window (0: not placed)
	count int    // pending bits: seen and not yet checked
	seen  int    // seen bits (pending or checked)
	site  uint32 // site of the first access recorded
	write bool   // the kind of the accesses the seen bits stand for
	epoch uint64 // the goroutine's span (fpStack.span) the seen bits belong to
	gen   uint64 // the GC generation (shadow.Gen) at the last commit
	// dir holds the chunks: chunk i has the bits of the window's
	// elements [i*chunkBits, (i+1)*chunkBits). Entries are nil where no
	// element was recorded (always, once the set is reset).
	dir   []*sideChunk
	used  []int32      // indices in dir of the chunks in use
	spare []*sideChunk // cleared chunks for reuse
}

// A sideChunk is one chunk of a side set's bitmap: the elements seen in
// the span, and those of them not yet checked. Bit j of dirty is set when
// pend[j] may hold a bit, so that a commit visits the words with pending
// elements, not all of the chunk's: a function that gathers from a large
// array on every call (flate's findMatch over its window) commits its
// footprint at each return, with a few new elements pending in a set of
// many chunks, and the scan of every word of every chunk in use was most
// of the commit.
type sideChunk struct {
	seen, pend [chunkWords]uint64
	dirty      uint64 // one bit per word of pend (chunkWords is 64)
}

const (
	chunkShift = 12 // log2 of chunkBits
	chunkBits  = 1 << chunkShift
	chunkWords = chunkBits / 64
	// sideWindow is the most elements a side set covers; larger objects
	// get a window of this many elements around the first access.
	sideWindow = 1 << 26
	// sideSpare is the most cleared chunks a side set keeps for reuse;
	// sideDir the longest directory it keeps once reset.
	sideSpare = 32
	sideDir   = 1 << 12
)

// A chunk's dirty word has a bit for each of its words.
const _ uint = 64 - chunkWords

// index returns the index in the window of the element of size bytes at
// a, and whether there is one: a is in the window, at an element's start,
// and record may compute its index (span is not 0).
func (s *sideSet) index(a, size uintptr) (k uintptr, ok bool) {
	d := a - s.origin
	if d >= s.span || size != s.size {
		return 0, false
	}
	k = d >> s.shift
	if s.magic != 0 {
		hi, _ := bits.Mul64(uint64(d), s.magic)
		k = uintptr(hi)
	}
	return k, k*size == d
}

// sideRecord adds the access of size bytes at a, in f's object, to f's
// side set and reports whether the footprint may stay pending: false if a
// is a repeat that the repeat budget does not allow (f.repeat); the
// caller then commits the range. A set of another window, element size,
// kind or span is committed and reset first.
func (f *Footprint) sideRecord(a, size uintptr, site uint32) bool {
	s := f.side
	if s == nil {
		s = new(sideSet)
		f.side = s
	}
	if s.nbits > 0 && (!s.holds(a, size) || s.write != f.write || s.epoch != f.g.fp.span) {
		s.reset(f) // another window
	}
	if s.nbits == 0 {
		s.place(f, a, size, site)
	}
	if !s.add(int((a - s.origin) / s.size)) {
		return f.repeat()
	}
	return true
}

// holds reports whether the element of size bytes at a is one of the
// window's elements.
func (s *sideSet) holds(a, size uintptr) bool {
	return size == s.size && a >= s.origin && (a-s.origin)%s.size == 0 && (a-s.origin)/s.size < uintptr(s.nbits)
}

// add marks the window's element k seen, allocating its chunk if needed,
// and reports whether it was not seen yet (it is then pending).
func (s *sideSet) add(k int) bool {
	c := s.chunk(k >> chunkShift)
	j, bit := k/64%chunkWords, uint64(1)<<(k%64)
	if c.seen[j]&bit != 0 {
		return false
	}
	c.seen[j] |= bit
	c.pend[j] |= bit
	c.dirty |= 1 << j
	s.count++
	s.seen++
	return true
}

// chunk returns the window's chunk i, allocating it if needed.
func (s *sideSet) chunk(i int) *sideChunk {
	if i >= len(s.dir) {
		n := min(max(i+1, 2*len(s.dir)), (s.nbits+chunkBits-1)>>chunkShift)
		s.dir = append(s.dir, make([]*sideChunk, n-len(s.dir))...)
	}
	c := s.dir[i]
	if c == nil {
		if n := len(s.spare); n > 0 {
			c, s.spare = s.spare[n-1], s.spare[:n-1]
		} else {
			c = chunks.get()
		}
		s.dir[i] = c
		s.used = append(s.used, int32(i))
	}
	return c
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
	s.obj, s.write, s.epoch, s.gen = f.obj, f.write, f.g.fp.span, shadow.Gen()
	s.span, s.shift, s.magic = uintptr(s.nbits)*size, 0, 0
	switch {
	case size&(size-1) == 0:
		s.shift = uint(bits.TrailingZeros64(uint64(size)))
	case uint64(s.span) < 1<<32:
		s.magic = ^uint64(0)/uint64(size) + 1
	default:
		s.span = 0 // too large for the multiplication: the slow path
	}
	f.g.fp.dirty, f.g.fp.sides = true, true
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
	for i := 0; i < n; i, k = i+1, k+d {
		s.add(k)
	}
	return true
}

// commit checks every maximal run of pending bits of s as one range and
// clears them (every seen bit after a GC cycle); the set stays placed,
// its elements seen. It costs one step per chunk in use, one per word
// with pending bits and one range check per run: the elements themselves
// are not visited.
func (s *sideSet) commit(f *Footprint) {
	// The shadow may drop state recorded before a GC cycle when another
	// goroutine touches it (GC reuse), so an element checked before a
	// cycle no longer covers its later repeats: after a cycle, the
	// commit checks every element seen in the span again.
	gen := shadow.Gen()
	all := gen != s.gen && s.seen > s.count
	if s.count == 0 && !all {
		return
	}
	s.gen = gen
	g := f.g
	g.fpCommits++
	if g.changes != nil {
		g.flushChanges()
	}
	g.committing = true
	defer func() { g.committing = false }()
	sortIndices(s.used)
	lo, hi := 0, 0 // the run being extended: elements [lo, hi)
	for _, i := range s.used {
		c := s.dir[i]
		d := c.dirty
		if all {
			d = ^uint64(0) // every word, for its seen bits
		}
		for ; d != 0; d &= d - 1 {
			j := bits.TrailingZeros64(d)
			w, base := c.pend[j], int(i)<<chunkShift+j*64
			if all {
				w = c.seen[j]
			}
			c.pend[j] = 0
			for w != 0 {
				t := bits.TrailingZeros64(w)
				n := bits.TrailingZeros64(^(w >> t)) // the ones from t
				if base+t != hi {
					s.check(f, lo, hi)
					lo = base + t
				}
				hi = base + t + n
				if t+n == 64 {
					break
				}
				w &^= 1<<(t+n) - 1
			}
		}
		c.dirty = 0
	}
	s.check(f, lo, hi)
	s.count = 0
}

// reset commits s and empties it: it forgets the elements seen and
// releases its object and its chunks.
func (s *sideSet) reset(f *Footprint) {
	s.commit(f)
	for _, i := range s.used {
		c := s.dir[i]
		clear(c.seen[:])
		if len(s.spare) < sideSpare {
			s.spare = append(s.spare, c)
		} else {
			chunks.put(c)
		}
		s.dir[i] = nil
	}
	s.used = s.used[:0]
	if len(s.dir) > sideDir {
		s.dir = nil
	}
	runtime.KeepAlive(s.obj)
	s.obj, s.nbits, s.span, s.seen = nil, 0, 0, 0
}

// release gives the cleared chunks s keeps to the shared pool; the set
// has been reset (its goroutine ends).
func (s *sideSet) release() {
	for _, c := range s.spare {
		chunks.put(c)
	}
	s.spare = nil
}

// chunks is the pool of cleared chunks shared by all goroutines' side
// sets. A data-parallel program starts its workers anew for every pass,
// and each worker's footprints got new side sets: every chunk of every
// pass was garbage at the worker's end, so that a compaction over 4M
// elements made the collector's heap goal grow by tens of megabytes. The
// pool gives them to the next pass's workers.
var chunks = newFreeList[sideChunk](2048) // 2 MiB of chunks

// check checks the window's elements [lo, hi) as one access (none if the
// interval is empty).
func (s *sideSet) check(f *Footprint, lo, hi int) {
	switch p := shadow.PtrOf(s.origin + uintptr(lo)*s.size); {
	case hi <= lo:
	case hi-lo == 1:
		f.g.checkOneSparse(p, s.size, f.write, s.site)
	default:
		f.g.checkStrided(p, s.size, s.size, hi-lo, f.write, s.site)
	}
}

// sortIndices sorts s in increasing order (Shell's sort with Ciura's
// gaps). The runtime does not call package slices or sort here: under
// -deps=all those are instrumented, and their hooks would count the
// runtime's own work as the program's, re-entering the footprints being
// committed.
func sortIndices(s []int32) {
	for _, gap := range [...]int{701, 301, 132, 57, 23, 10, 4, 1} {
		for i := gap; i < len(s); i++ {
			v, j := s[i], i
			for ; j >= gap && s[j-gap] > v; j -= gap {
				s[j] = s[j-gap]
			}
			s[j] = v
		}
	}
}
