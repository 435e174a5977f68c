// Package rel tests [Rel] (Rhodes' thesis §3.3.3): unchecked
// past accesses are checked before a release, then forgotten.
package rel

import "sync"

type T struct {
	mu   sync.Mutex
	n, m int
}

func (t *T) inc() {
	t.mu.Lock()
	t.n++         // redcard "W t.n"
	t.m = t.n     // redcard "W t.m"
	t.mu.Unlock() // want "W t.m"
	// t.n is not checked here: its next write is anticipated and the
	// check there covers both (no acquire in between).
	t.n = 0 // redcard "W t.n"
	// after the release: a new access, checked at the end
} // want "W t.n"

// Two releases: the second needs no check for accesses the first checked.
func (t *T) twice(wg *sync.WaitGroup) {
	t.n = 1   // redcard "W t.n"
	wg.Done() // want "W t.n"
	wg.Done()
}
