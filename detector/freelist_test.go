// Copyright 2026 The bigfoot Authors. All rights reserved.

package detector

import (
	"runtime/debug"
	"testing"
)

// TestFreeList checks a free list's rules: get returns the last object
// put, or a new one; the list holds at most max; a trim frees the objects
// no get needed since the trim before.
func TestFreeList(t *testing.T) {
	l := &freeList[sideChunk]{max: 8}
	a, b, c := new(sideChunk), new(sideChunk), new(sideChunk)
	l.put(a)
	l.put(b)
	l.put(c)
	l.trim() // a cycle in which none was needed yet: low is 0
	if len(l.free) != 3 {
		t.Fatalf("first trim left %d objects, want 3", len(l.free))
	}
	if got := l.get(); got != c {
		t.Fatalf("get returned %p, want the last object put (%p)", got, c)
	}
	l.trim() // two were never needed since the last trim
	if len(l.free) != 0 {
		t.Fatalf("trim left %d unneeded objects", len(l.free))
	}
	l.put(c)
	if got := l.get(); got != c {
		t.Fatal("get after a trim did not reuse the object put")
	}
	if got := l.get(); got == nil || got == a || got == b || got == c {
		t.Fatal("get from an empty list did not allocate a new object")
	}
	for i := 0; i < l.max+5; i++ {
		l.put(new(sideChunk))
	}
	if len(l.free) != l.max {
		t.Fatalf("list holds %d objects, want at most %d", len(l.free), l.max)
	}
}

// TestFootprintChunksOutliveGoroutine checks that the chunks of a
// goroutine's footprint stack go to the free list, cleared, when it ends,
// and that the next goroutine's footprints take them from there.
func TestFootprintChunksOutliveGoroutine(t *testing.T) {
	// No cycle, so no trim, while the test counts the list.
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	fpChunks.mu.Lock()
	fpChunks.free, fpChunks.low = nil, 0
	fpChunks.mu.Unlock()
	x := make([]int64, 64)
	var first, second *[fpChunk]Footprint
	expect(t, false, func(g *G) {
		<-spawn(g, func(g *G) {
			var fs []*Footprint
			for i := 0; i < fpChunk+1; i++ { // two chunks
				f := g.Footprint(uint32(i+1), true)
				*F(f, &x[i%len(x)], uint32(i+1)) = 1
				fs = append(fs, f)
			}
			first, second = g.fp.chunks[0], g.fp.chunks[1]
			g.PopFootprints(fs[0])
		})
		fpChunks.mu.Lock()
		n := len(fpChunks.free)
		fpChunks.mu.Unlock()
		if n != 2 {
			t.Fatalf("after the goroutine, the list holds %d chunks, want 2", n)
		}
		<-spawn(g, func(g *G) {
			f := g.Footprint(99, false)
			fpChunks.mu.Lock()
			n := len(fpChunks.free)
			fpChunks.mu.Unlock()
			if n != 1 || len(g.fp.chunks) != 1 || g.fp.chunks[0] == nil {
				t.Errorf("the new goroutine's first footprint left %d chunks in the list, want 1", n)
			}
			if c := g.fp.chunks[0]; c != first && c != second {
				t.Error("the new goroutine's chunk is not one of the list's")
			}
			for _, c := range g.fp.chunks {
				for i := range c {
					if fp := &c[i]; fp != f && (fp.g != nil || fp.site != 0) {
						t.Errorf("a reused chunk holds the last goroutine's footprint %d", i)
					}
				}
			}
			g.PopFootprints(f)
		})
	})
	fpChunks.mu.Lock()
	defer fpChunks.mu.Unlock()
	if len(fpChunks.free) != 2 {
		t.Errorf("after the second goroutine, the list holds %d chunks, want 2 (its one, taken from the list, and the other)", len(fpChunks.free))
	}
}
