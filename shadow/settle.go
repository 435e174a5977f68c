// Copyright 2026 The bigfoot Authors. All rights reserved.

package shadow

// Sweeps between GC cycles, for settled state on the heap.
//
// The sweep after each GC cycle drops settled state (frontier.go) as well
// as dead state. An off-heap granule it drops is recycled at once, but a
// heap granule (one with a weak pointer, a read vector clock or parts) is
// only garbage until the next cycle frees it, and the live heap the cycle
// marks, granules recorded since the last sweep included, sets the goal of
// the cycle after it. A program that records per-element state on a large
// array (a worker pool's results, the pivot column of an LU factorization:
// state tracked across cycles, so on the heap) therefore let its heap grow
// from cycle to cycle: each cycle marked about two cycles' worth of
// granules (those the last sweep could not drop yet and those recorded
// since), so the next goal, and the granules made until it, doubled, until
// most of the array's shadow was live (lufact 130 MiB, workerpool 42-48
// MiB at peak against go -race's 82 and 31).
//
// So the shadow also sweeps when it has made as many heap granules since
// the last sweep as that sweep kept (at least settleMin): the granules
// settled by then are dropped before the next cycle marks them. No GC
// cycle is started (each would advance the generation, see "No extra
// collection after a large sweep" in docs/runtime.md); a sweep outside a
// cycle drops only what the sweep after a cycle would (dead objects,
// state stale since an earlier cycle, settled state), and the cost of a
// sweep, a walk over the shadow's pages, is amortized over the granules
// made since the last one.

import "sync/atomic"

// settleMin is the fewest heap granules made between two sweeps that
// start a sweep outside a GC cycle: 1 MiB of 64-byte granules. (With
// 4 MiB, lufact peaked at 89-93 MiB and workerpool at 26-31; with 1 MiB, at
// 81-89 and 17-19, CPU time within noise.)
const settleMin = 16 << 10

var settle struct {
	// made is written for every heap granule made: padding keeps it off
	// the cache lines of other variables (it shared one with the
	// runtime's writeBarrier flag, which every pointer store reads; a
	// tenth of the reducing goroutine's samples on pipeline were this
	// add).
	_    [64]byte
	made atomic.Int64 // heap granules made so far
	ask  atomic.Int64 // made at which goroutines are asked for snapshots
	next atomic.Int64 // made at which the next sweep starts
	_    [64 - 24]byte
}

func init() { settleAfter(0, settleMin) }

// madeHeapGranule notes that the shadow made a heap granule, asks for
// snapshots halfway to the next sweep, and starts a sweep of every space
// if it made enough since the last one.
func madeHeapGranule() {
	n := settle.made.Add(1)
	if n == settle.ask.Load() {
		askAll()
	}
	if n == settle.next.Load() {
		settleAfter(n, settleMin) // until the sweep sets it
		sweepAll()
	}
}

// sweptHeapGranules sets when the next sweep outside a cycle starts, after
// a sweep that kept kept heap granules.
func sweptHeapGranules(kept int64) {
	settleAfter(settle.made.Load(), max(kept, settleMin))
}

// settleAfter schedules the next sweep outside a cycle d heap granules
// after made, and the request for snapshots halfway there.
//
// The request is what lets a sweep drop what was settled shortly before
// it. Goroutines answer a request at their next synchronization operation
// (detector/frontier.go); with only the request each sweep makes, a sweep
// computed its frontier from the snapshots that answered the previous
// sweep, so it kept everything recorded since then, about as many
// granules as the interval, and the next interval was as long again: the
// interval never shrank, and on lufact it grew from 16K to 100K granules
// (6 MiB of granules live at every cycle). Asked halfway, a sweep keeps
// about half an interval of state, and the interval falls back to
// settleMin.
func settleAfter(made, d int64) {
	settle.ask.Store(made + d/2)
	settle.next.Store(made + d)
}
