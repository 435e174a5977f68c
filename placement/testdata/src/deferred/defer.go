// Package deferred tests defer: deferred calls run at the function's end
// (RunDefers); an Unlock deferred makes the return a release point, so
// the accesses of the critical section are checked before it.
package deferred

import "sync"

type T struct {
	mu sync.Mutex
	n  int
}

func (t *T) inc() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.n++
	return t.n // want "W t.n"
}

// A deferred closure accessing shared state is analyzed on its own.
func (t *T) later() {
	defer func() { t.n = 0 }() // want "W t.n"
	t.n = 1
} // want "W t.n"
