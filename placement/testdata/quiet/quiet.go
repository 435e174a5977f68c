// Package quiet has one function per rule of Facts.QuietWith, for its
// parameter 0; the comment after each says whether it is quiet.
package quiet

import "math"

type rng struct{ state uint64 }

func next(r *rng) uint64 { // quiet
	r.state += 0x9e3779b97f4a7c15
	return r.state ^ r.state>>31
}

func uniform(r *rng) float64 { // quiet: next is quiet with r
	return float64(next(r)>>11) / (1 << 53)
}

func normal(r *rng) float64 { // quiet: math does not panic
	return math.Sqrt(-2*math.Log(uniform(r))) * math.Cos(uniform(r))
}

func index(r *rng, a []int) int { // loud: a[i] may panic
	return a[r.state%8]
}

func other(r *rng, s *rng) uint64 { // loud: s may be nil
	return r.state + s.state
}

func send(r *rng, ch chan uint64) { // loud: a channel operation
	ch <- r.state
}

func viaFunc(r *rng, f func(*rng)) { // loud: an unknown callee
	f(r)
}

func deep(r *rng, n int) uint64 { // loud: recursion
	if n == 0 {
		return r.state
	}
	return deep(r, n-1)
}

func explicit(r *rng) { // loud: panics
	if r.state == 0 {
		panic("zero")
	}
}
