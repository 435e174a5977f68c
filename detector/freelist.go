// Copyright 2026 The bigfoot Authors. All rights reserved.

package detector

import (
	"github.com/bigfoot-go/bigfoot/internal/ownheap"
	"github.com/bigfoot-go/bigfoot/internal/spin"
	"github.com/bigfoot-go/bigfoot/shadow"
)

// A freeList keeps cleared objects of one type that a goroutine's state
// allocates and drops at the goroutine's end (side-set chunks, chunks of
// the footprint stack), for the goroutines started after it. A program
// that starts its workers anew for every step (a data-parallel pass, a
// stencil's sweep) otherwise made them garbage at every step, and the
// collector's heap goal grew with that garbage. A list holds at most max
// objects, and every GC cycle frees those no get needed since the cycle
// before (trim), so an idle list empties in two cycles.
type freeList[T any] struct {
	mu   spin.Mutex
	free []*T
	low  int // the fewest objects free since the last trim
	max  int
}

// newFreeList returns a free list of at most max objects, trimmed after
// every GC cycle.
func newFreeList[T any](max int) *freeList[T] {
	l := &freeList[T]{max: max}
	shadow.AfterGC(l.trim)
	return l
}

// get returns a cleared object: one from the list, or a new one,
// allocated as the detector's (internal/ownheap).
func (l *freeList[T]) get() *T {
	l.mu.Lock()
	n := len(l.free)
	if n == 0 {
		l.mu.Unlock()
		return ownheap.New[T]()
	}
	x := l.free[n-1]
	l.free[n-1] = nil
	l.free = l.free[:n-1]
	l.low = min(l.low, n-1)
	l.mu.Unlock()
	return x
}

// put adds the cleared object x to the list, or drops it if the list is
// full.
func (l *freeList[T]) put(x *T) {
	l.mu.Lock()
	if len(l.free) < l.max {
		l.free = ownheap.Append(l.free, x)
	}
	l.mu.Unlock()
}

// trim frees the objects no get needed since the last trim.
func (l *freeList[T]) trim() {
	l.mu.Lock()
	n := len(l.free) - l.low
	clear(l.free[n:])
	l.free = l.free[:n]
	l.low = n
	l.mu.Unlock()
}
