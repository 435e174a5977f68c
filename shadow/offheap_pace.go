// Copyright 2026 The bigfoot Authors. All rights reserved.

package shadow

// Pacing the collector for shadow on the heap, never for shadow off it.
//
// The program's collections are the runtime's: go -race keeps its shadow
// outside the heap and changes neither their number nor their timing, and
// neither may bigfoot (issue 30). Off-heap shadow (granules, slot arrays,
// fresh arrays) is therefore not counted at all. It used to be counted as
// heap, as when it lived there: the shadow started a cycle once the heap
// plus the granules reached GOGC percent more than the live heap plus the
// granules. Those were collections the plain program does not make: 19
// of sortrec's 20 at the quick size, 9 of pipeline's 14, 92 of 215 on a
// test suite's run, each followed by a sweep of every page.
//
// What bounds off-heap shadow instead is the runtime's own pacing: a
// granule is freed by the sweep after the cycle that finds its object
// dead, and the program allocates at most GOGC percent of its live heap
// between two cycles, so the granules of one cycle's garbage are at most
// a granule per 8 bytes of it (8 times), and fresh arrays a quarter of a
// byte per byte of heap (a 1 KiB array per 4 KiB page). That is Go's race
// runtime's bound too, whose shadow is a fixed multiple of the heap (and
// which frees none of it at a cycle). Peak RSS rises where a cycle's
// garbage had much shadow (sortrec at the quick size: 144 to 169 MB), and
// every cycle not started keeps state the next would have dropped (gc.go).
//
// The heap shadow is another matter: a heap granule (and its ident) stays
// reachable from its page until the sweep after the cycle that finds its
// object dead, so that cycle counts it as live, and Go's goal for the
// next cycle grows with it. When the heap shadow of one cycle's garbage is
// a fixed fraction f of what the program allocates (pipeline: a record of
// 32 bytes adopted by a second goroutine leaves two heap granules and an
// ident, about 0.4 of all the bytes allocated per item), each cycle's
// live heap is f times the bytes allocated since the last, and Go lets the
// next cycle allocate GOGC percent of that: for f*GOGC/100 >= 1 the heap
// grows without bound (pipeline with GOGC=400: 2, 5, 10, 19, 33, 57, 107,
// 230 MB live after its 8 cycles, 1 GB peak RSS). So the sweeps after a
// cycle count the heap shadow they drop that the cycle marked (deadHeap),
// and the shadow starts a cycle, from a goroutine of its own and one at a
// time, when the heap reaches the goal Go would have set without it: Go's
// goal less GOGC percent of that dead shadow (setShadowGoal). That is the
// cycle the plain program would have started (later, if anything: the runtime
// starts its own before the goal); with no dead heap shadow the goal is
// Go's own, which the runtime reaches first. The heap is read when a
// goroutine refills its cache of granules, paceEvery granules apart.

import (
	"runtime"
	"runtime/metrics"
	"sync/atomic"
	"unsafe"

	"github.com/bigfoot-go/bigfoot/internal/spin"
)

// paceEvery is how many granules apart paceGranules reads the heap size.
const paceEvery = 1024

var (
	// paceGoal is the bytes of heap objects that start a cycle; 0
	// before the first sweep.
	paceGoal atomic.Int64
	// paceNext is the granule count at which paceGranules next reads
	// the heap size.
	paceNext atomic.Int64
	// gcKicked is set while a cycle started by the shadow is running.
	gcKicked atomic.Bool
)

// paceGranules is called when the granules in use reach n, when a
// goroutine refills its cache: it starts a cycle if the heap is past the
// goal. The granules themselves do not count.
func paceGranules(n int64) {
	goal := paceGoal.Load()
	if goal == 0 || n < paceNext.Load() || gcKicked.Load() {
		return
	}
	paceNext.Store(n + paceEvery)
	heap, gogc := readMetrics()
	if gogc < 0 || heap < goal {
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

// setShadowGoal sets the goal after a sweep: Go's goal less GOGC percent
// of the heap shadow of dead objects the sweeps dropped (deadHeap). Only
// that share: the dropped shadow is garbage the heap still holds until the
// next cycle frees it, so the heap the goal is compared with counts it as
// the live heap that set Go's goal did. (Less all of it and its share
// started a cycle as soon as a sweep had dropped a cycle's settled heap
// granules, 31 of sortrec's 33 cycles at the quick size.)
func setShadowGoal() {
	s := []metrics.Sample{
		{Name: "/gc/heap/goal:bytes"},
		{Name: "/gc/gogc:percent"},
		{Name: "/gc/cycles/total:gc-cycles"},
	}
	metrics.Read(s)
	goGoal, gogc := int64(value(s[0])), int64(value(s[1]))
	gen := uint32(value(s[2]))
	dead, counted := deadHeapOf(gen)
	if gogc < 0 {
		gogc = 100 // pacing is off (paceGranules); the goal is only kept sensible
	}
	goal := max(goGoal-dead*gogc/100, 1)
	goalMu.Lock()
	if goalSet && (goalGen == gen || !counted) {
		// A sweep between cycles (settle.go): what it dropped lowers
		// the goal, and nothing raises it until the next cycle, as
		// Go's goal does not change between cycles. Or a sweep that
		// began before the last cycle completed: that cycle's goal
		// includes dead shadow no sweep of its generation has counted
		// yet (pipeline with GOGC=400: goals of 73 MB to 0.9 GB after
		// such sweeps, where the others set 10); the sweep that
		// follows that cycle sets its goal.
		goal = min(goal, paceGoal.Load())
	}
	if counted {
		// Only a sweep that counted gen's dead shadow makes the next
		// ones sweeps between cycles: an uncounted one that took gen
		// left the goal of an earlier cycle in place for good, and
		// the shadow started a cycle every paceEvery granules
		// (gzipsha: 40 collections, the plain program's 2).
		goalGen = gen
	}
	goalSet = true
	paceGoal.Store(goal)
	paceNext.Store(0)
	goalMu.Unlock()
}

var (
	goalMu  spin.Mutex
	goalGen uint32 // the GC cycle count whose sweep last set the goal
	// goalSet says a goal was set: from then on a sweep between cycles
	// may only lower its generation's goal, the first generation's (no
	// cycle yet) included.
	goalSet bool
)

// readMetrics returns the bytes of heap objects (live or not yet freed)
// and the GOGC setting (negative: collection is off).
func readMetrics() (heap, gogc int64) {
	paceSamples.mu.Lock()
	defer paceSamples.mu.Unlock()
	s := paceSamples.s[:]
	metrics.Read(s)
	return int64(value(s[0])), int64(value(s[1]))
}

// paceSamples are readMetrics' samples, kept rather than made for each
// read: the pacer reads when a block pool grows, which may be in a call
// whose allocations a test counts (docs/runtime.md, "Objects made
// ahead").
var paceSamples = struct {
	mu spin.Mutex
	s  [2]metrics.Sample
}{s: [2]metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}, {Name: "/gc/gogc:percent"}}}

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
