// Copyright 2026 The bigfoot Authors. All rights reserved.

package shadow

import "unsafe"

// AccessStrided checks n accesses of size bytes each, at base, base+step,
// ..., base+(n-1)*step, by t at site, and reports the first conflict. It is
// the entry point for footprints that are not element ranges of one array:
// a field of every element of an array of structs (size < step), or a
// repeated access to one location (step == 0, checked once).
//
// step must be 0 or at least size: the accesses do not overlap. The result
// is the same as that of n calls of Access, except that only the first
// conflict is reported.
func (s *Space) AccessStrided(t *Thread, base unsafe.Pointer, size, step uintptr, n int, write bool, site uint32) (race Race, found bool) {
	t.Recorded = t.Epoch
	if n <= 0 || size == 0 {
		return Race{}, false
	}
	if step == 0 || n == 1 {
		return s.Access(t, base, size, write, site)
	}
	if t.Disabled > 0 || onStack(t.GP, base) {
		return Race{}, false
	}
	// base is not on this goroutine's stack, so it does not move.
	b := uintptr(base)
	return s.accessSpan(t, span{
		start:  b,
		end:    b + uintptr(n-1)*step + size,
		elem:   size,
		period: step,
	}, write, site)
}
