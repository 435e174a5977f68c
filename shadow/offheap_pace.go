// Copyright 2026 The bigfoot Authors. All rights reserved.

package shadow

// Pacing the collector for shadow memory outside the heap.
//
// The garbage collector's pacer does not see off-heap shadow, so it starts
// a cycle when the program's own heap has grown by GOGC percent, however
// much shadow the program's short-lived objects made meanwhile: a granule
// is 64 bytes per 8 bytes touched, so on bench/workloads/workerpool (jobs
// that fill fresh 1 KiB matrices) the off-heap granules of one cycle's
// garbage reached several times the heap, and peak RSS rose above that of
// the shadow on the heap, which the pacer did count. And only a cycle
// frees them (the sweep after it).
//
// So the shadow paces itself the way the collector paces the heap: after
// a sweep, the granules in use are the live shadow; once they have grown
// by GOGC percent of that (at least minShadowGoal bytes), a cycle is
// started early, from a goroutine of its own, at most one at a time.

import (
	"runtime"
	"runtime/metrics"
	"sync/atomic"
)

// minShadowGoal is the least growth, in bytes of off-heap granules, that
// starts a cycle: Go's own minimum heap goal.
const minShadowGoal = 4 << 20

var (
	// shadowGoal is the number of granules in use at which the next
	// cycle starts early; 0 before the first sweep (minShadowGoal).
	shadowGoal atomic.Int64
	// gcKicked is set while a cycle started by the shadow is running.
	gcKicked atomic.Bool
)

// paceGranules is called when the granules in use reach n, when a
// goroutine refills its cache: it starts a cycle if n is past the goal.
func paceGranules(n int64) {
	goal := shadowGoal.Load()
	if goal == 0 {
		goal = minShadowGoal / int64(granulePool.size)
	}
	if n < goal || !gcKicked.CompareAndSwap(false, true) {
		return
	}
	gogc := gcPercent()
	if gogc < 0 {
		gcKicked.Store(false) // collection is off: so is pacing
		return
	}
	go func() {
		defer gcKicked.Store(false)
		runtime.GC()
	}()
}

// setShadowGoal sets the goal after a sweep, from the granules in use.
func setShadowGoal() {
	live := granulePool.inUse.Load()
	gogc := gcPercent()
	if gogc < 0 {
		gogc = 100 // pacing is off; the goal is only kept sensible
	}
	grow := max(live*gogc/100, minShadowGoal/int64(granulePool.size))
	shadowGoal.Store(live + grow)
}

// gcPercent returns the GOGC setting (negative: collection is off).
func gcPercent() int64 {
	s := []metrics.Sample{{Name: "/gc/gogc:percent"}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 100
	}
	return int64(s[0].Value.Uint64()) // GOGC=off reads as -1
}
