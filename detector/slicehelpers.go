// Copyright 2026 The bigfoot Authors. All rights reserved.

package detector

import "unsafe"

// The slice helpers of emitted code: copy, append and the whole-slice
// reads and writes of conversions and clear, with the elements they touch
// checked.
//
// This file is the one copy of them. The driver derives the helpers of its
// standard-library shim from it (driver/stdshim.go, sliceHelpers): it
// renames G and each declaration here to the shim's __bf_ names, unsafe to
// the shim's import and min to __bf_min, and keeps the rest. So the
// helpers here may use only package unsafe, builtins, and the methods
// ReadRange, WriteRange and moveRange of *G, which the shim's G has too
// (there moveRange checks at once: the standard library keeps no pending
// checks).

// Copy is copy(dst, src) with the elements copied written and read.
func Copy[E any](g *G, site uint32, dst, src []E) int {
	if n := min(len(dst), len(src)); n > 0 {
		size := unsafe.Sizeof(dst[0])
		g.moveRange(unsafe.Pointer(&dst[0]), size, n, true, site)
		g.moveRange(unsafe.Pointer(&src[0]), size, n, false, site)
	}
	return copy(dst, src)
}

// CopyString is copy(dst, src) from a string (immutable: not read).
func CopyString[B ~[]byte, T ~string](g *G, site uint32, dst B, src T) int {
	if n := min(len(dst), len(src)); n > 0 {
		g.moveRange(unsafe.Pointer(&dst[0]), 1, n, true, site)
	}
	return copy(dst, src)
}

// An Appender holds the slice of append(s, xs...) so that the elements are
// assigned to the slice's element type, as append does:
// Append(g, site, s).Add(xs...).
type Appender[S ~[]E, E any] struct {
	g    *G
	site uint32
	s    S
}

// Append starts append(s, ...).
func Append[S ~[]E, E any](g *G, site uint32, s S) Appender[S, E] {
	return Appender[S, E]{g, site, s}
}

// Add is append(s, xs...): the old elements are read if they move, the new
// ones written.
func (a Appender[S, E]) Add(xs ...E) S {
	g, site, s := a.g, a.site, a.s
	if len(s)+len(xs) > cap(s) && len(s) > 0 {
		g.ReadRange(unsafe.Pointer(&s[0]), unsafe.Sizeof(s[0]), 0, len(s), 1, site)
	}
	r := append(s, xs...)
	if len(xs) > 0 {
		g.WriteRange(unsafe.Pointer(&r[0]), unsafe.Sizeof(r[0]), len(s), len(r), 1, site)
	}
	return r
}

// AddSlice is append(s, xs...) of a slice xs, whose elements are read.
func (a Appender[S, E]) AddSlice(xs ...E) S {
	if len(xs) > 0 {
		a.g.ReadRange(unsafe.Pointer(&xs[0]), unsafe.Sizeof(xs[0]), 0, len(xs), 1, a.site)
	}
	return a.Add(xs...)
}

// AppendPre and AppendPost check s = append(s, x1, …, xn), which the
// instrumenter leaves in place for a local slice variable (the compiler
// may keep a small backing array of it on the stack, which an append in
// Add does not get): before it, the n-element append's reads of the old
// elements if they move; after it, its writes of the last n.
func AppendPre[S ~[]E, E any](g *G, site uint32, s S, n int) {
	if len(s)+n > cap(s) && len(s) > 0 {
		g.ReadRange(unsafe.Pointer(&s[0]), unsafe.Sizeof(s[0]), 0, len(s), 1, site)
	}
}

// AppendPost is AppendPre's second half, given the appended slice.
func AppendPost[S ~[]E, E any](g *G, site uint32, s S, n int) {
	if n > 0 && len(s) >= n {
		g.WriteRange(unsafe.Pointer(&s[0]), unsafe.Sizeof(s[0]), len(s)-n, len(s), 1, site)
	}
}

// AppendString is append(s, str...).
func AppendString[S ~[]byte, T ~string](g *G, site uint32, s S, str T) S {
	if len(s)+len(str) > cap(s) && len(s) > 0 {
		g.ReadRange(unsafe.Pointer(&s[0]), 1, 0, len(s), 1, site)
	}
	r := append(s, str...)
	if len(str) > 0 {
		g.WriteRange(unsafe.Pointer(&r[0]), 1, len(s), len(r), 1, site)
	}
	return r
}

// ReadAll reads every element of s and returns s (string(b)).
func ReadAll[S ~[]E, E any](g *G, site uint32, s S) S {
	if len(s) > 0 {
		g.ReadRange(unsafe.Pointer(&s[0]), unsafe.Sizeof(s[0]), 0, len(s), 1, site)
	}
	return s
}

// WriteAll writes every element of s and returns s (clear(s)).
func WriteAll[S ~[]E, E any](g *G, site uint32, s S) S {
	if len(s) > 0 {
		g.WriteRange(unsafe.Pointer(&s[0]), unsafe.Sizeof(s[0]), 0, len(s), 1, site)
	}
	return s
}
