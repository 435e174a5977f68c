// Copyright 2026 The bigfoot Authors. All rights reserved.

package detector

import "unsafe"

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
	first int            // index of the first element not yet checked
	step  int            // index distance between elements (nonzero)
	base  unsafe.Pointer // element 0 of the array (nil: no range open)
	elem  uintptr        // element size
	off   uintptr        // offset of the accessed field in an element
	size  uintptr        // size of the accessed field
}

// OpenRange opens the static range of footprint f over the elements
// s[c*lo+d], s[c*lo+d+step], … of s (their fields of size bytes at offset
// off; size 0 means the whole element) and returns lo, the initial value
// of the loop's induction variable: the emitted loop calls it in its init
// statement. A range already open on f is committed first. step is c
// times the induction variable's step.
func OpenRange[T any](f *Footprint, s []T, lo, c, d, step int, off, size uintptr) int {
	if f.direct {
		// The footprint stack is full: nothing would commit the range,
		// so the elements are checked now, as they are announced.
		f.Range = Range{}
		return lo
	}
	f.commit()
	if size == 0 {
		size = unsafe.Sizeof(*new(T))
	}
	first := c*lo + d
	f.Range = Range{Next: first, first: first, step: step, base: unsafe.Pointer(unsafe.SliceData(s)),
		elem: unsafe.Sizeof(*new(T)), off: off, size: size}
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
	n := (r.Next - r.first) / r.step
	if n <= 0 || r.base == nil || f.count() != 0 {
		return
	}
	// The range lies in one object, the array: r.base keeps it alive
	// and nothing may extend the loaded range dynamically (end = next).
	step := uintptr(r.step) * r.elem // two's complement when descending
	f.start = uintptr(unsafe.Add(r.base, uintptr(r.first)*r.elem+r.off))
	f.obj, f.stack = r.base, onStack(f.g, r.base)
	f.size, f.step = r.size, step
	f.next = f.start + uintptr(n)*step
	f.end, f.cur = f.next, 0
	r.first = r.Next
}
