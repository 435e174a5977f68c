// Copyright 2026 The bigfoot Authors. All rights reserved.

package detector

import (
	"runtime"
	"sync"
	"testing"
	"time"
	"unsafe"
	"weak"
)

// Footprints, one rule at a time: what a footprint merges, when it
// commits, and that deferred checks find exactly the races in-place checks
// find.

// pending returns f's range as (start index, step in elements, n) relative
// to &a[0].
func pending(f *Footprint, a []int64) (start, step, n int) {
	if f.count() == 0 {
		return 0, 0, 0
	}
	return int(f.start-addr(&a[0])) / 8, int(f.step) / 8, f.count()
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

// An access of the range's object that does not extend the range goes to
// the side set: the range keeps growing and nothing is committed.
func TestFootprintSideSet(t *testing.T) {
	a := make([]int64, 100)
	expect(t, false, func(g *G) {
		f := g.Footprint(0, true)
		for i := 0; i < 10; i++ {
			*F(f, &a[i], 0) = 1
		}
		before := g.fpCommits
		*F(f, &a[50], 0) = 1 // not the next element: to the side set
		for i := 10; i < 20; i++ {
			*F(f, &a[i], 0) = 1
		}
		if g.fpCommits != before {
			t.Errorf("commits %d -> %d, want none", before, g.fpCommits)
		}
		if s, _, n := pending(f, a); s != 0 || n != 20 {
			t.Errorf("range: start %d n %d, want 0 20", s, n)
		}
		if f.side == nil || f.side.count != 1 {
			t.Fatalf("side set %+v, want a[50]", f.side)
		}
		// Repeats are covered and never grow the range; the set holds
		// each element once (a[5], in the window, may join it: the
		// commit merges the range into the set).
		for i := 0; i < 100; i++ {
			*F(f, &a[50], 0) = 2
			*F(f, &a[5], 0) = 2
		}
		if _, _, n := pending(f, a); n != 20 || f.side.count > 2 {
			t.Errorf("repeats grew the range to %d, the side set to %d", n, f.side.count)
		}
		ranges := g.ranges
		g.PopFootprints(f)
		if g.fpCommits != before+1 || g.ranges != ranges+1 {
			t.Errorf("pop: %d commits, %d ranges, want 1 commit (the range joins the side set) and 1 range (a[0..20); a[50] alone)",
				g.fpCommits-before, g.ranges-ranges)
		}
	})
}

// A loop mixing an affine access with a non-affine one into the same
// array (a histogram, a stencil's neighbours) commits O(1) times, and
// its side set is checked as maximal runs: a race on any element it
// holds is found.
func TestFootprintNonAffineCommitsOnce(t *testing.T) {
	keys := make([]int64, 4096)
	for i := range keys {
		keys[i] = int64(i) * 2654435761 & 255
	}
	h := make([]int64, 256+4096)
	expect(t, false, func(g *G) {
		f := g.Footprint(0, true)
		before := g.fpCommits
		for i := range keys {
			*F(f, &h[256+i], 0) = 1    // affine
			*F(f, &h[keys[i]], 0) += 1 // histogram bucket
		}
		g.PopFootprints(f)
		if c := g.fpCommits - before; c > 2 {
			t.Errorf("%d commits for one loop, want at most 2", c)
		}
	})
	row := make([]int64, 1024)
	expect(t, false, func(g *G) {
		f := g.Footprint(0, false)
		before := g.fpCommits
		for j := 1; j < len(row)-1; j++ {
			_ = *F(f, &row[j-1], 0) + *F(f, &row[j+1], 0)
		}
		ranges := g.ranges
		g.PopFootprints(f)
		if c, r := g.fpCommits-before, g.ranges-ranges; c != 1 || r != 1 {
			t.Errorf("stencil: %d commits, %d ranges for one loop, want 1: the even and odd neighbours form one range", c, r)
		}
	})
	// Another goroutine's write to a bucket the side set holds races.
	for _, bucket := range []int{0, 77, 255} {
		both(t, func(g *G, synced bool) {
			hist := make([]int64, 256)
			mu := new(sync.Mutex)
			<-spawn(g, func(g *G) {
				Lock(g, mu)
				*W(g, &hist[bucket], 0) = 1
				Unlock(g, mu)
			})
			<-spawn(g, func(g *G) {
				f := g.Footprint(0, true)
				if synced {
					Lock(g, mu)
					defer Unlock(g, mu)
				}
				for i := 0; i < 3*256; i++ {
					*F(f, &hist[(i*7)%256], 0) += 1
				}
				g.PopFootprints(f)
			})
		})
	}
}

// adjacent returns two objects of n int64s each that lie back to back in
// memory (one size class: the allocator places them in consecutive slots).
func adjacent(t *testing.T, n int) (a, b []int64) {
	objs := make([][]int64, 256)
	for i := range objs {
		objs[i] = make([]int64, n)
	}
	for i := 1; i < len(objs); i++ {
		if addr(&objs[i-1][0])+uintptr(n)*8 == addr(&objs[i][0]) {
			return objs[i-1], objs[i]
		}
		if addr(&objs[i][0])+uintptr(n)*8 == addr(&objs[i-1][0]) {
			return objs[i], objs[i-1]
		}
	}
	t.Fatal("no two adjacent objects")
	return nil, nil
}

// A range never extends across the end of its object: two objects of one
// size class lie back to back, and a loop over the first then the second
// through one footprint commits the first's range at its end.
func TestFootprintStopsAtObjectEnd(t *testing.T) {
	a, b := adjacent(t, 8)
	expect(t, false, func(g *G) {
		f := g.Footprint(0, true)
		for i := range a {
			*F(f, &a[i], 0) = 1
		}
		if f.next != f.end {
			t.Errorf("the range over a may extend to %#x, past its end", f.next)
		}
		if f.obj != unsafe.Pointer(&a[0]) {
			t.Errorf("the footprint holds %p, want a at %p", f.obj, &a[0])
		}
		before := g.fpCommits
		for i := range b {
			*F(f, &b[i], 0) = 1
		}
		if g.fpCommits != before+1 {
			t.Errorf("b's first element committed %d ranges, want 1 (a's)", g.fpCommits-before)
		}
		if f.obj != unsafe.Pointer(&b[0]) || f.count() != len(b) {
			t.Errorf("the range after the boundary: object %p n %d, want b at %p, %d", f.obj, f.count(), &b[0], len(b))
		}
		// Descending from b into a: the same.
		g.PopFootprints(f)
		f = g.Footprint(0, true)
		for i := len(b) - 1; i >= 0; i-- {
			*F(f, &b[i], 0) = 1
		}
		if f.next != f.end {
			t.Errorf("the descending range over b may extend to %#x, past its start", f.next)
		}
		*F(f, &a[len(a)-1], 0) = 1
		if f.obj != unsafe.Pointer(&a[0]) || f.count() != 1 {
			t.Errorf("a's last element did not start a new range")
		}
		g.PopFootprints(f)
	})
}

var globalInts [64]int64

// A footprint over a global array that then sees a heap object's element
// starts a new range there, bounded by and keeping alive the heap object.
func TestFootprintGlobalThenHeap(t *testing.T) {
	h := make([]int64, 64)
	expect(t, false, func(g *G) {
		f := g.Footprint(0, true)
		*F(f, &globalInts[0], 0) = 1
		*F(f, &globalInts[1], 0) = 1
		*F(f, &h[5], 0) = 1
		if f.obj != unsafe.Pointer(&h[0]) || f.count() != 1 || f.side != nil && f.side.count != 0 {
			t.Errorf("a heap element after a global range: object %p, %d elements, side set %+v; want a new range in h at %p", f.obj, f.count(), f.side, &h[0])
		}
		g.PopFootprints(f)
	})
}

// A pending footprint keeps its object alive: the garbage collector cannot
// free and reuse memory whose check is pending.
func TestFootprintKeepsObjectAlive(t *testing.T) {
	expect(t, false, func(g *G) {
		f := g.Footprint(0, true)
		s := make([]int64, 64)
		wp := weak.Make(&s[0])
		for i := range s {
			*F(f, &s[i], 0) = 1
		}
		side := make([]int64, 64)
		wside := weak.Make(&side[0])
		other := g.Footprint(0, true)
		*F(other, &side[0], 0) = 1
		*F(other, &side[0], 0) = 1
		*F(other, &side[9], 0) = 1 // the second: a step
		*F(other, &side[3], 0) = 1 // to the side set
		*F(other, &s[3], 0) = 1    // another object: commits side's range, not its side set
		s, side = nil, nil
		runtime.GC()
		runtime.GC()
		if wp.Value() == nil || wside.Value() == nil {
			t.Fatalf("an object with pending checks was collected (range: %v, side set: %v)", wp.Value() == nil, wside.Value() == nil)
		}
		g.PopFootprints(f)
		runtime.GC()
		runtime.GC()
		// The popped range moved to the goroutine's pending checks
		// (pending.go), which keep its object until the span ends; so
		// does the side set, which remembers the elements it has seen.
		if wp.Value() == nil {
			t.Errorf("an object was collected while its range's check is pending")
		}
		if wside.Value() == nil {
			t.Errorf("a side set's object was collected while the set remembers its elements")
		}
		mu := new(sync.Mutex)
		Lock(g, mu)
		Unlock(g, mu)
		// Nothing of the detector's keeps them now. The collector may
		// still find a stale copy in a goroutine that has not run since
		// (the shadow's sweeps and hooks run in goroutines of their
		// own, and under go test -race they were seen to keep one for a
		// cycle or two, longer on a loaded machine, where they may not
		// run at once): cycles, each after the others have had a chance
		// to run, until both are freed or a hundred have passed.
		for i := 0; i < 100 && (wp.Value() != nil || wside.Value() != nil); i++ {
			time.Sleep(time.Millisecond)
			runtime.GC()
		}
		if wp.Value() != nil {
			t.Errorf("a checked range still keeps its object alive")
		}
		if wside.Value() != nil {
			t.Errorf("a side set keeps its object alive after the span's end")
		}
	})
}

// The program's runtime.GC (GC) checks the calling goroutine's pending
// checks first, so they no longer keep the objects the program dropped:
// a decoder's result, whose ranges were pending when it returned, is
// collected by the program's next forced collection (goccy/go-json's
// TestDecodeKeepsNothingOfPreviousCall), with no synchronization between.
func TestGCChecksPendingFirst(t *testing.T) {
	expect(t, false, func(g *G) {
		f := g.Footprint(0, true)
		s := make([]int64, 64)
		wp := weak.Make(&s[0])
		for i := range s {
			*F(f, &s[i], 0) = 1
		}
		g.PopFootprints(f) // the range moves to the pending checks
		s = nil
		// As in TestFootprintKeepsObjectAlive, a stale copy elsewhere may
		// keep the object for a cycle or two on a loaded machine.
		for i := 0; i < 100 && wp.Value() != nil; i++ {
			GC()
			time.Sleep(time.Millisecond)
		}
		if wp.Value() != nil {
			t.Errorf("a pending check kept its object alive through the program's runtime.GC")
		}
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
		if g.fp.top != 1 || left.count() != 0 {
			t.Errorf("after popping inner: top %d, left pending %d", g.fp.top, left.count())
		}
		if outer.count() != 1 {
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

// FG records the whole field group of the object its anchor is in: a race
// on a field other than the anchor is found at the commit, and a loop over
// one object commits only at the pop.
func TestFootprintGroup(t *testing.T) {
	type vec struct{ x, _, z float64 }
	both(t, func(g *G, synced bool) {
		v := new(vec)
		mu := new(sync.Mutex)
		<-spawn(g, func(g *G) {
			Lock(g, mu)
			f := g.Footprint(0, true)
			before := g.t.Stats.Checks
			for i := 0; i < 10; i++ {
				*FG(f, &v.z, unsafe.Offsetof(v.z), unsafe.Offsetof(v.x), unsafe.Offsetof(v.z)+unsafe.Sizeof(v.z), 0) = float64(i)
			}
			if g.t.Stats.Checks != before {
				t.Error("a repeated group committed before the pop")
			}
			g.PopFootprints(f)
			if g.t.Stats.Checks == before {
				t.Error("the pop checked nothing")
			}
			Unlock(g, mu)
		})
		<-spawn(g, func(g *G) {
			if synced {
				Lock(g, mu)
				defer Unlock(g, mu)
			}
			_ = *R(g, &v.x, 0)
		})
	})
}

// TestFootprintStackFollows checks that a footprint on the goroutine's
// own stack follows its accesses after a jump (a column of a stack
// matrix after another), so that the next element takes record's fast
// path instead of recordSlow.
func TestFootprintStackFollows(t *testing.T) {
	g := Cur()
	var m [4][4]int64
	f := g.Footprint(0, false)
	for i := range 4 {
		for j := range 4 {
			_ = *F(f, &m[j][i], 0)
		}
	}
	if !f.stack {
		t.Skip("matrix not on the stack")
	}
	if want := uintptr(unsafe.Pointer(&m[3][3])) + unsafe.Sizeof(m[0]); f.next != want {
		t.Errorf("after the last column, next = %#x, want %#x (the element after the last access)", f.next, want)
	}
	g.PopFootprints(f)
}

// A loop that rescans the elements of its range (pairs j > i for each i)
// repeats them many times: the periodic commit checks them once, and the
// range stays, checked, so that later repeats cost no check until the
// span ends.
func TestFootprintRescanChecksOnce(t *testing.T) {
	a := make([]int64, 512)
	expect(t, false, func(g *G) {
		f := g.Footprint(0, false)
		ranges, commits := g.ranges, g.fpCommits
		for i := range a {
			for j := i; j < len(a); j++ {
				_ = *F(f, &a[j], 0)
			}
		}
		if r := g.ranges - ranges; r != 1 {
			t.Errorf("%d range checks while rescanning, want 1 (the periodic commit)", r)
		}
		if s, _, n := pending(f, a); s != 0 || n != len(a) || f.done != len(a) {
			t.Errorf("range start %d n %d done %d, want 0 %d %d", s, n, f.done, len(a), len(a))
		}
		g.PopFootprints(f)
		if c := g.fpCommits - commits; c != 1 {
			t.Errorf("%d commits, want 1: the pop has nothing left to check", c)
		}
	})
}

// TestRepeatedRangeKeepsRaces: a function that checks the same elements on
// every call (the same-epoch repeat checkStrided skips) still leaves the
// state that reports another goroutine's unordered write, and a read
// repeated after a write is still skipped only as a repeat of that write.
func TestRepeatedRangeKeepsRaces(t *testing.T) {
	both(t, func(g *G, synced bool) {
		a := make([]int64, 64)
		mu := new(sync.Mutex)
		read := func(g *G) {
			f := g.Footprint(0, false)
			for i := range a {
				_ = *F(f, &a[i], 0)
			}
			g.PopFootprints(f)
		}
		<-spawn(g, func(g *G) {
			if synced {
				Lock(g, mu)
				defer Unlock(g, mu)
			}
			for k := 0; k < 3; k++ {
				read(g) // the second and third commits are repeats
			}
		})
		<-spawn(g, func(g *G) {
			if synced {
				Lock(g, mu)
				defer Unlock(g, mu)
			}
			*W(g, &a[17], 0) = 1
		})
	})
}

// TestStridedCheckCovers: a repeat is the same elements in the same epoch
// and generation, by a check of the same kind or a write.
func TestStridedCheckCovers(t *testing.T) {
	base := stridedCheck{start: 0x1000, size: 8, step: 8, n: 64, write: true, epoch: 7, gen: 3}
	if !base.covers(base) {
		t.Error("a check does not cover itself")
	}
	read := base
	read.write = false
	if !base.covers(read) || read.covers(base) {
		t.Error("a write must cover a read of the same elements, not the reverse")
	}
	for name, c := range map[string]stridedCheck{
		"start": {start: 0x1008, size: 8, step: 8, n: 64, write: true, epoch: 7, gen: 3},
		"n":     {start: 0x1000, size: 8, step: 8, n: 65, write: true, epoch: 7, gen: 3},
		"step":  {start: 0x1000, size: 8, step: 16, n: 64, write: true, epoch: 7, gen: 3},
		"epoch": {start: 0x1000, size: 8, step: 8, n: 64, write: true, epoch: 8, gen: 3},
		"gen":   {start: 0x1000, size: 8, step: 8, n: 64, write: true, epoch: 7, gen: 4},
	} {
		if base.covers(c) {
			t.Errorf("a check covers one with another %s", name)
		}
	}
}
