// Package acq tests [Acq] (Rhodes' thesis §3.3.3): past accesses are
// checked before an acquire; the check also covers later accesses of the
// same location up to the next release, and anticipated accesses do not
// flow backwards across the acquire.
package acq

import "sync"

type T struct{ a, b int }

func f(t *T, mu *sync.Mutex) int {
	x := t.a    // redcard "R t.a"
	mu.Lock()   // want "R t.a"
	y := t.a    // covered by the check before Lock
	t.b = x + y // redcard "W t.b"
	mu.Unlock() // want "W t.b"
	return x
}

// An access after an acquire is not anticipated before it.
func g(t *T, mu *sync.Mutex) {
	t.a = 1   // redcard "W t.a"
	mu.Lock() // want "W t.a"
	t.a = 2   // covered: a write check precedes with no release in between
}
