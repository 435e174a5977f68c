// Copyright 2026 The bigfoot Authors. All rights reserved.

package shadow

import (
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"testing"
)

// waitKick waits for a cycle the shadow started to finish.
func waitKick() {
	for gcKicked.Load() {
		Quiesce()
	}
}

// savePace restores the pacing state when t ends.
func savePace(t *testing.T) {
	waitKick()
	Quiesce()
	pg := paceGoal.Load()
	goalMu.Lock()
	gg, gs := goalGen, goalSet
	goalMu.Unlock()
	t.Cleanup(func() {
		waitKick()
		paceGoal.Store(pg)
		paceNext.Store(0)
		goalMu.Lock()
		goalGen, goalSet = gg, gs
		goalMu.Unlock()
	})
}

// A heap past the goal starts a collection, however many granules are in
// use: off-heap shadow is not heap (issue 30: the collections are the
// plain program's). Not below the goal, nor with collection off.
func TestPaceGranules(t *testing.T) {
	savePace(t)
	paceGoal.Store(1 << 60)
	paceNext.Store(0)
	paceGranules(1 << 40)
	if gcKicked.Load() {
		t.Fatal("a cycle started below the heap goal, for granules alone")
	}

	paceGoal.Store(1)
	paceNext.Store(0)
	before := exactGen()
	paceGranules(1)
	waitKick()
	if exactGen() == before {
		t.Fatal("no cycle started past the heap goal")
	}

	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	paceNext.Store(0)
	paceGranules(1 << 40)
	if gcKicked.Load() {
		t.Fatal("a cycle started with GOGC=off")
	}
}

// The first sweep of a generation with no dead heap shadow sets the goal
// to Go's own, whatever the granules in use: the runtime, not the shadow,
// starts the program's cycles.
func TestSetShadowGoal(t *testing.T) {
	savePace(t)
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	saveDeadHeap(t)
	var goGoal int64
	stableGoal(func(gen uint32) {
		noteDeadHeap(gen, 0) // the first sweep of gen
		setShadowGoalAfter(gen - 1)
		goGoal = heapGoal()
	})
	if g := paceGoal.Load(); g != goGoal {
		t.Fatalf("goal %d with no dead heap shadow, want Go's %d", g, goGoal)
	}
}

// heapGoal returns Go's heap goal.
func heapGoal() int64 {
	s := []metrics.Sample{{Name: "/gc/heap/goal:bytes"}}
	metrics.Read(s)
	return int64(value(s[0]))
}

// saveDeadHeap restores the count of dead heap shadow when t ends.
func saveDeadHeap(t *testing.T) {
	deadHeap.mu.Lock()
	gen, n := deadHeap.gen, deadHeap.bytes
	deadHeap.mu.Unlock()
	t.Cleanup(func() {
		deadHeap.mu.Lock()
		deadHeap.gen, deadHeap.bytes = gen, n
		deadHeap.mu.Unlock()
	})
}

// The sweeps of one generation add up the dead heap shadow they drop; a
// sweep of a newer generation starts the count again, and the count is
// no other generation's.
func TestDeadHeapCount(t *testing.T) {
	saveDeadHeap(t)
	noteDeadHeap(7, 100)
	noteDeadHeap(7, 50)
	if got, ok := deadHeapOf(7); got != 150 || !ok {
		t.Errorf("two sweeps of generation 7: %d bytes, %v; want 150, true", got, ok)
	}
	if got, ok := deadHeapOf(8); got != 0 || ok {
		t.Errorf("generation 8 before its sweep: %d bytes, %v; want 0, false", got, ok)
	}
	noteDeadHeap(8, 10)
	got, ok := deadHeapOf(8)
	old, oldOK := deadHeapOf(7)
	if got != 10 || !ok || old != 0 || oldOK {
		t.Errorf("after a sweep of generation 8: %d bytes, %v (want 10, true); generation 7 %d, %v (want 0, false)", got, ok, old, oldOK)
	}
}

// stableGoal runs f with the GC cycle count it returns unchanged, and
// returns that count: f sets a goal from metrics of one cycle.
func stableGoal(f func(gen uint32)) uint32 {
	for {
		Quiesce()
		gen := uint32(exactGen())
		f(gen)
		if uint32(exactGen()) == gen {
			return gen
		}
	}
}

// setShadowGoalAfter runs setShadowGoal as the sweep after one that set
// both goals to 1 in generation last.
func setShadowGoalAfter(last uint32) {
	goalMu.Lock()
	goalGen, goalSet = last, true
	goalMu.Unlock()
	paceGoal.Store(1)
	setShadowGoal()
}

// The goal after a sweep leaves out GOGC percent of the heap shadow of
// dead objects that the sweeps of the cycle dropped: the heap still holds
// that shadow until the next cycle, and the program's own live heap sets
// the growth it may have.
func TestShadowGoalWithoutDeadHeap(t *testing.T) {
	savePace(t)
	saveDeadHeap(t)
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	const dead = 1 << 20
	var goGoal int64
	stableGoal(func(gen uint32) {
		noteDeadHeap(gen, dead)
		setShadowGoalAfter(gen - 1) // the first sweep of gen
		goGoal = heapGoal()
	})
	if got, want := paceGoal.Load(), max(goGoal-dead, 1); got != want {
		t.Errorf("goal %d with %d bytes of dead heap shadow, want %d (Go's %d)", got, dead, want, goGoal)
	}
}

// A sweep between cycles (a second sweep of one generation) may lower the
// goal, never raise it: the granules made since the cycle are not live
// heap the goal grows by. The first sweep of a generation sets it anew.
func TestShadowGoalBetweenCycles(t *testing.T) {
	savePace(t)
	saveDeadHeap(t)
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	stableGoal(func(gen uint32) { setShadowGoalAfter(gen) })
	if g := paceGoal.Load(); g != 1 {
		t.Errorf("a second sweep of the generation raised the goal from 1 to %d", g)
	}
	stableGoal(func(gen uint32) {
		noteDeadHeap(gen, 0)
		setShadowGoalAfter(gen - 1)
	})
	if g := paceGoal.Load(); g == 1 {
		t.Errorf("the first sweep of a generation left the goal at %d", g)
	}
}

// A sweep that began before the last cycle completed (no sweep of that
// cycle's generation has counted its dead heap shadow) may lower the
// goal, never raise it: that cycle's live heap still includes the dead
// shadow. The counted sweep of the generation that follows sets the goal
// anew: the uncounted sweep must not make it a second sweep of the
// generation, which may only lower it (bench/workloads/gzipsha: the goal
// of its second cycle stayed for the whole run, and the shadow started a
// cycle every 1,024 granules, 25 to 37 against the plain build's 2).
func TestShadowGoalUncountedGeneration(t *testing.T) {
	for exactGen() < 2 {
		runtime.GC() // a generation before the first cycle: gen-1 wraps
	}
	savePace(t)
	saveDeadHeap(t)
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	stableGoal(func(gen uint32) {
		noteDeadHeap(gen-1, 1<<20) // the sweep counted for the cycle before
		setShadowGoalAfter(gen - 1)
	})
	if g := paceGoal.Load(); g != 1 {
		t.Errorf("a sweep of an uncounted generation raised the goal from 1 to %d", g)
	}
	stableGoal(func(gen uint32) {
		noteDeadHeap(gen-1, 1<<20)
		setShadowGoalAfter(gen - 1) // uncounted: the goal stays 1
		noteDeadHeap(gen, 0)
		setShadowGoal() // the sweep of gen
	})
	if g := paceGoal.Load(); g == 1 {
		t.Errorf("the counted sweep of a generation after an uncounted one left the goal at %d", g)
	}
}
