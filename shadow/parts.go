// Copyright 2026 The bigfoot Authors. All rights reserved.

package shadow

// Split granules.
//
// A granule whose accesses cover different byte ranges (adjacent fields,
// or the elements of an array of 1-, 2- or 4-byte elements accessed one
// by one) keeps one cell per part: the granule's 8 bytes in parts of
// 1<<shift bytes, with shift as large as every access so far allows. A
// []uint32 accessed element by element has two parts per granule, a
// []uint16 four, a []byte or a struct of mixed fields eight. An access
// that does not cover whole parts refines them (each new part a copy of
// the part it comes from), so that two accesses conflict exactly when
// their bytes overlap, as with one cell per byte, at a fraction of the
// memory and of the cell operations.

import "unsafe"

// parts are the cells of a split granule: cells[i] is the state of the
// bytes [i<<shift, (i+1)<<shift). Both fields are immutable; a refined
// granule gets new parts, and the old ones are no longer written.
type parts struct {
	shift uint8
	cells []cell // 8>>shift cells
}

// newParts returns empty parts of 1<<shift bytes, in one allocation.
func newParts(shift uint8) *parts {
	switch shift {
	case 2:
		x := new(struct {
			p parts
			c [2]cell
		})
		x.p.shift, x.p.cells = 2, x.c[:]
		return &x.p
	case 1:
		x := new(struct {
			p parts
			c [4]cell
		})
		x.p.shift, x.p.cells = 1, x.c[:]
		return &x.p
	default:
		x := new(struct {
			p parts
			c [8]cell
		})
		x.p.cells = x.c[:]
		return &x.p
	}
}

// size returns the bytes of shadow memory sp occupies.
func (sp *parts) size() uintptr {
	return unsafe.Sizeof(*sp) + uintptr(len(sp.cells))*unsafe.Sizeof(cell{})
}

// partShift returns the largest shift, at most 2, such that every bound
// given is a multiple of 1<<shift: parts of that size fit both byte
// ranges [lo1, hi1) and [lo2, hi2).
func partShift(lo1, hi1, lo2, hi2 uint8) uint8 {
	m := lo1 | hi1 | lo2 | hi2 | 4
	switch {
	case m&1 != 0:
		return 0
	case m&2 != 0:
		return 1
	}
	return 2
}

// fits reports whether the bytes [lo, hi) are whole parts.
func (sp *parts) fits(lo, hi uint8) bool {
	mask := uint8(1)<<sp.shift - 1
	return lo&mask == 0 && hi&mask == 0
}

// fill sets the parts of the bytes [lo, hi), which must be whole parts, to
// copies of c.
func (sp *parts) fill(lo, hi uint8, c *cell) {
	for i := lo >> sp.shift; i < (hi-1)>>sp.shift+1; i++ {
		sp.cells[i].copyFrom(c)
	}
}

// refined returns parts of 1<<shift bytes (shift <= sp.shift) with the
// state of sp: every new part a copy of the part of sp it lies in.
func (sp *parts) refined(shift uint8) *parts {
	np := newParts(shift)
	for i := range np.cells {
		np.cells[i].copyFrom(&sp.cells[i>>(sp.shift-shift)])
	}
	return np
}

// same is the same-epoch check of the bytes [lo, hi): it reports whether
// they are whole parts whose cells all record t's epoch for this kind of
// access.
func (sp *parts) same(t *Thread, lo, hi uintptr, write bool) bool {
	mask := uintptr(1)<<sp.shift - 1
	if lo&mask != 0 || hi&mask != 0 {
		return false
	}
	for i := lo >> sp.shift; i < hi>>sp.shift; i++ {
		if c := &sp.cells[i]; !c.sameOwn(t, write) && (write || !c.sameShared(t)) { // cell.same, inlined
			return false
		}
	}
	t.Stats.Checks += uint64((hi - lo) >> sp.shift)
	return true
}
