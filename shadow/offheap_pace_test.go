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

// savePace restores the pacing state when t ends.
func savePace(t *testing.T) {
	waitKick()
	Quiesce()
	sg, pg := shadowGoal.Load(), paceGoal.Load()
	t.Cleanup(func() {
		waitKick()
		shadowGoal.Store(sg)
		paceGoal.Store(pg)
		paceNext.Store(0)
	})
}

// Granules past the goal start a collection when the heap and the
// granules together reach the bytes goal; not below either goal, nor with
// collection off.
func TestPaceGranules(t *testing.T) {
	savePace(t)
	shadowGoal.Store(1000)

	paceGoal.Store(1)
	paceNext.Store(0)
	paceGranules(999)
	if gcKicked.Load() {
		t.Fatal("a cycle started below the granule goal")
	}

	paceGoal.Store(1 << 60)
	paceNext.Store(0)
	paceGranules(2000)
	if gcKicked.Load() {
		t.Fatal("a cycle started below the bytes goal")
	}

	paceGoal.Store(1)
	paceNext.Store(0)
	before := exactGen()
	paceGranules(2000)
	waitKick()
	if exactGen() == before {
		t.Fatal("no cycle started past both goals")
	}

	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	paceNext.Store(0)
	paceGranules(1 << 40)
	if gcKicked.Load() {
		t.Fatal("a cycle started with GOGC=off")
	}
}

// After a sweep, the bytes goal leaves at least minShadowGoal bytes above
// the granules in use, and the granule goal is not below them.
func TestSetShadowGoal(t *testing.T) {
	savePace(t)
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	setShadowGoal()
	inUse := granulePool.inUse.Load()
	if g := paceGoal.Load(); g < inUse*int64(granulePool.size)+minShadowGoal {
		t.Fatalf("bytes goal %d with %d granules in use", g, inUse)
	}
	if g := shadowGoal.Load(); g < inUse || g*int64(granulePool.size) > paceGoal.Load() {
		t.Fatalf("granule goal %d with %d granules in use, bytes goal %d", g, inUse, paceGoal.Load())
	}
}
