// Copyright 2026 The bigfoot Authors. All rights reserved.

package detector

import (
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
)

// churn starts n goroutines the way instrumented code does (Fork, Start,
// Exit), at most batch at a time, each writing its own heap object, and
// reports the detector's thread-id high-water mark before and after.
func churn(g *G, n, batch int) {
	for i := 0; i < n; i += batch {
		var ws []<-chan struct{}
		for range min(batch, n-i) {
			ws = append(ws, spawn(g, func(g *G) {
				x := new(int64)
				*W(g, x, 0) = 1
				benchHeapSink.Store(x) // keep x on the heap
			}))
		}
		for _, w := range ws {
			<-w
		}
	}
}

var benchHeapSink atomic.Pointer[int64]

func tidHighWater() int {
	tids.mu.Lock()
	defer tids.mu.Unlock()
	return int(tids.next)
}

// TestGoroutineChurnBounded checks that thread ids, and with them vector
// clocks, stay bounded under goroutine churn without joins.
func TestGoroutineChurnBounded(t *testing.T) {
	n := 100_000
	if raceEnabled || testing.Short() {
		n = 10_000
	}
	g := Cur()
	before := tidHighWater()
	churn(g, n, 100)
	after := tidHighWater()
	if grown := after - before; grown > 100+quarantine+64 {
		t.Errorf("%d goroutines grew the thread ids by %d", n, grown)
	}
	if l := len(g.t.VC); l > after {
		t.Errorf("vector clock length %d > thread ids %d", l, after)
	}
	if r := registry.Len(); r > 1000 {
		t.Errorf("registry holds %d goroutines", r)
	}
}

// BenchmarkGoroutineChurn starts 1M goroutines (Fork, Start, Exit each,
// 1,000 at a time) per iteration and reports the heap in use and the
// thread-id high-water mark after the last one.
func BenchmarkGoroutineChurn(b *testing.B) {
	g := Cur()
	var ms runtime.MemStats
	for b.Loop() {
		churn(g, 1_000_000, 1000)
	}
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&ms)
	b.ReportMetric(float64(ms.HeapInuse)/(1<<20), "MiB-heap")
	b.ReportMetric(float64(tidHighWater()), "tids")
	b.ReportMetric(float64(registry.Len()), "registry")
	b.ReportMetric(float64(space.Len()), "shadow-pages")
}

// TestSpareTIDsLowestFirst checks that thread ids past the quarantine are
// reused lowest first: after a peak of live goroutines exits, the ids in
// use go back to the lowest ones, so that the peak's entries at the end of
// vector clocks stop changing and trim can drop them.
func TestSpareTIDsLowestFirst(t *testing.T) {
	// Ids far above those the other tests' goroutines took: HB reads the
	// detector's floor, which covers those ids once their goroutines
	// ended, and would then find the quarantined ids known to everyone.
	const first = 1 << 16
	var ts tidTable
	ts.next = first
	const peak = 4 * quarantine
	for range peak {
		ts.alloc(nil, 0, 0, 0)
	}
	// The peak exits, highest id first, each unknown to the parents below
	// (their clocks are empty): only the quarantine makes ids spare.
	for tid := uint32(first + peak - 1); tid >= first; tid-- {
		ts.free(tid, 7, 7)
	}
	var got []uint32
	for range peak - quarantine {
		tid, clock := ts.alloc(nil, 0, 0, 0)
		if clock != 8 {
			t.Fatalf("tid %d reused from clock %d, want 8 (its final clock + 1)", tid, clock)
		}
		got = append(got, tid)
	}
	// The lowest quarantine ids were freed last: they wait. The others
	// are spare and come back lowest first.
	for i, tid := range got {
		if want := uint32(first + quarantine + i); tid != want {
			t.Fatalf("reused ids %v, want %d..%d in order", got, first+quarantine, first+peak-1)
		}
	}
	if tid, _ := ts.alloc(nil, 0, 0, 0); tid != first+peak {
		t.Errorf("with only quarantined ids free, alloc gave %d, want the new id %d", tid, first+peak)
	}
}

// TestReusedTIDOwners checks that a thread id keeps its last maxOwners
// owners, which ownerOf tells apart by their first clock, and that a go
// statement reusing an id allocates nothing for them (the owners were a
// slice trimmed with a copy: two objects per fork).
func TestReusedTIDOwners(t *testing.T) {
	var ts tidTable
	ts.next = 1
	tid, clock := ts.alloc(nil, 1, 0, 0)
	starts := []uint64{clock}
	for site := uint32(2); site <= 6; site++ {
		ts.free(tid, clock+9, clock+9)
		// The parent knows the final epoch: the id comes back at once.
		vc := make([]uint64, tid+1)
		vc[tid] = clock + 9
		var got uint32
		got, clock = ts.alloc(vc, site, 0, 0)
		if got != tid || clock != starts[len(starts)-1]+10 {
			t.Fatalf("alloc = %d at %d, want id %d at %d", got, clock, tid, starts[len(starts)-1]+10)
		}
		starts = append(starts, clock)
	}
	os := ts.owners[tid].list()
	if len(os) != maxOwners {
		t.Fatalf("%d owners kept, want %d", len(os), maxOwners)
	}
	for i, o := range os {
		want := len(starts) - maxOwners + i
		if o.start != starts[want] || o.site != uint32(want+1) {
			t.Errorf("owner %d: start %d site %d, want %d and %d", i, o.start, o.site, starts[want], want+1)
		}
		if o.finished != (i < maxOwners-1) {
			t.Errorf("owner %d: finished %v", i, o.finished)
		}
	}
	allocs := testing.AllocsPerRun(100, func() {
		ts.free(tid, clock, clock)
		vc := [8]uint64{}
		vc[tid] = clock
		tid, clock = ts.alloc(vc[:tid+1], 7, 0, 0)
	})
	if allocs != 0 {
		t.Errorf("reusing a thread id: %v allocations, want 0", allocs)
	}
}

// TestTrimTo checks that trim drops the entries the floor covers from the
// end of a clock, and nothing the floor does not cover or the owner's
// entry (keep).
func TestTrimTo(t *testing.T) {
	f := []uint64{0, 5, 5, 5, 5}
	for _, tc := range []struct {
		vc   []uint64
		keep int
		want int
	}{
		{[]uint64{1, 2, 5, 4, 5}, 0, 1},    // all but entry 0 (1 > 0) covered
		{[]uint64{1, 2, 5, 4, 5}, 3, 3},    // the owner's entry 2 and below stay
		{[]uint64{1, 2, 6, 4, 5}, 0, 3},    // 6 > 5 stops the trim
		{[]uint64{1, 2, 5, 4, 5, 1}, 0, 6}, // entry 5 is beyond the floor
		{nil, 0, 0},
	} {
		if got := trimTo(tc.vc, tc.keep, f); len(got) != tc.want {
			t.Errorf("trimTo(%v, %d, %v) has %d entries, want %d", tc.vc, tc.keep, f, len(got), tc.want)
		}
	}
}

// TestTIDBackAfterLastRelease checks that the id of a goroutine that
// recorded nothing after its last release comes back at the next fork by
// a goroutine that acquired that release, from the clock after its final
// one, and that the id of one that recorded an access at its final clock
// does not.
func TestTIDBackAfterLastRelease(t *testing.T) {
	var ts tidTable
	// An id no goroutine of the process has had, which the floor (HB's
	// entries past a clock's end) does not cover.
	ts.next = uint32(tidHighWater())
	tid, clock := ts.alloc(nil, 0, 0, 0)
	vc := make([]uint64, tid+1)
	// Released at clock+4 (its wg.Done), ended at clock+5.
	ts.free(tid, clock+5, clock+4)
	vc[tid] = clock + 4
	got, c := ts.alloc(vc, 0, 0, 0)
	if got != tid || c != clock+6 {
		t.Fatalf("alloc = %d at %d, want id %d back at %d", got, c, tid, clock+6)
	}
	// Recorded an access at its final clock, which the parent does not
	// know: the id waits.
	ts.free(tid, c+5, c+5)
	vc[tid] = c + 4
	if got, _ := ts.alloc(vc, 0, 0, 0); got == tid {
		t.Fatalf("id %d reused, its owner's access at clock %d unknown to the parent", tid, c+5)
	}
}

// TestExitSeen checks the last visible clock Exit gives the thread-id
// table: the one before the final clock when the goroutine's last
// operation was a release (a worker's deferred wg.Done), the final one
// when it accessed memory after it.
func TestExitSeen(t *testing.T) {
	for _, after := range []bool{false, true} {
		var final, seen uint64
		expect(t, false, func(g *G) {
			wg := new(sync.WaitGroup)
			WaitGroupAdd(g, wg, 1)
			var tid uint32
			<-spawn(g, func(g *G) {
				tid = g.tid
				x := new(int64)
				benchHeapSink.Store(x)
				*W(g, x, 0) = 1
				WaitGroupDone(g, wg)
				if after {
					*W(g, x, 0) = 2
				}
			})
			WaitGroupWait(g, wg)
			tids.mu.Lock()
			for _, f := range tids.queue[tids.head:] {
				if f.tid == tid {
					final, seen = f.final, f.seen
				}
			}
			for _, f := range tids.spare {
				if f.tid == tid {
					final, seen = f.final, f.seen
				}
			}
			tids.mu.Unlock()
		})
		want := final - 1
		if after {
			want = final
		}
		if final == 0 || seen != want {
			t.Errorf("access after the release %v: final %d, seen %d, want seen %d", after, final, seen, want)
		}
	}
}

// TestRaceAfterLastRelease checks that an access after a goroutine's last
// release races with a goroutine forked after that release was acquired:
// the id of the first must not come back to the second as if the second
// were ordered after all of the first.
func TestRaceAfterLastRelease(t *testing.T) {
	both(t, func(g *G, synced bool) {
		x, wg := new(int64), new(sync.WaitGroup)
		WaitGroupAdd(g, wg, 1)
		done := spawn(g, func(g *G) {
			if synced {
				*W(g, x, 0) = 1
			}
			WaitGroupDone(g, wg)
			if !synced {
				*W(g, x, 0) = 1
			}
		})
		WaitGroupWait(g, wg)
		<-done // Exit has freed the id
		<-spawn(g, func(g *G) { *W(g, x, 0) = 2 })
	})
}
