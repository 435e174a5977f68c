// Package lib is called by the summaries program: its functions reach the
// caller's kill sets only through their effect summaries.
package lib

import (
	"math"
	"sync"
)

var (
	mu    sync.Mutex
	ticks int
)

// Scale neither synchronizes nor panics.
func Scale(i int) int { return i&3 + 1 }

// Root is simple: it calls only package math.
func Root(x float64) float64 { return math.Sqrt(x) + 1 }

// Mix loops, without synchronizing or panicking.
func Mix(h, v uint64) uint64 {
	for i := 0; i < 8; i++ {
		h = (h ^ (v & 0xff)) * 1099511628211
		v >>= 8
	}
	return h
}

// Tick locks a mutex of lib.
func Tick() int {
	mu.Lock()
	defer mu.Unlock()
	ticks++
	return 0
}

// Div may panic (a zero divisor).
func Div(a, b int) int { return a / b }

// Apply calls a func value: anything may happen.
func Apply(f func(int) int, x int) int { return f(x) }

// Even recurses without synchronizing; recursion may not return.
func Even(n int) bool {
	if n <= 0 {
		return n == 0
	}
	return !Even(n - 1)
}
