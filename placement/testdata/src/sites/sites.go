// Package sites holds the cases of TestSiteDecisions: each site comment
// states the site plan's decision on an access of kind R or W at its
// line, exactly.
package sites

import "sync"

type T struct {
	a, b, c int
	d       int8
	e       int64
}

var mu sync.Mutex

func lock() int {
	mu.Lock()
	defer mu.Unlock()
	return 1 // site "W not shared" "R not shared": the result, stored, and loaded after the deferred call
}

func pure(x int) int { return x + 1 }

// The write's check covers the read after it.
func readAfterWrite(p *T) int {
	p.a = 1
	return p.a // site "R dropped by W 26"
}

// The write's check covers the read before it (nothing between may
// acquire).
func readBeforeWrite(p *T) {
	v := p.b // site "R dropped by W 34"
	p.b = v + 1
}

// The read's statement calls a function that synchronizes: Go may load
// p.a after the call, so the write's check does not cover it. A call free
// of synchronization does not matter.
func syncInStatement(p *T) int {
	p.a = 1
	x := p.a + lock()
	p.b = 2
	y := p.b + pure(1) // site "R dropped by W 43"
	return x + y
}

// A release between the write and the read: no drop.
func releaseBetween(p *T) int {
	p.a = 1
	mu.Unlock()
	return p.a
}

// Three consecutive fields written in one block: one check of a..c at
// the last write, the others left out for it.
func group(p *T) {
	p.a = 1 // site "W member of 60"
	p.b = 2 // site "W member of 60"
	p.c = 3 // site "W group a..c [0,24)"
}

// Padding between d and e: no group spans them.
func padded(p *T) {
	p.d = 1
	p.e = 2
}

// A call that may synchronize between the writes: no group.
func groupSync(p *T) {
	p.a = 1
	lock()
	p.b = 2
}

var sink *T

// An object not yet published: its accesses need no check until it is;
// but the write's check covers the read after the publication, so it is
// made.
func fresh() int {
	q := &T{}
	q.a = 1
	x := q.a // site "R unpublished"
	q.b = 2  // site "W unpublished"
	sink = q
	return x + q.a // site "R dropped by W 83"
}

// Element groups: the elements of one slice or array at constant
// indices, as encoding/binary reads and writes them. The hint `_ = b[7]`
// proves every index up to 7 within bounds: one read check of b[0..7]
// at the last read that keeps its check (b[6]: the hint's check covers
// b[7]'s read), the hint's read and the others left out for it.
func le64(b []byte) uint64 {
	_ = b[7]                                                                      // site "R member of 98"
	return uint64(b[0]) | uint64(b[1])<<8 | uint64(b[2])<<16 | uint64(b[3])<<24 | // site "R member of 98" "R member of 98" "R member of 98" "R member of 98"
		uint64(b[4])<<32 | uint64(b[5])<<40 | uint64(b[6])<<48 | uint64(b[7])<<56 // site "R member of 98" "R member of 98" "R group [0..7] [0,8)" "R dropped by R 96"
}

// Without the hint, the element address of b[1] may panic after b[0]
// was read: no group.
func le16(b []byte) uint16 {
	return uint16(b[0]) | uint16(b[1])<<8
}

// The largest index first proves the others within bounds.
func be16(b []byte) uint16 {
	return uint16(b[1]) | uint16(b[0])<<8 // site "R member of 109" "R group [0..1] [0,2)"
}

// The Put side: a write group over b[0..3], which covers the hint's
// read of b[3] as the write that follows it (RedCard's rule).
func putLE32(b []byte, v uint32) {
	_ = b[3]             // site "R member of 119"
	b[0] = byte(v)       // site "W member of 119"
	b[1] = byte(v >> 8)  // site "W member of 119"
	b[2] = byte(v >> 16) // site "W member of 119"
	b[3] = byte(v >> 24) // site "W group [0..3] [0,4)"
}

// An array through a pointer: its constant indices are within bounds;
// a gap (a[2] not accessed) splits the runs.
func arr(a *[8]uint16) uint16 {
	return a[0] + a[1] + a[3] + a[4] // site "R member of 125" "R group [0..1] [0,4)" "R member of 125" "R group [3..4] [6,10)"
}

// A call that may synchronize between the writes: no group.
func elemSync(b []byte) {
	_ = b[1]
	b[0] = 1
	lock()
	b[1] = 2
}

// Elements of two slices: b's group; a's span holds b's first element
// address, which may panic after a[1] was read, so a has none.
func twoSlices(a, b []int32) {
	_, _ = a[1], b[1] // site "R member of 141"
	a[0], b[0] = 1, 2 // site "W member of 141"
	a[1], b[1] = 3, 4 // site "W group [0..1] [0,8)"
}
