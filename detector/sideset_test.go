// Copyright 2026 The bigfoot Authors. All rights reserved.

package detector

import (
	"sync"
	"testing"
)

// gatherIndices returns n pseudo-random indices below m, with no stride.
func gatherIndices(n, m int) []int {
	idx := make([]int, n)
	seed := uint64(3)
	for i := range idx {
		seed = seed*6364136223846793005 + 1442695040888963407
		idx[i] = int(seed>>33) % m
	}
	return idx
}

// gather reads x[idx[k]] for every k through one footprint, as emitted
// code does for s += v[k] * x[col[k]], and pops it.
func gather(g *G, x []int64, idx []int) (sum int64) {
	f := g.Footprint(0, false)
	for _, k := range idx {
		sum += *F(f, &x[k], 0)
	}
	g.PopFootprints(f)
	return sum
}

// A gather over an array much larger than a chunk goes to one side set
// covering the whole array: it commits about once per as many repeats as
// it holds elements (so that a loop that never ends publishes its
// accesses), and the pop checks the set as runs.
func TestSideSetCoversObject(t *testing.T) {
	x := make([]int64, 10*chunkBits)
	idx := gatherIndices(3*len(x), len(x))
	expect(t, false, func(g *G) {
		f := g.Footprint(0, false)
		before := g.fpCommits
		for _, k := range idx {
			_ = *F(f, &x[k], 0)
		}
		if c := g.fpCommits - before; c > 4 {
			t.Errorf("%d commits before the pop, want at most 4 (%d accesses of %d elements)", c, len(idx), len(x))
		}
		if s := f.side; s == nil || s.nbits != len(x) {
			t.Fatalf("side set %+v, want a window of the whole array (%d elements)", s, len(x))
		}
		ranges := g.ranges
		g.PopFootprints(f)
		// What is pending is checked as runs of elements.
		if r := g.ranges - ranges; r == 0 || r > uint64(len(x)/4) {
			t.Errorf("pop checked %d ranges for %d elements", r, len(x))
		}
	})
}

// Calls that gather from the same array in one span check each element
// once: a later call's accesses are all repeats. A synchronization ends
// the span: the next call checks again.
func TestSideSetChecksOncePerSpan(t *testing.T) {
	x := make([]int64, 4*chunkBits)
	idx := gatherIndices(2*len(x), len(x))
	expect(t, false, func(g *G) {
		pending := func() int {
			f := g.Footprint(0, false)
			for _, k := range idx {
				_ = *F(f, &x[k], 0)
			}
			n := 0
			if f.side != nil {
				n = f.side.count
			}
			g.PopFootprints(f)
			return n
		}
		if n := pending(); n == 0 {
			t.Fatal("the first call left nothing in the side set")
		}
		if n := pending(); n != 0 {
			t.Errorf("the second call in the same span has %d elements pending, want 0", n)
		}
		mu := new(sync.Mutex)
		Lock(g, mu)
		Unlock(g, mu)
		if n := pending(); n == 0 {
			t.Error("after a synchronization, the elements are not checked again")
		}
	})
}

// An element gathered and checked in one span and gathered again after a
// synchronization is checked again: a write ordered after the first read
// but not before the second races with the second.
func TestSideSetForgetsAtSync(t *testing.T) {
	x := make([]int64, 2*chunkBits)
	idx := gatherIndices(len(x), len(x))
	idx[len(idx)/2] = 5
	mu := new(sync.Mutex)
	expect(t, true, func(g *G) {
		ready, wrote := make(chan struct{}), make(chan struct{})
		done := spawn(g, func(g *G) {
			gather(g, x, idx)
			Lock(g, mu)
			Unlock(g, mu)
			close(ready)
			<-wrote // not a synchronization the detector sees
			gather(g, x, idx)
		})
		<-spawn(g, func(g *G) {
			<-ready
			Lock(g, mu)
			*W(g, &x[5], 0) = 1 // after the first gather, before the second
			Unlock(g, mu)
			close(wrote)
		})
		<-done
	})
}

// What a read footprint's side set has seen does not cover writes: a
// write footprint that reuses the slot checks its elements.
func TestSideSetKindNotShared(t *testing.T) {
	x := make([]int64, chunkBits)
	idx := gatherIndices(len(x), len(x))
	idx[len(idx)/2] = 5
	expect(t, true, func(g *G) {
		<-spawn(g, func(g *G) { _ = *R(g, &x[5], 0) })
		<-spawn(g, func(g *G) {
			gather(g, x, idx) // reads x[5]: no race with the other read
			f := g.Footprint(0, true)
			for _, k := range idx {
				*F(f, &x[k], 0) = 1 // writes x[5]: races with the read
			}
			g.PopFootprints(f)
		})
	})
}

// A gather that never synchronizes nor returns still commits its side set
// periodically, so its accesses are published.
func TestSideSetPeriodicCommit(t *testing.T) {
	x := make([]int64, chunkBits)
	idx := gatherIndices(len(x), len(x))
	expect(t, false, func(g *G) {
		f := g.Footprint(0, false)
		before := g.fpCommits
		for range 4 * fpMaxReps / len(idx) * 8 {
			for _, k := range idx {
				_ = *F(f, &x[k], 0)
			}
		}
		if f.side == nil || f.side.count != 0 || g.fpCommits == before {
			t.Errorf("no commit of the side set in %d repeats", 4*fpMaxReps*8)
		}
		g.PopFootprints(f)
	})
}
