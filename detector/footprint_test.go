// Copyright 2026 The bigfoot Authors. All rights reserved.

package detector

import (
	"sync"
	"testing"
)

// Footprints, one rule at a time: what a footprint merges, when it
// commits, and that deferred checks find exactly the races in-place checks
// find.

// pending returns f's range as (start index, step in elements, n) relative
// to &a[0].
func pending(f *Footprint, a []int64) (start, step, n int) {
	if f.n == 0 {
		return 0, 0, 0
	}
	return int(uintptr(f.start)-addr(&a[0])) / 8, int(f.step) / 8, f.n
}

func TestFootprintMergesAscending(t *testing.T) {
	a := make([]int64, 100)
	expect(t, false, func(g *G) {
		f := g.Footprint(0, true)
		for i := 10; i < 60; i++ {
			*F(f, &a[i], 0) = 1
		}
		if s, k, n := pending(f, a); s != 10 || k != 1 || n != 50 {
			t.Errorf("pending range = start %d step %d n %d, want 10 1 50", s, k, n)
		}
		g.PopFootprints(f)
	})
}

func TestFootprintMergesDescendingAndStrided(t *testing.T) {
	a := make([]int64, 100)
	expect(t, false, func(g *G) {
		down, odd := g.Footprint(0, true), g.Footprint(0, false)
		for i := 99; i >= 0; i-- {
			*F(down, &a[i], 0) = 1
		}
		if s, k, n := pending(down, a); s != 99 || k != -1 || n != 100 {
			t.Errorf("descending: start %d step %d n %d, want 99 -1 100", s, k, n)
		}
		for i := 1; i < 100; i += 2 {
			_ = *F(odd, &a[i], 0)
		}
		if s, k, n := pending(odd, a); s != 1 || k != 2 || n != 50 {
			t.Errorf("odd: start %d step %d n %d, want 1 2 50", s, k, n)
		}
		g.PopFootprints(down)
	})
}

func TestFootprintBreakCommits(t *testing.T) {
	a := make([]int64, 100)
	expect(t, false, func(g *G) {
		f := g.Footprint(0, true)
		for i := 0; i < 10; i++ {
			*F(f, &a[i], 0) = 1
		}
		before := g.ranges
		*F(f, &a[50], 0) = 1 // not the next element: commits a[0..10)
		if g.ranges != before+1 {
			t.Errorf("ranges %d -> %d, want one range committed", before, g.ranges)
		}
		if s, _, n := pending(f, a); s != 50 || n != 1 {
			t.Errorf("after the break: start %d n %d, want 50 1", s, n)
		}
		// Repeats are covered and never grow the range.
		for i := 0; i < 100; i++ {
			*F(f, &a[50], 0) = 2
		}
		if _, _, n := pending(f, a); n != 1 {
			t.Errorf("repeats grew the range to %d", n)
		}
		g.PopFootprints(f)
	})
}

// A deferred write is committed before the goroutine's next release, so a
// reader synchronized by it sees no race; without the synchronization the
// race is found.
func TestFootprintCommitsBeforeRelease(t *testing.T) {
	both(t, func(g *G, synced bool) {
		a := make([]int64, 64)
		mu := new(sync.Mutex)
		done := make(chan struct{})
		<-spawn(g, func(g *G) {
			f := g.Footprint(0, true)
			Lock(g, mu)
			for i := range a {
				*F(f, &a[i], 0) = int64(i)
			}
			Unlock(g, mu) // commits before releasing
			close(done)
			g.PopFootprints(f)
		})
		<-done
		<-spawn(g, func(g *G) {
			if synced {
				Lock(g, mu)
				defer Unlock(g, mu)
			}
			_ = *R(g, &a[17], 0)
		})
	})
}

// The reader comes first: the race is found when the writer's footprint
// commits, at its function's return.
func TestFootprintRaceFoundAtCommit(t *testing.T) {
	both(t, func(g *G, synced bool) {
		a := make([]int64, 64)
		mu := new(sync.Mutex)
		<-spawn(g, func(g *G) {
			Lock(g, mu)
			_ = *R(g, &a[40], 0)
			Unlock(g, mu)
		})
		<-spawn(g, func(g *G) {
			f := g.Footprint(0, true)
			if synced {
				Lock(g, mu)
				defer Unlock(g, mu)
			}
			for i := range a {
				*F(f, &a[i], 0) = 1
			}
			g.PopFootprints(f)
		})
	})
}

// A function that panics leaves its footprint pending; the recovered
// goroutine commits it at its next synchronization, before releasing.
func TestFootprintSurvivesPanic(t *testing.T) {
	both(t, func(g *G, synced bool) {
		a := make([]int64, 8)
		mu := new(sync.Mutex)
		writer := func(g *G) {
			f := g.Footprint(0, true)
			for i := 0; ; i++ {
				*F(f, &a[i], 0) = 1 // panics at i == len(a)
			}
		}
		<-spawn(g, func(g *G) {
			func() {
				defer func() { recover() }()
				writer(g)
			}()
			if g.fp.top != 1 || !g.fp.dirty {
				t.Errorf("footprint stack after the panic: top %d dirty %v", g.fp.top, g.fp.dirty)
			}
			Lock(g, mu)
			Unlock(g, mu) // commits the pending writes first
		})
		<-spawn(g, func(g *G) {
			if synced {
				Lock(g, mu)
				defer Unlock(g, mu)
			}
			_ = *R(g, &a[3], 0)
		})
	})
}

// A goroutine's pending footprints commit when it ends.
func TestFootprintCommitsAtExit(t *testing.T) {
	a := make([]int64, 8)
	expect(t, true, func(g *G) {
		<-spawn(g, func(g *G) {
			f := g.Footprint(0, true)
			for i := range a {
				*F(f, &a[i], 0) = 1
			}
			// no pop: Exit commits
			_ = f
		})
		other := spawn(g, func(g *G) { _ = *R(g, &a[5], 0) })
		<-other
	})
}

// A loop that repeats one address commits periodically, so a goroutine
// that never synchronizes still publishes its accesses.
func TestFootprintPeriodicCommit(t *testing.T) {
	x := make([]int64, 1)
	expect(t, false, func(g *G) {
		f := g.Footprint(0, true)
		before := g.t.Stats.Checks
		for i := 0; i < 3*fpMaxReps; i++ {
			*F(f, &x[0], 0) = int64(i)
		}
		if g.t.Stats.Checks == before {
			t.Error("no commit in 3*fpMaxReps repeats")
		}
		g.PopFootprints(f)
	})
}

// Popping a frame commits its footprints and those of frames pushed after
// it (left by a panic), and never those of its callers.
func TestPopFootprints(t *testing.T) {
	a := make([]int64, 8)
	expect(t, false, func(g *G) {
		outer := g.Footprint(0, false)
		_ = *F(outer, &a[0], 0)
		inner := g.Footprint(0, true)
		left := g.Footprint(0, true)
		*F(left, &a[1], 0) = 1
		g.PopFootprints(inner)
		if g.fp.top != 1 || left.n != 0 {
			t.Errorf("after popping inner: top %d, left pending %d", g.fp.top, left.n)
		}
		if outer.n != 1 {
			t.Errorf("outer's range was committed by an inner pop")
		}
		g.PopFootprints(inner) // already popped: no effect
		g.PopFootprints(outer)
		if g.fp.top != 0 {
			t.Errorf("top %d after popping everything", g.fp.top)
		}
	})
}

// When the stack is full, footprints check every access at once.
func TestFootprintOverflowChecksDirectly(t *testing.T) {
	a := make([]int64, 4)
	expect(t, false, func(g *G) {
		first := g.Footprint(0, true)
		for i := 1; i < fpChunk*fpMaxChunks; i++ {
			g.Footprint(0, true)
		}
		f := g.Footprint(0, true)
		if !f.direct {
			t.Fatal("footprint past the limit is not direct")
		}
		before := g.t.Stats.Checks
		*F(f, &a[2], 0) = 1
		if g.t.Stats.Checks == before {
			t.Error("a direct footprint did not check")
		}
		g.PopFootprints(f) // no effect
		g.PopFootprints(first)
		if g.fp.top != 0 {
			t.Errorf("top %d", g.fp.top)
		}
	})
}

// A race found when a footprint commits names the access's site first and
// says where the deferred check was made.
func TestFootprintReportNamesSite(t *testing.T) {
	a := make([]int64, 16)
	text := expect(t, true, func(g *G) {
		<-spawn(g, func(g *G) { _ = *R(g, &a[3], 0) })
		<-spawn(g, func(g *G) {
			f := g.Footprint(0, true)
			for i := range a {
				*F(f, &a[i], 0) = 1
			}
			g.PopFootprints(f)
		})
	})
	contains(t, text, "(deferred check, made at:)", "Write at")
}
