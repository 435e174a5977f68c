// Package cover holds the access summaries' golden cases: each function's
// comment `cover "..."` is what CoverOf returns for it ("none": nil).
package cover

import (
	"math"
	"sync"
)

type keys [4][2]uint16

type sphere struct {
	x, y, z float64
	r       float64
	tag     string
}

func mul(a, b uint16) uint16 { // cover "none"
	x, y := uint32(a), uint32(b)
	if x == 0 {
		x = 65536
	}
	return uint16(x * y % 65537)
}

// round reads k[0] and k[1] on every call.
func round(h uint32, k *[2]uint16) uint32 { // cover "param 1: R [0,4)"
	a := mul(uint16(h), k[0])
	b := uint16(h>>16) + k[1]
	a += mul(b, k[0]^0x5a5a)
	return uint32(a)<<16 | uint32(b)
}

// intersect reads the position and radius on every call, and the tag on
// one path only: the tag keeps its check.
func intersect(s *sphere, d float64) float64 { // cover "param 0: R [0,32)"
	c := s.x*d + s.y*d + s.z*d - s.r*s.r
	if c < 0 {
		return math.Sqrt(-c)
	}
	if s.tag == "" {
		return 0
	}
	return c
}

// branches reads one field on each branch: nothing is read on every call.
func branches(s *sphere, b bool) float64 { // cover "none"
	if b {
		return s.x
	}
	return s.y
}

// writer writes x and reads x and y: the write covers the read of x.
func writer(s *sphere) { // cover "param 0: W [0,8), R [8,16)"
	s.x = s.x + s.y
}

// gaps reads x and z: two spans, y is not checked.
func gaps(s *sphere) float64 { // cover "param 0: R [0,8), R [16,24)"
	return s.x + s.z
}

var mu sync.Mutex

// locks synchronizes: its accesses cannot move to the caller.
func locks(s *sphere) float64 { // cover "none"
	mu.Lock()
	v := s.x
	mu.Unlock()
	return v
}

// locksAfter synchronizes after its access: still none (a caller's check
// would be committed at the lock, before the access).
func locksAfter(s *sphere) float64 { // cover "none"
	v := s.x
	mu.Lock()
	mu.Unlock()
	return v
}

// escapes hands the pointer to a goroutine.
func escapes(s *sphere) float64 { // cover "none"
	v := s.x
	go func() { s.y = 1 }()
	return v
}

// recursive calls itself.
func recursive(s *sphere, n int) float64 { // cover "none"
	if n == 0 {
		return s.x
	}
	return s.x + recursive(s, n-1)
}

// loops has a loop: it may not return.
func loops(s *sphere, n int) float64 { // cover "none"
	t := 0.0
	for i := 0; i < n; i++ {
		t += s.x
	}
	return t
}

// panicsFirst may panic before its access (an index out of range).
func panicsFirst(s *sphere, a []int, i int) float64 { // cover "none"
	_ = a[i]
	return s.x
}

// twoPointers dereferences q, which may be nil: a panic before s's access.
func twoPointers(s, q *sphere) float64 { // cover "none"
	return q.x + s.x
}

// callsUnknown calls through a func value.
func callsUnknown(s *sphere, f func()) float64 { // cover "none"
	f()
	return s.x
}

// deref reads through a loaded pointer, which may be nil: a panic the
// caller's nil test does not rule out.
type node struct {
	next *node
	v    int
}

func deref(n *node) int { // cover "none"
	return n.next.v
}

// key reads one element of an array of arrays.
func key(k *keys) uint16 { // cover "param 0: R [4,6)"
	return k[1][0]
}
