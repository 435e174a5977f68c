// Copyright 2026 The bigfoot Authors. All rights reserved.

package detector

import (
	"unsafe"

	"github.com/bigfoot-go/bigfoot/shadow"
)

// Static loop ranges.
//
// For a loop whose element accesses are affine in its induction variable,
// `for i := lo; …; i += k { … a[c*i+d] … }`, the static pass replaces the
// per-element footprint records by a pending range whose extent the loop
// maintains itself, without calling the runtime:
//
//	for i := __bf.OpenRange(__bfF0_1, a, lo, c, d, c*k, 0, 0); i < hi; i += k {
//		a[c*i+d] = v; __bfF0_1.Next = c*i + d + c*k
//	}
//
// OpenRange registers the range on the footprint (which the function's
// prologue pushed on the goroutine's stack of footprints, as for F): the
// elements a[first], a[first+step], … below index Next, first = c*lo+d.
// Each iteration stores the index after its element once the statement
// that accesses it has run, so the range holds exactly the elements
// accessed so far. The runtime commits it as it commits footprints: before
// the goroutine's next synchronization (after which the range starts again
// at Next, so no element is checked in a span that did not access it), at
// the next OpenRange of the same footprint (the next execution of the
// loop), when the function returns (PopFootprints) and when the goroutine
// ends. A loop left by break, return, goto, a recovered panic or
// runtime.Goexit therefore checks the iterations that ran and no other.
// The range holds a pointer to the array, so the array stays allocated
// (its memory is not reused by another object) until the commit.

// A Range is the static part of a footprint: a pending strided range of
// the elements of one array the emitted loop extends by storing Next.
type Range struct {
	// Next is the index after the last element accessed (first when none
	// is), stored by the emitted loop after each access.
	Next  int
	first int // index of the first element not yet checked
	// [hlo, hhi], if held, are the elements (step apart, inclusive) that
	// earlier executions of the loop accessed and that are still
	// pending: a loop reopened inside or next to them (the rows of a
	// matrix, an insertion sort's inner loop reopened one element
	// higher) extends them instead of committing.
	hlo, hhi int
	held     bool
	step     int            // index distance between elements (nonzero)
	base     uintptr        // address of element 0 of the array (0: no range open)
	obj      unsafe.Pointer // the heap object holding the array, kept alive; nil if none
	stack    bool           // the array is on the goroutine's stack: never checked
	elem     uintptr        // element size
	off      uintptr        // offset of the accessed field in an element
	size     uintptr        // size of the accessed field
	org      uintptr        // address of element d (index c·lo+d at lo = 0), for reports (exact.go)
}

// OpenRange opens the static range of footprint f over the elements
// s[c*lo+d], s[c*lo+d+step], … of s (their fields of size bytes at offset
// off; size 0 means the whole element) and returns lo, the initial value
// of the loop's induction variable: the emitted loop calls it in its init
// statement. A range already open on f is committed first. step is c
// times the induction variable's step.
func OpenRange[T any](f *Footprint, s []T, lo, c, d, step int, off, size uintptr) int {
	return OpenRangeAt(f, unsafe.Pointer(unsafe.SliceData(s)), unsafe.Sizeof(*new(T)), lo, c, d, step, off, size)
}

// Load returns *p, an element of f's static range that the emitted loop
// reads where something after the read in its statement may panic (an
// index out of range, a nil dereference, a call): it stores next, the
// range's extent with the element, as soon as the read is made, so that a
// recovered panic or runtime.Goexit after it cannot leave the element out
// of the range. Inlined, it is the read and one plain store.
func Load[T any](f *Footprint, p *T, next int) T {
	v := *p
	f.Next = next
	return v
}

// LoadGrow is Load for a range merged from several sites whose elements
// overlap from one iteration to the next (sor's row[j-1], row[j],
// row[j+1] with j += 2): it stores next only if next extends the range in
// its direction, since an earlier iteration may have extended it further.
func LoadGrow[T any](f *Footprint, p *T, next int) T {
	v := *p
	if (next-f.Next)*f.Range.step > 0 {
		f.Next = next
	}
	return v
}

// OpenRangeAt is OpenRange over the elements of size elem that follow
// base, the address of element 0 (nil if there is none: no range opens).
// A range that starts where the open one ends, with the same layout,
// extends it instead of committing it.
// The emitted code uses it for elements of nested fixed arrays, counted
// flat from the first (b[k][j] of b *[N][N]T is element k*N+j of b).
func OpenRangeAt(f *Footprint, base unsafe.Pointer, elem uintptr, lo, c, d, step int, off, size uintptr) int {
	if f.direct {
		// The footprint stack is full: nothing would commit the range,
		// so the elements are checked now, as they are announced.
		f.Range = Range{}
		return lo
	}
	if size == 0 {
		size = elem
	}
	first := c*lo + d
	a := uintptr(base)
	if r := &f.Range; r.base == a && a != 0 && r.step == step && r.elem == elem && r.off == off && r.size == size {
		if plo, phi, ok := r.pending(); ok && r.adjoins(first, plo, phi) {
			// The loop continues the pending elements where its last
			// execution left them (the rows of a matrix in a nest of
			// loops, a[i][k] over i and k), runs over part of them
			// again (b[k][j] over k and j, for every i) or starts
			// next to them (an insertion sort's inner loop, from one
			// element higher each time, downwards): whatever this
			// execution accesses is contiguous with them, so one
			// check of the union at the commit covers every
			// execution.
			r.hlo, r.hhi, r.held = plo, phi, true
			r.first, r.Next = first, first
			r.org = a + uintptr(d)*elem
			return lo
		}
	}
	f.g.fp.moving = true
	f.commit()
	f.g.fp.moving = false
	f.Range = Range{Next: first, first: first, step: step, base: a, elem: elem, off: off, size: size, org: a + uintptr(d)*elem}
	if a != 0 {
		// The address, not the pointer, goes into the footprint: a
		// stored pointer would make every array the loop runs over
		// escape to the heap (a parameter's, its callers'). The heap
		// object is found and kept alive instead, as begin does for
		// F; a stack array (which the stack can move) is never
		// checked, being the goroutine's own.
		if objBase, _, heap := shadow.ObjectBounds(a); heap {
			f.Range.obj = shadow.PtrOf(objBase)
		} else {
			f.Range.stack = onStack(f.g, base)
		}
	}
	f.g.fp.dirty = true
	return lo
}

// loadRange moves the elements of f's open static range accessed since
// its last commit into f's dynamic range, for commit to check, and keeps
// the range open: the goroutine's footprints stay dirty, since the loop
// may extend it again without calling the runtime.
func (f *Footprint) loadRange() {
	r := &f.Range
	f.g.fp.dirty = true
	lo, hi, ok := r.pending()
	if !ok || r.base == 0 || f.count() != 0 {
		return
	}
	// The range lies in one object, the array: r.obj keeps it alive and
	// nothing may extend the loaded range dynamically (end = next). It
	// is loaded ascending whatever the loop's direction.
	s := abs(r.step)
	n := (hi-lo)/s + 1
	step := uintptr(s) * r.elem
	f.start = r.base + uintptr(lo)*r.elem + r.off
	f.obj, f.stack = r.obj, r.stack
	f.size, f.step = r.size, step
	f.next = f.start + uintptr(n)*step
	f.end, f.cur = f.next, 0
	f.org, f.orgElem = r.org, r.elem
	r.first, r.held = r.Next, false
}

// pending returns the lowest and highest index of the elements r holds
// unchecked: those of earlier executions of the loop (held) and those
// of the current one, first, first+step, ... below Next (above it when
// descending). ok is false if there are none.
func (r *Range) pending() (lo, hi int, ok bool) {
	if r.step == 0 {
		return 0, 0, false
	}
	lo, hi, ok = r.hlo, r.hhi, r.held
	if n := (r.Next - r.first) / r.step; n > 0 {
		clo, chi := r.first, r.Next-r.step
		if r.step < 0 {
			clo, chi = chi, clo
		}
		if !ok {
			return clo, chi, true
		}
		lo, hi = min(lo, clo), max(hi, chi)
	}
	return lo, hi, ok
}

// adjoins reports whether an execution of the loop from index first
// accesses elements contiguous with the pending [lo, hi]: first is one
// of them or the next on either side, on the same grid of step. The
// execution's elements run from first by step, so their union with
// [lo, hi] has no gap whatever the loop's direction and length.
func (r *Range) adjoins(first, lo, hi int) bool {
	s := abs(r.step)
	return (first-lo)%s == 0 && first >= lo-s && first <= hi+s
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
