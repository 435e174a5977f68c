// Package syncs tests the classification of Go synchronization
// (ARCHITECTURE.md §3): atomics, WaitGroup, Once, RWMutex, a callee that
// only releases, and struct copies.
package syncs

import (
	"sync"
	"sync/atomic"
)

type S struct {
	a, b  int
	flag  atomic.Bool
	ready int32
	mu    sync.RWMutex
	once  sync.Once
}

// An atomic store releases (and acquires): the pending write of s.a is
// checked before it.
func publish(s *S) {
	s.a = 1
	s.flag.Store(true) // want "W s.a"
}

// An atomic load acquires and, in the detector, releases too (every atomic
// operation does: detector/atomic.go): pending accesses are checked before
// it, and its check does not cover the later read of s.a, which the release
// separates from it.
func consume(s *S) int {
	x := s.a
	if atomic.LoadInt32(&s.ready) == 1 { // want "R s.a"
		return x + s.a // want "R s.a"
	}
	return x
}

// WaitGroup.Done releases; the access after it is anticipated at Done,
// so one check after both covers the two writes.
func worker(s *S, wg *sync.WaitGroup) {
	s.b = 1
	wg.Done()
	s.b = 2
} // want "W s.b"

// RLock acquires, RUnlock releases.
func (s *S) get() int {
	s.mu.RLock()
	v := s.a + s.b
	s.mu.RUnlock() // want "R s.a,s.b"
	return v
}

// Once.Do runs arbitrary code: both acquire and release.
func (s *S) init1() {
	s.a = 0
	s.once.Do(func() { s.b = 1 }) // want "W s.a" "W s.b"
	s.a = 1
} // want "W s.a"

func unlock(m *sync.Mutex) { m.Unlock() }

// A callee that only releases: past accesses not anticipated are checked
// before the call; an anticipated one waits for the later access.
func viaCallee(s *S, m *sync.Mutex) {
	s.a = 1
	s.b = 1
	unlock(m) // want "W s.a"
	s.b = 2
} // want "W s.b"

type P struct{ x, y int }

// A struct copy reads or writes the whole value: *p.
func copyStruct(dst, src *P) {
	*dst = *src
} // want "R *src" "W *dst"
