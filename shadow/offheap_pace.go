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
// So the shadow counts itself as heap, as it did when it lived there:
// after a sweep, the goal is GOGC percent more than the live heap plus
// the granules in use; a cycle is started early, from a goroutine of its
// own and one at a time, once the heap plus the granules reach it.
// Fresh arrays (fresh.go) do not count. A page gets one at the first
// access of fresh memory on it, so they are bounded by the heap pages
// the program touched: at most a quarter of a byte per byte of heap (a
// 1 KiB array per 4 KiB page), a bound the heap's own pacer keeps, as Go's race runtime's
// shadow is a fixed multiple of the heap. Entries are stale after a
// cycle, and the sweep after the next returns the arrays to their pool,
// where the pages of the next cycle's fresh objects take them again.
// Counting them as the granules of their size (when they were 8 KiB
// for a page of 64 fresh 64-byte objects) made the pacer start about 60 of the 110
// cycles of BenchmarkFreshObject, each of which drops state (below),
// and did not lower the peak RSS of lufact, workerpool or pipeline.
//
// The heap the collector marks includes shadow of dead objects: a heap
// granule (and its ident) stays reachable from its page until the sweep
// after the cycle that finds its object dead, so that cycle counts it as
// live, and Go's goal for the next cycle grows with it. When the heap
// shadow of one cycle's garbage is a fixed fraction f of what the program
// allocates (pipeline: a record of 32 bytes adopted by a second goroutine
// leaves two heap granules and an ident, about 0.4 of all the bytes
// allocated per item, the detector's included), each cycle's live heap is
// f times the bytes allocated since the last, and Go lets the next cycle
// allocate GOGC percent of that: for f*GOGC/100 >= 1 the heap grows
// without bound (pipeline with GOGC=400: 2, 5, 10, 19, 33, 57, 107, 230 MB
// live after its 8 cycles, 1 GB peak RSS). So the sweeps after a cycle
// count the heap shadow they drop that the cycle marked (deadHeap), and
// the goal is set from the live heap without it: the goal the program's
// own live heap sets, as the pacer would have with no shadow of the dead.
//
// It must not start more cycles than that: every cycle drops the state
// that only one goroutine recorded before it (gc.go), so that a race
// whose two accesses straddle a cycle is missed. A more eager goal (the
// granules alone growing by GOGC percent) gave workerpool 19 MiB instead
// of 33, but started twice as many cycles on a copy of a 24 MB array
// in the race suite (TestRaceNestedArrayCopy), which then missed its race
// more often.

import (
	"runtime"
	"runtime/metrics"
	"sync/atomic"
	"unsafe"

	"github.com/bigfoot-go/bigfoot/internal/spin"
)

// minShadowGoal is the least growth, in bytes, that starts a cycle: Go's
// own minimum heap goal.
const minShadowGoal = 4 << 20

// paceEvery is how many granules apart paceGranules reads the heap size
// once the granules are past shadowGoal.
const paceEvery = 1024

var (
	// shadowGoal is the number of granules in use past which the heap
	// and the granules together may reach paceGoal (the heap cannot
	// grow past Go's own goal without a cycle); 0 before the first
	// sweep.
	shadowGoal atomic.Int64
	// paceGoal is the bytes of heap plus granules that start a cycle.
	paceGoal atomic.Int64
	// paceNext is the granule count at which paceGranules next reads
	// the heap size.
	paceNext atomic.Int64
	// gcKicked is set while a cycle started by the shadow is running.
	gcKicked atomic.Bool
)

// paceGranules is called when the granules in use reach n, when a
// goroutine refills its cache: it starts a cycle if the heap and the
// granules together are past the goal.
func paceGranules(n int64) {
	goal := shadowGoal.Load()
	if goal == 0 || n < goal || n < paceNext.Load() || gcKicked.Load() {
		return
	}
	paceNext.Store(n + paceEvery)
	heap, gogc := readMetrics()
	if gogc < 0 || heap+n*int64(granulePool.size) < paceGoal.Load() {
		return // collection is off, or there is room left
	}
	if !gcKicked.CompareAndSwap(false, true) {
		return
	}
	goBackground(func() {
		defer gcKicked.Store(false)
		runtime.GC()
		// runtime.GC returns once the collector has swept every span:
		// with allocation versions (version.go), the objects it freed
		// now show it, and a sweep of the shadow drops their state
		// before the next goal is set. (The sweep the cycle itself
		// starts may run before the collector's lazy sweep reached
		// them.)
		if runtimeVersionPage != nil {
			sweepAll()
		}
	})
}

// setShadowGoal sets the goal after a sweep, from the live heap without
// the heap shadow of dead objects the sweeps dropped (deadHeap), and the
// granules in use.
func setShadowGoal() {
	s := []metrics.Sample{
		{Name: "/gc/heap/live:bytes"},
		{Name: "/gc/heap/goal:bytes"},
		{Name: "/gc/gogc:percent"},
		{Name: "/gc/cycles/total:gc-cycles"},
	}
	metrics.Read(s)
	live, goGoal, gogc := int64(value(s[0])), int64(value(s[1])), int64(value(s[2]))
	gen := uint32(value(s[3]))
	dead, counted := deadHeapOf(gen)
	live = max(live-dead, 0)
	if gogc < 0 {
		gogc = 100 // pacing is off (paceGranules); the goal is only kept sensible
	}
	shadow := granulePool.inUse.Load() * int64(granulePool.size)
	total := live + shadow
	goal := total + max(total*gogc/100, minShadowGoal)
	// Below goal-goGoal bytes of granules, the heap cannot make up the
	// rest without reaching Go's own goal, which starts a cycle anyway.
	granules := max(goal-goGoal, shadow, 1) / int64(granulePool.size)
	goalMu.Lock()
	if goalSet && (goalGen == gen || !counted) {
		// A sweep between cycles (settle.go): the granules made since
		// the cycle are not live heap the goal may grow by, as Go's
		// goal does not grow between cycles; what it dropped lowers
		// the goal. Or a sweep that began before the last cycle
		// completed: that cycle's live heap includes dead shadow no
		// sweep of its generation has counted yet, which would make
		// the goal grow by GOGC percent of it (pipeline with GOGC=400:
		// goals of 73 MB to 0.9 GB after such sweeps, where the others
		// set 10); the sweep that follows that cycle sets its goal.
		goal, granules = min(goal, paceGoal.Load()), min(granules, shadowGoal.Load())
	}
	goalGen, goalSet = gen, true
	paceGoal.Store(goal)
	shadowGoal.Store(granules)
	paceNext.Store(0)
	goalMu.Unlock()
}

var (
	goalMu  spin.Mutex
	goalGen uint32 // the GC cycle count when the goal was last set
	// goalSet says a goal was set: from then on a sweep between cycles
	// may only lower its generation's goal, the first generation's (no
	// cycle yet) included, where granules off the heap would otherwise
	// raise the goal at every sweep until something else started a
	// cycle (pipeline with GOGC=400: 10 MB to 460 MB before the first).
	goalSet bool
)

// readMetrics returns the bytes of heap objects (live or not yet freed)
// and the GOGC setting (negative: collection is off).
func readMetrics() (heap, gogc int64) {
	s := []metrics.Sample{
		{Name: "/memory/classes/heap/objects:bytes"},
		{Name: "/gc/gogc:percent"},
	}
	metrics.Read(s)
	return int64(value(s[0])), int64(value(s[1]))
}

// value returns the uint64 value of a metric, or 0 if it has none.
func value(s metrics.Sample) uint64 {
	if s.Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return s.Value.Uint64() // GOGC=off reads as -1
}

// Heap bytes the sweep counts for a dropped heap granule and for the ident
// it referred to (an identEntry): their sizes, which are size classes.
const (
	heapGranuleBytes = int64(unsafe.Sizeof(granule{}))
	identBytes       = int64(unsafe.Sizeof(identEntry{}))
)

// deadHeap is the heap shadow that the sweeps since cycle gen completed
// dropped and that cycle marked live: heap granules stamped before the
// generation advanced to gen, and their idents.
var deadHeap struct {
	mu    spin.Mutex
	gen   uint32
	bytes int64
	total int64 // bytes noted in all generations
}

// noteDeadHeap adds n bytes dropped by a sweep in generation gen. A sweep
// of a newer generation starts the count again: the live heap of the cycle
// it follows no longer includes what earlier sweeps dropped.
func noteDeadHeap(gen uint32, n int64) {
	deadHeap.mu.Lock()
	if deadHeap.gen != gen {
		deadHeap.gen, deadHeap.bytes = gen, 0
	}
	deadHeap.bytes += n
	deadHeap.total += n
	deadHeap.mu.Unlock()
}

// deadHeapOf returns the bytes noted for generation gen, and whether a
// sweep of gen noted any; 0 and false if the count is of another
// generation (no sweep of gen has counted yet).
func deadHeapOf(gen uint32) (int64, bool) {
	deadHeap.mu.Lock()
	defer deadHeap.mu.Unlock()
	if deadHeap.gen != gen {
		return 0, false
	}
	return deadHeap.bytes, true
}
