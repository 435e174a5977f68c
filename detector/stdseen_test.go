// Copyright 2026 The bigfoot Authors. All rights reserved.

package detector

import (
	"sync"
	"testing"
)

// nestedScan is a library function called by another (the footprint
// below its own is the library's): it reads x[lo:hi] and writes every
// seventh element of it.
func nestedScan(g *G, x []int64, lo, hi int) {
	r, w := stdFootprint(g, 0, false), stdFootprint(g, 0, true)
	for i := lo; i < hi; i++ {
		v := *F(r, &x[i], 0)
		if i%7 == 0 {
			*F(w, &x[i], 0) = v + 1
		}
	}
	stdPopFootprints(g, r)
}

// A nested library return checks the elements its seen sets do not hold
// and leaves out the others, until the goroutine synchronizes; the
// outermost library function's return checks its own as before. A key
// gets its set at its second nested return in the epoch.
func TestNestedStdChecksOncePerEpoch(t *testing.T) {
	x := make([]int64, 4096)
	expect(t, false, func(g *G) {
		outer := stdFootprint(g, 0, false)
		checks := func(lo, hi int) uint64 {
			before := g.ranges
			nestedScan(g, x, lo, hi)
			return g.ranges - before
		}
		if n := checks(0, 4096); n == 0 {
			t.Fatal("the first nested return checked nothing")
		}
		if n := checks(0, 4096); n == 0 {
			t.Fatal("the second nested return, which made the sets, checked nothing")
		}
		if n := checks(0, 4096); n != 0 {
			t.Errorf("a nested return in the same epoch made %d checks, want 0", n)
		}
		if n := checks(1000, 3000); n != 0 {
			t.Errorf("a nested return over a part made %d checks, want 0", n)
		}
		mu := new(sync.Mutex)
		Lock(g, mu)
		Unlock(g, mu)
		if n := checks(1000, 3000); n == 0 {
			t.Error("after a synchronization, a nested return checked nothing")
		}
		stdPopFootprints(g, outer)
		before := g.ranges
		nestedScan(g, x, 0, 4096) // the outermost library function now
		if g.ranges == before {
			t.Error("a library function called by the program checked nothing")
		}
	})
}

// A nested return's seen sets are forgotten at a synchronization: a
// write ordered after the first scan and not before the second races
// with the second.
func TestNestedStdForgetsAtSync(t *testing.T) {
	x := make([]int64, 1024)
	mu := new(sync.Mutex)
	expect(t, true, func(g *G) {
		ready, wrote := make(chan struct{}), make(chan struct{})
		done := spawn(g, func(g *G) {
			outer := stdFootprint(g, 0, false)
			nestedScan(g, x, 0, len(x))
			Lock(g, mu)
			Unlock(g, mu)
			close(ready)
			<-wrote // not a synchronization the detector sees
			nestedScan(g, x, 0, len(x))
			stdPopFootprints(g, outer)
		})
		<-spawn(g, func(g *G) {
			<-ready
			Lock(g, mu)
			*W(g, &x[5], 0) = 1
			Unlock(g, mu)
			close(wrote)
		})
		<-done
	})
}

// A read a nested return checked does not cover a write of the element:
// the write is checked.
func TestNestedStdKindNotShared(t *testing.T) {
	x := make([]int64, 1024)
	expect(t, false, func(g *G) {
		outer := stdFootprint(g, 0, false)
		nestedScan(g, x, 0, len(x))
		before := g.ranges
		w := stdFootprint(g, 0, true)
		for i := range x {
			*F(w, &x[i], 0) = 1
		}
		stdPopFootprints(g, w)
		if g.ranges == before {
			t.Error("writes of elements read in the epoch were not checked")
		}
		stdPopFootprints(g, outer)
	})
}
