// Copyright 2026 The bigfoot Authors. All rights reserved.

package detector

import (
	"sync"
	"testing"
	"unsafe"
)

// Static loop ranges: the emitted loop stores Next after each access and
// the runtime checks the elements stored since the last commit.

// TestRangeExtent drives a range as an emitted loop does and checks the
// range each commit sees: exactly the elements stored since the last one.
func TestRangeExtent(t *testing.T) {
	a := make([]int64, 64)
	expect(t, false, func(g *G) {
		f := g.Footprint(0, true)
		lo := OpenRange(f, a, 4, 1, 0, 2, 0, 0)
		if lo != 4 {
			t.Fatalf("OpenRange returned %d, want 4", lo)
		}
		for i := lo; i < 20; i += 2 {
			a[i] = 1
			f.Next = i + 2
		}
		f.loadRange()
		if s, k, n := pending(f, a); s != 4 || k != 2 || n != 8 {
			t.Errorf("range = start %d step %d n %d, want 4 2 8", s, k, n)
		}
		f.commit()
		f.loadRange()
		if _, _, n := pending(f, a); n != 0 {
			t.Errorf("after a commit the range holds %d elements, want 0", n)
		}
		f.Next = 24 // two more iterations
		f.loadRange()
		if s, _, n := pending(f, a); s != 20 || n != 2 {
			t.Errorf("after Next=24: start %d n %d, want 20 2", s, n)
		}
		g.PopFootprints(f)
		if f.base != 0 {
			t.Error("a popped footprint keeps its range's array")
		}
	})
}

// TestRangeDescendingField checks a descending range of a field.
func TestRangeDescendingField(t *testing.T) {
	type pt struct{ _, y int32 }
	ps := make([]pt, 10)
	expect(t, false, func(g *G) {
		f := g.Footprint(0, false)
		OpenRange(f, ps, 9, 1, 0, -1, unsafe.Offsetof(ps[0].y), unsafe.Sizeof(ps[0].y))
		for i := 9; i >= 6; i-- {
			_ = ps[i].y
			f.Next = i - 1
		}
		f.loadRange() // loaded ascending: the same elements
		if f.count() != 4 || uintptr(f.start) != uintptr(unsafe.Pointer(&ps[6].y)) || int(f.step) != 8 || f.size != 4 {
			t.Errorf("range = start %#x n %d step %d size %d; want &ps[6].y, 4, 8, 4", f.start, f.count(), int(f.step), f.size)
		}
		g.PopFootprints(f)
	})
}

// TestRangeReopenDescending: an insertion sort's inner loop, reopened
// one element higher each time and running down a data-dependent
// distance, extends one pending range instead of committing each
// execution; an execution that starts two elements away, on another
// grid or accesses nothing leaves exactly the accessed elements pending.
func TestRangeReopenDescending(t *testing.T) {
	a := make([]int64, 64)
	expect(t, false, func(g *G) {
		f := g.Footprint(0, true)
		run := func(from, to int) { // accesses a[from], a[from-1], ..., a[to]
			for j := OpenRange(f, a, from, 1, 0, -1, 0, 0); j >= to; j-- {
				a[j] = 1
				f.Next = j - 1
			}
		}
		run(10, 8)  // 8..10
		run(11, 11) // 8..11
		run(12, 3)  // 3..12
		run(13, 14) // accesses nothing: still 3..12
		if lo, hi, ok := f.Range.pending(); !ok || lo != 3 || hi != 12 {
			t.Errorf("pending = [%d, %d] %v, want [3, 12] true", lo, hi, ok)
		}
		c := g.fpCommits
		run(15, 15) // not adjacent to 12: commits 3..12 first
		if g.fpCommits != c+1 {
			t.Errorf("a non-adjacent reopen made %d commits, want 1", g.fpCommits-c)
		}
		f.loadRange()
		if n := f.count(); n != 1 || f.start != uintptr(unsafe.Pointer(&a[15])) {
			t.Errorf("after a non-adjacent reopen: %d elements from %#x, want a[15] alone", n, f.start)
		}
		g.PopFootprints(f)
	})
}

// TestRangeReopenNotPastAccess: an empty execution next to the pending
// elements must not add its first element: another goroutine's
// unordered write to it is no race.
func TestRangeReopenNotPastAccess(t *testing.T) {
	a := make([]int64, 64)
	expect(t, false, func(g *G) {
		<-spawn(g, func(g *G) { *W(g, &a[21], 0) = 2 })
		<-spawn(g, func(g *G) {
			f := g.Footprint(0, true)
			for k := 0; k < 2; k++ {
				from := 20 + k // the second execution, from 21, runs no iteration
				for j := OpenRange(f, a, from, 1, 0, -1, 0, 0); j >= 10 && k == 0; j-- {
					a[j] = 1
					f.Next = j - 1
				}
			}
			g.PopFootprints(f)
		})
	})
}

// TestRangeRaceAtSync: a loop that synchronizes in its body checks the
// iterations before each synchronization in their own span. The other
// goroutine writes a[40] under the lock; the loop writes a[40] outside it
// (race) or inside it (none).
func TestRangeRaceAtSync(t *testing.T) {
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
			for i := OpenRange(f, a, 0, 1, 0, 1, 0, 0); i < len(a); i++ {
				if synced && i == 40 {
					Lock(g, mu) // commits a[0..40) first
				}
				a[i] = 1
				f.Next = i + 1
				if synced && i == 40 {
					Unlock(g, mu) // commits a[40]
				}
			}
			g.PopFootprints(f)
		})
	})
}

// TestRangeNotPastExit: elements the loop never reached are not checked.
// The loop leaves at 30 (a break); the other goroutine wrote a[40]
// unordered: no race.
func TestRangeNotPastExit(t *testing.T) {
	a := make([]int64, 64)
	expect(t, false, func(g *G) {
		<-spawn(g, func(g *G) { *W(g, &a[40], 0) = 2 })
		<-spawn(g, func(g *G) {
			f := g.Footprint(0, true)
			for i := OpenRange(f, a, 0, 1, 0, 1, 0, 0); i < len(a); i++ {
				if i == 30 {
					break
				}
				a[i] = 1
				f.Next = i + 1
			}
			g.PopFootprints(f)
		})
	})
}

// TestRangeLoads drives a range as an emitted loop whose reads store the
// extent themselves: Load stores it, LoadGrow only if it extends the
// range in its direction (sor's g[i-1], g[i], g[i+1], merged into one
// ascending range that overlaps from one iteration to the next).
func TestRangeLoads(t *testing.T) {
	a := make([]int64, 32)
	for i := range a {
		a[i] = int64(i)
	}
	expect(t, false, func(g *G) {
		f := g.Footprint(0, false)
		OpenRange(f, a, 1, 1, -1, 1, 0, 0) // first element a[0]
		for i := 1; i < 9; i++ {
			if v := LoadGrow(f, &a[i-1], i); v != int64(i-1) {
				t.Fatalf("LoadGrow read %d, want %d", v, i-1)
			}
			// The last iteration read up to a[i]: a[i-1] extends
			// nothing then (Load would shrink the extent to i).
			want := i + 1
			if i == 1 {
				want = 1
			}
			if f.Next != want {
				t.Fatalf("i=%d: extent %d after a[i-1], want %d", i, f.Next, want)
			}
			LoadGrow(f, &a[i], i+1)
			LoadGrow(f, &a[i+1], i+2)
			if f.Next != i+2 {
				t.Fatalf("i=%d: extent %d after a[i+1], want %d", i, f.Next, i+2)
			}
		}
		f.loadRange()
		if s, k, n := pending(f, a); s != 0 || k != 1 || n != 10 {
			t.Errorf("range = start %d step %d n %d, want 0 1 10", s, k, n)
		}
		g.PopFootprints(f)
	})
	expect(t, false, func(g *G) {
		f := g.Footprint(0, false)
		OpenRange(f, a, 0, 1, 0, 3, 0, 0)
		for i := 0; i < 12; i += 3 {
			if v := Load(f, &a[i], i+3); v != int64(i) || f.Next != i+3 {
				t.Fatalf("Load(a[%d]) read %d, extent %d", i, v, f.Next)
			}
		}
		f.loadRange()
		if s, k, n := pending(f, a); s != 0 || k != 3 || n != 4 {
			t.Errorf("range = start %d step %d n %d, want 0 3 4", s, k, n)
		}
		g.PopFootprints(f)
	})
}
