// Package lib is called by crosscall: Scale neither synchronizes nor
// panics (its summary lets the caller's loop keep a static range), Tick
// locks a mutex of its own (its summary kills the range).
package lib

import "sync"

var (
	mu    sync.Mutex
	ticks int
)

// Scale returns a small weight of i.
func Scale(i int) int { return i&3 + 1 }

// Tick counts under lib's mutex.
func Tick() {
	mu.Lock()
	ticks++
	mu.Unlock()
}
