// Copyright 2026 The bigfoot Authors. All rights reserved.

package detector

import (
	"fmt"
	"math/rand"
	"runtime"
	"runtime/debug"
	"slices"
	"sync"
	"testing"

	"github.com/bigfoot-go/bigfoot/shadow"
)

// gatherIndices returns n pseudo-random indices below m, with no stride.
func gatherIndices(n, m int) []int {
	idx := make([]int, n)
	seed := uint64(3)
	for i := range idx {
		seed = seed*6364136223846793005 + 1442695040888963407
		idx[i] = int(seed>>33) % m
	}
	return idx
}

// gather reads x[idx[k]] for every k through one footprint, as emitted
// code does for s += v[k] * x[col[k]], and pops it.
func gather(g *G, x []int64, idx []int) (sum int64) {
	f := g.Footprint(0, false)
	for _, k := range idx {
		sum += *F(f, &x[k], 0)
	}
	g.PopFootprints(f)
	return sum
}

// A gather over an array much larger than a chunk goes to one side set
// covering the whole array: it commits about once per as many repeats as
// it holds elements (so that a loop that never ends publishes its
// accesses), and the pop checks the set as runs.
func TestSideSetCoversObject(t *testing.T) {
	x := make([]int64, 10*chunkBits)
	idx := gatherIndices(3*len(x), len(x))
	expect(t, false, func(g *G) {
		f := g.Footprint(0, false)
		before := g.fpCommits
		for _, k := range idx {
			_ = *F(f, &x[k], 0)
		}
		if c := g.fpCommits - before; c > 4 {
			t.Errorf("%d commits before the pop, want at most 4 (%d accesses of %d elements)", c, len(idx), len(x))
		}
		if s := f.side; s == nil || s.nbits != len(x) {
			t.Fatalf("side set %+v, want a window of the whole array (%d elements)", s, len(x))
		}
		ranges := g.ranges
		g.PopFootprints(f)
		// What is pending is checked as runs of elements.
		if r := g.ranges - ranges; r == 0 || r > uint64(len(x)/4) {
			t.Errorf("pop checked %d ranges for %d elements", r, len(x))
		}
	})
}

// Calls that gather from the same array in one span check each element
// once: a later call's accesses are all repeats. A synchronization ends
// the span: the next call checks again.
func TestSideSetChecksOncePerSpan(t *testing.T) {
	x := make([]int64, 4*chunkBits)
	idx := gatherIndices(2*len(x), len(x))
	expect(t, false, func(g *G) {
		pending := func() int {
			f := g.Footprint(0, false)
			for _, k := range idx {
				_ = *F(f, &x[k], 0)
			}
			n := 0
			if f.side != nil {
				n = f.side.count
			}
			g.PopFootprints(f)
			return n
		}
		if n := pending(); n == 0 {
			t.Fatal("the first call left nothing in the side set")
		}
		if n := pending(); n != 0 {
			t.Errorf("the second call in the same span has %d elements pending, want 0", n)
		}
		mu := new(sync.Mutex)
		Lock(g, mu)
		Unlock(g, mu)
		if n := pending(); n == 0 {
			t.Error("after a synchronization, the elements are not checked again")
		}
	})
}

// An element gathered and checked in one span and gathered again after a
// synchronization is checked again: a write ordered after the first read
// but not before the second races with the second.
func TestSideSetForgetsAtSync(t *testing.T) {
	x := make([]int64, 2*chunkBits)
	idx := gatherIndices(len(x), len(x))
	idx[len(idx)/2] = 5
	mu := new(sync.Mutex)
	expect(t, true, func(g *G) {
		ready, wrote := make(chan struct{}), make(chan struct{})
		done := spawn(g, func(g *G) {
			gather(g, x, idx)
			Lock(g, mu)
			Unlock(g, mu)
			close(ready)
			<-wrote // not a synchronization the detector sees
			gather(g, x, idx)
		})
		<-spawn(g, func(g *G) {
			<-ready
			Lock(g, mu)
			*W(g, &x[5], 0) = 1 // after the first gather, before the second
			Unlock(g, mu)
			close(wrote)
		})
		<-done
	})
}

// What a read footprint's side set has seen does not cover writes: a
// write footprint that reuses the slot checks its elements.
func TestSideSetKindNotShared(t *testing.T) {
	x := make([]int64, chunkBits)
	idx := gatherIndices(len(x), len(x))
	idx[len(idx)/2] = 5
	expect(t, true, func(g *G) {
		<-spawn(g, func(g *G) { _ = *R(g, &x[5], 0) })
		<-spawn(g, func(g *G) {
			gather(g, x, idx) // reads x[5]: no race with the other read
			f := g.Footprint(0, true)
			for _, k := range idx {
				*F(f, &x[k], 0) = 1 // writes x[5]: races with the read
			}
			g.PopFootprints(f)
		})
	})
}

// A gather that never synchronizes nor returns still commits its side set
// periodically, so its accesses are published.
func TestSideSetPeriodicCommit(t *testing.T) {
	x := make([]int64, chunkBits)
	idx := gatherIndices(len(x), len(x))
	expect(t, false, func(g *G) {
		f := g.Footprint(0, false)
		before := g.fpCommits
		for range 4 * fpMaxReps / len(idx) * 8 {
			for _, k := range idx {
				_ = *F(f, &x[k], 0)
			}
		}
		if f.side == nil || f.side.count != 0 || g.fpCommits == before {
			t.Errorf("no commit of the side set in %d repeats", 4*fpMaxReps*8)
		}
		g.PopFootprints(f)
	})
}

// index finds the element of any size, a power of two or not, at every
// offset of a window of up to 4 GB, and no element off their starts.
func TestSideSetIndex(t *testing.T) {
	seed := uint64(9)
	for _, size := range []uintptr{1, 2, 3, 5, 6, 7, 8, 12, 24, 40, 72, 100, 4096, 4097, 1<<20 + 3} {
		s := &sideSet{size: size, origin: 1 << 40, nbits: int((1<<32 - 1) / size)}
		s.span = uintptr(s.nbits) * size
		if size&(size-1) == 0 {
			for ; 1<<s.shift < size; s.shift++ {
			}
		} else {
			s.magic = ^uint64(0)/uint64(size) + 1
		}
		for i := 0; i < 20000; i++ {
			seed = seed*6364136223846793005 + 1442695040888963407
			d := uintptr(seed>>32) % s.span
			if i < 3 {
				d = []uintptr{0, s.span - size, s.span - 1}[i]
			}
			k, ok := s.index(s.origin+d, size)
			if want := d%size == 0; ok != want || ok && k != d/size {
				t.Fatalf("size %d, offset %d: index %d, %v; want %d, %v", size, d, k, ok, d/size, want)
			}
		}
		if _, ok := s.index(s.origin+s.span, size); ok {
			t.Errorf("size %d: an element past the window", size)
		}
		if _, ok := s.index(s.origin-size, size); ok {
			t.Errorf("size %d: an element before the window", size)
		}
	}
}

// A gather of 24-byte elements (not a power of two) takes the inline path
// too: its elements are checked once per span, and a race on one of them
// is found.
func TestSideSetOddSize(t *testing.T) {
	type force struct{ _, y, z float64 }
	f := make([]force, 3*chunkBits)
	idx := gatherIndices(len(f), len(f))
	idx[len(idx)/2] = 7
	expect(t, false, func(g *G) {
		fp := g.Footprint(0, true)
		for _, k := range idx {
			*FG(fp, &f[k].z, 16, 0, 24, 0) = 1
		}
		if s := fp.side; s == nil || s.magic == 0 || s.span == 0 {
			t.Fatalf("side set %+v: want the inline path for 24-byte elements", s)
		}
		g.PopFootprints(fp)
	})
	both(t, func(g *G, synced bool) {
		// Fresh elements: the goroutines of other runs are not ordered
		// before these.
		f := make([]force, 3*chunkBits)
		mu := new(sync.Mutex)
		<-spawn(g, func(g *G) {
			Lock(g, mu)
			_ = *R(g, &f[7].y, 0)
			Unlock(g, mu)
		})
		<-spawn(g, func(g *G) {
			if synced {
				Lock(g, mu)
				defer Unlock(g, mu)
			}
			fp := g.Footprint(0, true)
			for range 3 {
				for _, k := range idx {
					*FG(fp, &f[k].z, 16, 0, 24, 0) += 1
				}
			}
			g.PopFootprints(fp)
		})
	})
}

// The shadow drops state recorded before a GC cycle when another
// goroutine touches it, so an element a side set checked before a cycle
// is checked again at the next commit: a write after the cycle races with
// a later repeat of the read, which the set had seen.
func TestSideSetRechecksAfterGC(t *testing.T) {
	x := make([]int64, 2*chunkBits)
	idx := gatherIndices(len(x), len(x))
	idx[len(idx)/2] = 5
	expect(t, true, func(g *G) {
		ready, wrote := make(chan struct{}), make(chan struct{})
		done := spawn(g, func(g *G) {
			gather(g, x, idx) // x[5] checked
			close(ready)
			<-wrote
			gather(g, x, idx) // x[5] again, in the same span: seen
		})
		<-spawn(g, func(g *G) {
			<-ready
			runtime.GC()
			shadow.RefreshGen()
			*W(g, &x[5], 0) = 1 // drops the state of the read before the cycle
			close(wrote)
		})
		<-done
	})
}

// Likewise for a range kept checked by a periodic commit.
func TestFootprintRechecksDoneAfterGC(t *testing.T) {
	a := make([]int64, 512)
	expect(t, true, func(g *G) {
		ready, wrote := make(chan struct{}), make(chan struct{})
		done := spawn(g, func(g *G) {
			f := g.Footprint(0, false)
			rescan := func() {
				for i := range a {
					for j := i; j < len(a); j++ {
						_ = *F(f, &a[j], 0)
					}
				}
			}
			rescan() // a periodic commit checks a[0..512)
			close(ready)
			<-wrote
			rescan() // repeats of checked elements
			g.PopFootprints(f)
		})
		<-spawn(g, func(g *G) {
			<-ready
			runtime.GC()
			shadow.RefreshGen()
			*W(g, &a[300], 0) = 1
			close(wrote)
		})
		<-done
	})
}

func TestSortIndices(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	for _, n := range []int{0, 1, 2, 9, 100, 3000} {
		s := make([]int32, n)
		for i := range s {
			s[i] = int32(r.Intn(5000))
		}
		want := slices.Clone(s)
		slices.Sort(want)
		sortIndices(s)
		if !slices.Equal(s, want) {
			t.Fatalf("n=%d: sortIndices gave %v, want %v", n, s, want)
		}
	}
}

// TestSideSetChunksOutliveGoroutine runs two goroutines in turn, each
// gathering over the same large array through a side set of many chunks:
// the first one's chunks, cleared, go to the shared pool when it ends,
// and the second takes them from there instead of allocating new ones.
func TestSideSetChunksOutliveGoroutine(t *testing.T) {
	x := make([]int64, 4*sideSpare*chunkBits)
	var idx []int // one element of each chunk, off any stride
	for c := 0; c < len(x)/chunkBits; c++ {
		idx = append(idx, c*chunkBits+c*c%chunkBits)
	}
	// No cycle, so no trim, while the test counts the pool.
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	chunks.mu.Lock()
	chunks.free, chunks.low = nil, 0
	chunks.mu.Unlock()
	pooled := func() int {
		chunks.mu.Lock()
		defer chunks.mu.Unlock()
		return len(chunks.free)
	}
	expect(t, false, func(g *G) {
		<-spawn(g, func(g *G) { gather(g, x, idx) })
		n := pooled()
		if want := len(x) / chunkBits; n != want {
			t.Fatalf("after the first goroutine, the pool holds %d chunks, want %d", n, want)
		}
		<-spawn(g, func(g *G) {
			gather(g, x, idx)
			if m := pooled(); m != 0 {
				t.Errorf("the second goroutine left %d of the pooled chunks unused", m)
			}
		})
		if m := pooled(); m != n {
			t.Errorf("after the second goroutine, the pool holds %d chunks, want %d", m, n)
		}
	})
}

// A commit checks the elements recorded since the last one, which it
// finds through their chunks' dirty words, at the edges of a word and of
// a chunk too, and no other element: a write to the element a second
// call adds to the set races with its read; a write to an element never
// read does not. After the commit nothing is pending.
func TestSideSetCommitsNewElements(t *testing.T) {
	first := []int{0, 62, 65, 3*64 + 5, chunkBits - 2, chunkBits + 1, 2*chunkBits + 99}
	for _, k := range []int{63, 64, 127, chunkBits - 1, chunkBits, 2*chunkBits + 100} {
		for _, racy := range []bool{true, false} {
			t.Run(fmt.Sprintf("%d/race=%v", k, racy), func(t *testing.T) {
				x := make([]int64, 3*chunkBits)
				w := k
				if !racy {
					w = 200 // never read
				}
				expect(t, racy, func(g *G) {
					<-spawn(g, func(g *G) { *W(g, &x[w], 0) = 1 })
					<-spawn(g, func(g *G) {
						gather(g, x, first)
						f := g.Footprint(0, false)
						for _, i := range first {
							_ = *F(f, &x[i], 0) // seen: not pending
						}
						_ = *F(f, &x[k], 0)
						s := f.side
						if s == nil || s.count != 1 {
							t.Fatalf("side set %+v after a new element, want one pending", s)
						}
						g.PopFootprints(f)
						for _, i := range s.used {
							if c := s.dir[i]; c.dirty != 0 || c.pend != [chunkWords]uint64{} {
								t.Errorf("chunk %d: dirty %#x, pending bits left after the commit", i, c.dirty)
							}
						}
					})
				})
			})
		}
	}
}
