// Copyright 2026 The bigfoot Authors. All rights reserved.

package detector

import (
	"runtime"
	"slices"
	"sync"
	"testing"
	"unsafe"

	"github.com/bigfoot-go/bigfoot/shadow"
)

// below reports whether a is entrywise at most clock b, whose entries
// count as at least the floor's (missing ones too: shadow.HB).
func below(a, b []uint64) bool {
	for i, x := range a {
		if x > 0 && !shadow.HB(shadow.MakeEpoch(uint32(i), x), b) {
			return false
		}
	}
	return true
}

// noRequest takes and releases mu twice and returns g's snapshot, which
// the second pair must not replace: no request came in between.
func noRequest(t *testing.T, g *G, mu *sync.Mutex) *[]uint64 {
	t.Helper()
	Lock(g, mu)
	Unlock(g, mu)
	old := g.snap.Load()
	Lock(g, mu) // no request since: nothing published
	Unlock(g, mu)
	if g.snap.Load() != old {
		t.Fatal("published a snapshot without a request")
	}
	return old
}

// publishedAt takes and releases mu after a request and checks that g
// published a snapshot in place of old there: a lower bound of its clock
// whose own entry is below its current epoch.
func publishedAt(t *testing.T, g *G, mu *sync.Mutex, old *[]uint64) {
	t.Helper()
	vc := append([]uint64(nil), g.t.VC...)
	Lock(g, mu)
	defer Unlock(g, mu)
	if g.snap.Load() == old {
		t.Fatal("no snapshot published at the synchronization operation after a request")
	}
	if s := *g.snap.Load(); !below(s, vc) || s[g.tid] != vc[g.tid]-1 {
		t.Errorf("snapshot %v of clock %v (tid %d): not a lower bound below the current epoch", s, vc, g.tid)
	}
}

// TestSnapshotPublish checks that a goroutine publishes a snapshot at its
// next synchronization operation after a request, and only then: a lower
// bound of its clock whose own entry is below its current epoch.
func TestSnapshotPublish(t *testing.T) {
	expect(t, false, func(g *G) {
		mu := new(sync.Mutex)
		old := noRequest(t, g, mu)
		frontier()
		if g.snap.Load() != old {
			t.Error("published a snapshot before a synchronization operation")
		}
		publishedAt(t, g, mu, old)
	})
}

// TestForkSnapshot checks that a forked child is live from the go
// statement on, with its parent's snapshot, a lower bound of its clock.
func TestForkSnapshot(t *testing.T) {
	expect(t, false, func(g *G) {
		c := g.Fork(0)
		if c.g.snap.Load() != g.snap.Load() {
			t.Error("the child does not start with its parent's snapshot")
		}
		if !below(*c.g.snap.Load(), c.g.t.VC) {
			t.Errorf("child snapshot %v above its clock %v", *c.g.snap.Load(), c.g.t.VC)
		}
		frontiers.mu.Lock()
		live := c.g.liveIdx < len(frontiers.gs) && frontiers.gs[c.g.liveIdx] == c.g
		frontiers.mu.Unlock()
		if !live {
			t.Error("a forked child that has not started yet is not live")
		}
		done := make(chan struct{})
		go func() {
			defer close(done)
			Start(c).Exit()
		}()
		<-done
		frontiers.mu.Lock()
		for _, o := range frontiers.gs {
			if o == c.g {
				t.Error("an exited goroutine is still live")
			}
		}
		frontiers.mu.Unlock()
	})
}

// TestParentlessJoinsFrontier checks that a goroutine started by
// uninstrumented code (no creation edge) starts above every frontier a
// sweep used: state the sweep dropped cannot hide a race from it.
func TestParentlessJoinsFrontier(t *testing.T) {
	expect(t, false, func(g *G) {
		mu := new(sync.Mutex)
		frontier()
		Lock(g, mu) // publish
		Unlock(g, mu)
		f := frontier()
		var vc []uint64
		var tid uint32
		done := make(chan struct{})
		go func() { // uninstrumented: curSlow
			defer close(done)
			p := Cur()
			vc, tid = append([]uint64(nil), p.t.VC...), p.tid
			p.Exit()
		}()
		<-done
		for i, x := range f {
			if uint32(i) != tid && (i >= len(vc) || vc[i] < x) {
				t.Fatalf("parentless clock %v is not above the frontier %v", vc, f)
			}
		}
	})
}

// frontierOf is the frontier of the live goroutines among gs: the sweep's
// computation restricted to one test's goroutines. The process has other
// live goroutines (the test runner's), which never synchronize with the
// test's and would keep the frontier at 0, testing nothing.
func frontierOf(gs ...*G) []uint64 {
	snapReq.Add(1)
	fs := &frontiers
	fs.mu.Lock()
	defer fs.mu.Unlock()
	var live []*G
	for _, o := range fs.gs {
		for _, g := range gs {
			if o == g {
				live = append(live, o)
			}
		}
	}
	return minSnapshots(live, nil)
}

// TestFrontierBlockedGoroutine is the race a frontier computed too high
// would hide. a writes x and the test goroutine synchronizes with a; c,
// forked before the write, is blocked meanwhile (on a channel the
// detector does not see), so its snapshot is old and must pin the
// frontier's entry of a below the write. After two sweeps (one asks for
// snapshots, the next uses them) c reads x: a race unless c synchronized.
// Without c (were it not live while blocked) the frontier would cover
// the write and the sweep drop it.
func TestFrontierBlockedGoroutine(t *testing.T) {
	both(t, func(g *G, synced bool) {
		x := new(int64)
		mu := new(sync.Mutex)
		wake := make(chan struct{})
		var c *G
		ready := make(chan struct{})
		doneC := spawn(g, func(cg *G) {
			c = cg
			close(ready)
			<-wake
			if synced {
				Lock(cg, mu)
				Unlock(cg, mu)
			}
			_ = *R(cg, x, 0)
		})
		<-ready
		w, tid := writeUnderLock(g, mu, x)
		space.SetFrontier(func() []uint64 { return frontierOf(g, c) })
		defer space.SetFrontier(frontier)
		Lock(g, mu)
		Unlock(g, mu)
		space.Sweep() // asks for snapshots
		Lock(g, mu)
		Unlock(g, mu)
		if f := frontierOf(g); int(tid) >= len(f) || f[tid] < w {
			t.Errorf("without c, the frontier %v would not cover the write %d@%d: the test tests nothing", f, tid, w)
		}
		space.Sweep() // drops what g and c are past
		close(wake)
		<-doneC
	})
}

// TestFrontierDrops checks that the frontier advances past a write once
// every live goroutine synchronized with the writer, and that the state it
// then drops hides nothing: a later access by a goroutine past the write
// reports no race.
func TestFrontierDrops(t *testing.T) {
	expect(t, false, func(g *G) {
		x := new(int64)
		mu := new(sync.Mutex)
		w, tid := writeUnderLock(g, mu, x)
		Lock(g, mu)
		Unlock(g, mu)
		frontier()
		Lock(g, mu) // publish, past the write
		Unlock(g, mu)
		space.SetFrontier(func() []uint64 { return frontierOf(g) })
		defer space.SetFrontier(frontier)
		if f := frontierOf(g); int(tid) >= len(f) || f[tid] < w {
			t.Errorf("frontier %v of the only live goroutine does not cover the write %d@%d", f, tid, w)
		}
		space.Sweep()
		<-spawn(g, func(b *G) { *W(b, x, 0) = 2 })
	})
}

// writeUnderLock writes *x in a goroutine g starts and waits for, holding
// mu, and returns the write's clock and thread id.
func writeUnderLock(g *G, mu *sync.Mutex, x *int64) (w uint64, tid uint32) {
	<-spawn(g, func(a *G) {
		Lock(a, mu)
		*W(a, x, 0) = 1
		w, tid = a.t.VC[a.tid], a.tid
		Unlock(a, mu)
	})
	return w, tid
}

// TestSnapshotRequest checks the shadow's request ahead of a sweep between
// GC cycles: a goroutine publishes at its next synchronization operation
// after requestSnapshots, so the next frontier covers what it did before
// that operation, without waiting for another sweep's request.
func TestSnapshotRequest(t *testing.T) {
	expect(t, false, func(g *G) {
		mu := new(sync.Mutex)
		frontier() // a sweep: a request, and cheapAsk for this program
		old := noRequest(t, g, mu)
		requestSnapshots()
		publishedAt(t, g, mu, old)
	})
}

// TestWaitingSnapshot checks minSnapshots with a goroutine blocked in a
// WaitGroup's Wait: its snapshot counts joined with the WaitGroup's
// clock, and only while it is blocked.
func TestWaitingSnapshot(t *testing.T) {
	a, b := &G{tid: 1}, &G{tid: 2}
	a.snap.Store(&[]uint64{0, 4, 2, 1})
	b.snap.Store(&[]uint64{0, 3, 7, 6})
	v := &syncVar{vc: []uint64{0, 2, 5, 6}}
	a.waitOn.Store(v)
	if f, want := minSnapshots([]*G{a, b}, nil), []uint64{0, 3, 5, 6}; !slices.Equal(f, want) {
		t.Errorf("frontier with a blocked in Wait: %v, want %v", f, want)
	}
	if s := *a.snap.Load(); !slices.Equal(s, []uint64{0, 4, 2, 1}) {
		t.Errorf("the frontier changed a's snapshot: %v", s)
	}
	a.waitOn.Store(nil)
	if f, want := minSnapshots([]*G{a, b}, nil), []uint64{0, 3, 2, 1}; !slices.Equal(f, want) {
		t.Errorf("frontier with a awake: %v, want %v", f, want)
	}
}

// TestFrontierPastWaiter runs the shape of a pipeline's main goroutine:
// it waits in wg.Wait while a worker writes, calls Done and starts a
// second worker. The waiter's snapshot is older than the worker's write,
// but the frontier the second worker computes covers the write: the
// waiter will join the WaitGroup's clock, which holds it, before its
// next access.
func TestFrontierPastWaiter(t *testing.T) {
	expect(t, false, func(g *G) {
		x := new(int64)
		wg := new(sync.WaitGroup)
		WaitGroupAdd(g, wg, 2)
		var w1tid uint32
		var wclock uint64
		var f []uint64
		var waiting bool
		spawn(g, func(w1 *G) {
			*W(w1, x, 0) = 1
			w1tid, wclock = w1.tid, w1.t.VC[w1.tid]
			WaitGroupDone(w1, wg)
			spawn(w1, func(w2 *G) {
				for i := 0; i < 1<<20 && g.waitOn.Load() == nil; i++ {
					runtime.Gosched()
				}
				if waiting = g.waitOn.Load() != nil; waiting {
					w2.publish(snapReq.Load())
					f = frontierOf(g, w2) // the harness's goroutine waits uninstrumented
				}
				WaitGroupDone(w2, wg)
			})
		})
		WaitGroupWait(g, wg)
		if !waiting {
			t.Fatal("the second worker did not see g waiting (waitOn)")
		}
		if g.waitOn.Load() != nil {
			t.Error("waitOn still set after Wait returned")
		}
		if int(w1tid) >= len(f) || f[w1tid] < wclock {
			t.Errorf("frontier %v does not cover the write %d@%d of the worker the waiter will join", f, w1tid, wclock)
		}
		_ = *R(g, x, 0) // ordered by the WaitGroup
	})
}

// TestFrontierFloor checks that minSnapshots counts an entry missing from
// a snapshot (a trimmed clock's) or below the floor as the floor's.
func TestFrontierFloor(t *testing.T) {
	a, b := &G{tid: 1}, &G{tid: 2}
	a.snap.Store(&[]uint64{0, 4})
	b.snap.Store(&[]uint64{0, 3, 7, 6})
	if f, want := minSnapshots([]*G{a, b}, []uint64{0, 2, 5, 5}), []uint64{0, 3, 5, 5}; !slices.Equal(f, want) {
		t.Errorf("frontier over the floor: %v, want %v", f, want)
	}
	if f, want := minSnapshots([]*G{a, b}, nil), []uint64{0, 3}; !slices.Equal(f, want) {
		t.Errorf("frontier without a floor: %v, want %v", f, want)
	}
}

// widen makes g's clock wider than its snapshot: g waits for 100
// goroutines through a mutex they each release.
func widen(g *G) {
	mu := new(sync.Mutex)
	gate := make(chan struct{})
	var ws []<-chan struct{}
	for range 100 {
		ws = append(ws, spawn(g, func(g *G) {
			<-gate
			Lock(g, mu)
			Unlock(g, mu)
		}))
	}
	close(gate)
	for _, w := range ws {
		<-w
	}
	Lock(g, mu) // g's clock now holds the 100 goroutines' entries
	Unlock(g, mu)
}

// TestForkPublishesWiderClock checks that a goroutine whose clock grew
// wider than its snapshot (it waited for a peak of goroutines) publishes
// a snapshot when it forks, and when package testing starts a test,
// without a request: a test's goroutine that then blocks in t.Run for the
// whole of the next test would otherwise hold the frontier, and the
// floor, below the peak.
func TestForkPublishesWiderClock(t *testing.T) {
	expect(t, false, func(g *G) {
		widen(g)
		width := len(g.t.VC)
		<-spawn(g, func(*G) {})
		if s := *g.snap.Load(); len(s) < width {
			t.Errorf("after the fork, g's snapshot has %d entries, its clock %d", len(s), width)
		}
	})
	expect(t, false, func(g *G) {
		widen(g)
		width := len(g.t.VC)
		testingRelease(new(int))
		if s := *g.snap.Load(); len(s) < width {
			t.Errorf("after testing's release, g's snapshot has %d entries, its clock %d", len(s), width)
		}
	})
}

// TestAcquireGlobalPublishes checks that a goroutine that acquires what
// every goroutine has done (the finalizer and cleanup goroutines at each
// batch, which make no other synchronization operation) publishes a
// snapshot of the clock it acquired: its older snapshot, below the final
// epochs of goroutines that exited since, would hold the frontier and the
// floor there, and no clock would be trimmed again.
func TestAcquireGlobalPublishes(t *testing.T) {
	expect(t, false, func(g *G) {
		mu := new(sync.Mutex)
		var ws []<-chan struct{}
		for range 100 {
			ws = append(ws, spawn(g, func(g *G) {
				Lock(g, mu)
				Unlock(g, mu)
			}))
		}
		for _, w := range ws {
			<-w
		}
		g.acquireGlobal()
		if s, want := *g.snap.Load(), *snapOf(g.t.VC, g.tid); !slices.Equal(s, want) {
			t.Errorf("after acquiring every goroutine's epoch, g's snapshot is %v, want %v (its clock's)", s, want)
		}
	})
}

// TestSnapHeaderWide: a snapshot wider than a carved clock gets a header
// of its own, not one of the reserve's, whose chunk would keep it alive
// as long as any other header of the chunk.
func TestSnapHeaderWide(t *testing.T) {
	c := snapHeaders.cur.Load()
	objs := c.objs
	in := func(h *[]uint64) bool {
		p := uintptr(unsafe.Pointer(h))
		return p >= uintptr(unsafe.Pointer(&objs[0])) && p < uintptr(unsafe.Pointer(&objs[0]))+uintptr(len(objs))*unsafe.Sizeof(objs[0])
	}
	if h := snapHeader(make([]uint64, maxCarved+1)); in(h) || len(*h) != maxCarved+1 {
		t.Errorf("wide snapshot: header in the reserve's chunk %v, length %d", in(h), len(*h))
	}
	if snapHeaders.cur.Load() == c {
		if h := snapHeader(make([]uint64, maxCarved)); !in(h) {
			t.Error("narrow snapshot's header is not the reserve's")
		}
	}
}
