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
	recordAppended(f, site, r, len(xs))
	return r
}

// AppendPostF is AppendPost whose writes footprint f records: after
// s = append(s, x1, …, xn) left in place, the last n elements of s.
func AppendPostF[S ~[]E, E any](f *Footprint, site uint32, s S, n int) {
	if n > 0 && len(s) >= n {
		recordAppended(f, site, s, n)
	}
}

// recordAppended records the writes of the last n elements of s in f.
// Elements of size zero occupy no memory and are not recorded.
func recordAppended[S ~[]E, E any](f *Footprint, site uint32, s S, n int) {
	if n == 0 || unsafe.Sizeof(*unsafe.SliceData(s)) == 0 {
		return
	}
	for i := len(s) - n; i < len(s); i++ {
		F(f, &s[i], site)
	}
}
