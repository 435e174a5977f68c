// Copyright 2026 The bigfoot Authors. All rights reserved.

package shadow

import (
	"runtime/debug"
	"testing"
)

// waitKick waits for a cycle the shadow started to finish.
func waitKick() {
	for gcKicked.Load() {
		Quiesce()
	}
}

// Off-heap granules past the goal start a collection; below the goal, or
// with collection off, they do not.
func TestPaceGranules(t *testing.T) {
	waitKick()
	old := shadowGoal.Load()
	defer shadowGoal.Store(old)
	shadowGoal.Store(1000)

	paceGranules(999)
	if gcKicked.Load() {
		t.Fatal("a cycle started below the goal")
	}

	before := exactGen()
	paceGranules(1000)
	waitKick()
	if exactGen() == before {
		t.Fatal("no cycle started at the goal")
	}

	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	paceGranules(1 << 40)
	if gcKicked.Load() {
		t.Fatal("a cycle started with GOGC=off")
	}
}

// After a sweep, the goal is what is in use plus GOGC percent of it, and
// at least minShadowGoal bytes more.
func TestSetShadowGoal(t *testing.T) {
	waitKick()
	Quiesce()
	old := shadowGoal.Load()
	defer shadowGoal.Store(old)
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	live := granulePool.inUse.Load()
	setShadowGoal()
	want := live + max(live, minShadowGoal/int64(granulePool.size))
	if got := shadowGoal.Load(); got != want {
		t.Fatalf("goal with %d granules in use = %d, want %d", live, got, want)
	}
}
