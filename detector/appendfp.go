// Copyright 2026 The bigfoot Authors. All rights reserved.

package detector

import "unsafe"

// Appends in a loop whose writes the site plan defers
// (placement.FootprintAppend): s = append(s, x) in a parser's or an
// encoder's loop writes the next element of s at each iteration, and
// Appender.Add checked each such write at once, one element at a time,
// each the first access of its bytes in the epoch: the shadow's slow path
// and a history note per byte appended. Recorded in a footprint, as a
// loop's element writes are, they form one range, checked when the
// footprint commits (its function's return, the goroutine's next
// synchronization, or a new object when the slice grows).

// An AppenderF is an Appender whose new elements are recorded in a
// footprint: AppendF(f, site, s).Add(xs...).
type AppenderF[S ~[]E, E any] struct {
	f    *Footprint
	site uint32
	s    S
}

// AppendF starts append(s, ...) whose writes footprint f records.
func AppendF[S ~[]E, E any](f *Footprint, site uint32, s S) AppenderF[S, E] {
	return AppenderF[S, E]{f, site, s}
}

// Add is append(s, xs...): the old elements are read at once if they
// move (a growth copies them), the new ones recorded as written.
func (a AppenderF[S, E]) Add(xs ...E) S {
	f, site, s := a.f, a.site, a.s
	if len(s)+len(xs) > cap(s) && len(s) > 0 {
		f.g.ReadRange(unsafe.Pointer(&s[0]), unsafe.Sizeof(s[0]), 0, len(s), 1, site)
	}
	r := append(s, xs...)
	if len(xs) > 0 {
		f.recordN(unsafe.Pointer(&r[len(s)]), unsafe.Sizeof(r[0]), len(xs), site)
	}
	return r
}

// AppendPostF is AppendPost whose writes footprint f records: after
// s = append(s, x1, …, xn) left in place, the last n elements of s.
//
// It is not inlined, as AppendPost is not: the compiler keeps the first,
// small backing arrays of such an append on the stack (cmd/compile's
// slice pass, before inlining) while the slice is only appended to,
// indexed and passed to calls that do not leak it; inlined, the call
// would be a copy of the slice into the inlined parameter, which that
// pass takes for the slice escaping (growModule's 100 appends: 7
// allocations instead of the plain build's 4).
//
//go:noinline
func AppendPostF[S ~[]E, E any](f *Footprint, site uint32, s S, n int) {
	if n > 0 && len(s) >= n {
		f.recordN(unsafe.Pointer(&s[len(s)-n]), unsafe.Sizeof(s[0]), n, site)
	}
}

// recordN records n consecutive elements of size bytes at p, each as F
// records one: the next element of the range inline, else record.
// Elements of size zero occupy no memory and are not recorded.
func (f *Footprint) recordN(p unsafe.Pointer, size uintptr, n int, site uint32) {
	if size == 0 {
		return
	}
	for i := 0; i < n; i++ {
		a := unsafe.Add(p, uintptr(i)*size)
		if uintptr(a) == f.next && f.next != f.end {
			f.next += f.step
			continue
		}
		f.record(a, size, site)
	}
}
