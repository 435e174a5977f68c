// Package dep is the callee package of the cross-package summary tests
// (summary_test.go): the caller, crosspkg, sees its functions only
// through their summaries, as the build does.
package dep

import (
	"math"
	"sync"
)

var mu sync.Mutex

var total int

// Pure computes and returns: no synchronization, no panic, no loop.
func Pure(x float64) float64 { return math.Sqrt(x*x + 1) }

// Mix loops a fixed number of times: sync-free and panic-free, but not
// simple (a loop).
func Mix(h, v uint64) uint64 {
	for i := 0; i < 8; i++ {
		h = (h ^ (v & 0xff)) * 1099511628211
		v >>= 8
	}
	return h
}

// Locks synchronizes through a helper of its own package.
func Locks(n int) int { lock(); total += n; unlock(); return n }

func lock()   { mu.Lock() }
func unlock() { mu.Unlock() }

// Even and Odd recurse into each other without synchronizing.
func Even(n int) bool {
	if n == 0 {
		return true
	}
	return Odd(n - 1)
}

func Odd(n int) bool {
	if n == 0 {
		return false
	}
	return Even(n - 1)
}

// Down recurses and locks at the bottom: the recursion must not hide it.
func Down(n int) int {
	if n == 0 {
		return Locks(0)
	}
	return Down(n - 1)
}

// Shape is implemented by the caller's types.
type Shape interface{ Area() float64 }

// AreaOf calls through an interface: unknown.
func AreaOf(s Shape) float64 { return s.Area() }

// Apply calls a func value: unknown.
func Apply(f func(int) int, x int) int { return f(x) }

// Spawn starts a goroutine: a release.
func Spawn(f func()) { go f() }

// V is a small vector with value methods.
type V struct{ X, Y, Z float64 }

// Dot is a value method: pure.
func (a V) Dot(b V) float64 { return a.X*b.X + a.Y*b.Y + a.Z*b.Z }

// Counter has a method that locks.
type Counter struct {
	mu sync.Mutex
	n  int
}

// Inc locks c.
func (c *Counter) Inc() { c.mu.Lock(); c.n++; c.mu.Unlock() }
