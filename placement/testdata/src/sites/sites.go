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
	return 1
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
