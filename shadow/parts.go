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

import (
	"unsafe"

	"github.com/bigfoot-go/bigfoot/internal/ownheap"
)

// parts are the cells of a split granule: cells[i] is the state of the
// bytes [i<<shift, (i+1)<<shift). The fields are immutable; a refined
// granule gets new parts, and the old ones are no longer written. The
// cells change under the granule's stripe lock, but for the first
// access of a part in an epoch of the goroutine that owns it
// (exclusivePart) and a reader's entry in a read-shared part
// (sharedReadPart), which are compare-and-swaps.
//
// An off-heap granule's parts are off the heap too (newOffParts), under
// the same rules (offheap.go): no read vector clock in any cell (a read
// that would share a part promotes the granule first, and its parts
// with it), freed with their granule (retire) or when refined.
type parts struct {
	shift uint8
	off   bool   // allocated off the heap (newOffParts)
	cells []cell // 8>>shift cells
}

// newParts returns empty parts of 1<<shift bytes, in one allocation.
func newParts(shift uint8) *parts {
	m := ownheap.Begin()
	defer m.End()
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

// partsPools hold off-heap parts, one pool per shift: a block is always
// parts of the same shift, so that a fast path that loaded parts before
// they were freed reads cells of the same layout (see freeParts).
var partsPools [3]blockPool

func init() {
	for shift := range partsPools {
		size := unsafe.Sizeof(parts{}) + uintptr(8>>shift)*unsafe.Sizeof(cell{})
		partsPools[shift].size, partsPools[shift].chunk = size, partsChunk
	}
}

// partsChunk is the bytes mapped at a time for a pool of parts.
const partsChunk = 64 << 10

// newOffParts returns empty parts of 1<<shift bytes outside the Go heap,
// for an off-heap granule: a split granule of a buffer written a few
// bytes at a time (encoding/binary, protobuf's append) was two heap
// objects per 8 bytes, the promoted granule and its parts, which a
// program's testing.AllocsPerRun counted.
func newOffParts(shift uint8) *parts {
	var b [1]uintptr
	partsPools[shift].get(b[:])
	// Cleared as words: the cells' read vector clock pointers are nil
	// in every free block (freeParts), and a pointer store would take
	// the write barrier for memory the collector never scans.
	n := partsPools[shift].size / 8
	clear(unsafe.Slice((*uintptr)(ptrOf(b[0])), n))
	sp := (*parts)(ptrOf(b[0]))
	sp.shift, sp.off = shift, true
	sp.cells = unsafe.Slice((*cell)(ptrOf(b[0]+unsafe.Sizeof(parts{}))), 8>>shift)
	return sp
}

// freeParts returns sp to its pool if it is off the heap; the stripe lock
// of its granule's slot is held, and no granule refers to sp any more. As
// retire does for a granule, it first zeroes the epochs, so that a fast
// path that loaded sp before fails on it (parts.same), and reads at worst
// its next user's epochs, never its own current one.
func freeParts(sp *parts) {
	if sp == nil || !sp.off || !recycleGranules {
		return
	}
	for i := range sp.cells {
		c := &sp.cells[i]
		if c.w.Load() != 0 {
			c.w.Store(0)
		}
		if c.r.Load() != 0 {
			c.r.Store(0)
		}
	}
	partsPools[sp.shift].put([]uintptr{uintptr(unsafe.Pointer(sp))})
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
// the epochs w and r, the sites ws and rs, and copies of the read vector
// clock v (v itself is not kept). It takes the values, not a cell: a cell
// built for it escaped to the heap.
func (sp *parts) fill(lo, hi uint8, w, r uint64, ws, rs uint32, v *readVC) {
	for i := lo >> sp.shift; i < (hi-1)>>sp.shift+1; i++ {
		c := &sp.cells[i]
		c.w.Store(w)
		c.r.Store(r)
		c.wsite.Store(ws)
		c.rsite.Store(rs)
		c.rvc.Store(v.copied())
	}
}

// refined returns parts of 1<<shift bytes (shift <= sp.shift) with the
// state of sp, off the heap if sp is: every new part a copy of the part
// of sp it lies in.
func (sp *parts) refined(shift uint8) *parts {
	var np *parts
	if sp.off {
		np = newOffParts(shift)
	} else {
		np = newParts(shift)
	}
	sp.copyTo(np)
	return np
}

// copyTo sets every part of np, whose shift is at most sp's, to a copy of
// the part of sp it lies in, which it empties: sp is discarded after. It
// takes the epochs of sp's parts (cell.take) and the read vector clocks'
// entries (readVC.taken), as every locked update that moves a cell or
// replaces a clock does: exclusivePart records an epoch and
// sharedReadPart an entry in sp without the lock, and one recorded after
// the copy must fail (a compare-and-swap of 0, or of frozen) instead of
// being lost with sp.
func (sp *parts) copyTo(np *parts) {
	k := uint(sp.shift - np.shift)
	for j := range sp.cells {
		src := &sp.cells[j]
		w, r := src.take()
		v := src.rvc.Load().taken()
		if moveHook != nil {
			moveHook()
		}
		for i := j << k; i < (j+1)<<k; i++ {
			c := &np.cells[i]
			c.w.Store(w)
			c.r.Store(r)
			c.copySites(src)
			c.rvc.Store(v.copied())
		}
	}
}

// onePart reports whether the bytes [lo, hi) are exactly one part.
func (sp *parts) onePart(lo, hi uint8) bool {
	return sp.fits(lo, hi) && hi-lo == 1<<sp.shift
}

// shares reports whether a read by t of the bytes [lo, hi), whole parts,
// would make one of them read-shared, which parts off the heap cannot
// record (readMay: a last read that does not happen before t).
func (sp *parts) shares(t *Thread, lo, hi uint8) bool {
	for i := lo >> sp.shift; i < (hi-1)>>sp.shift+1; i++ {
		if r := sp.cells[i].r.Load(); r == shared || !HB(Epoch(r), t.VC) {
			return true
		}
	}
	return false
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
		if c := &sp.cells[i]; !c.sameOwn(t, write) && (write || !c.sameShared(t) && !c.ownWrite(t)) { // cell.same, inlined
			return false
		}
	}
	t.Stats.Checks += uint64((hi - lo) >> sp.shift)
	return true
}
