// Copyright 2026 The bigfoot Authors. All rights reserved.

package detector

import (
	"runtime"
	"testing"
	"weak"
)

// TestReserveHandsOutAhead: a reserve's objects come from the chunk made
// ahead, without an allocation; once it runs out tryGet says so and get
// makes a chunk twice as large; the refill after a cycle makes a fresh
// chunk once the last is half handed out, up to the bound in size.
func TestReserveHandsOutAhead(t *testing.T) {
	r := newReserve[[4]uint64](8, 16)
	seen := map[*[4]uint64]bool{}
	if n := testing.AllocsPerRun(7, func() { seen[r.get()] = true }); n != 0 {
		t.Errorf("get from the chunk made ahead: %v allocations, want 0", n)
	}
	if len(seen) != 8 { // AllocsPerRun's warm-up run and 7 more
		t.Fatalf("%d distinct objects, want 8", len(seen))
	}
	if x := r.tryGet(); x != nil {
		t.Fatalf("tryGet of a chunk run out = %p, want nil", x)
	}
	if x := r.get(); x == nil || seen[x] || *x != [4]uint64{} {
		t.Fatalf("get of a chunk run out = %p, want a new zeroed object", x)
	}
	if n := len(r.cur.Load().objs); n != 16 {
		t.Errorf("get of a chunk run out made %d objects, want 16", n)
	}
	r.refill() // one of 16 handed out: kept
	if n := r.cur.Load().next.Load(); n != 1 {
		t.Errorf("refill of a chunk little used: %d handed out, want 1", n)
	}
	for range 15 {
		r.get()
	}
	r.refill()
	if c := r.cur.Load(); len(c.objs) != 16 || c.next.Load() != 0 {
		t.Errorf("refill of a chunk run out: %d objects, %d handed out; want 16 (the bound), 0", len(c.objs), c.next.Load())
	}
}

// TestWordSlabCopies: frozen clocks are copies carved from a chunk, with
// no room to append into the next, made without an allocation; a clock
// wider than a quarter of the chunk gets its own.
func TestWordSlabCopies(t *testing.T) {
	s := newWordSlab(64)
	vc := []uint64{1, 2, 3, 4, 5}
	var a, b []uint64
	if n := testing.AllocsPerRun(1, func() { a, b = s.copyOf(vc), s.copyOf(vc[:3]) }); n != 0 {
		t.Errorf("copies from the slab: %v allocations, want 0", n)
	}
	if len(a) != 5 || cap(a) != 5 || len(b) != 3 || cap(b) != 3 || a[4] != 5 || b[2] != 3 {
		t.Fatalf("copies %v (cap %d), %v (cap %d)", a, cap(a), b, cap(b))
	}
	a = append(a, 6)
	if b[0] != 1 {
		t.Errorf("an append to one copy changed the next: %v", b)
	}
	wide := make([]uint64, 17)
	if n := testing.AllocsPerRun(1, func() { s.copyOf(wide) }); n != 1 {
		t.Errorf("copy of a clock wider than a quarter chunk: %v allocations, want 1", n)
	}
	// A clock wider than maxCarved is allocated on its own even where a
	// chunk has room for it: a carved one keeps its whole chunk alive.
	big := newWordSlab(64 * maxCarved)
	if n := testing.AllocsPerRun(1, func() { big.copyOf(make([]uint64, maxCarved)) }); n != 0 {
		t.Errorf("copy of a clock of maxCarved words: %v allocations, want 0", n)
	}
	if n := testing.AllocsPerRun(1, func() { big.copyOf(make([]uint64, maxCarved+1)) }); n != 1 {
		t.Errorf("copy of a clock of maxCarved+1 words: %v allocations, want 1", n)
	}
}

// TestSingleObjectsDieAlone: where the detector's allocations are marked,
// a reserve made by newObjectReserve and a word slab allocate each object
// and copy on its own, so that one kept object keeps no other, as a chunk
// keeps all of its own (goleveldb's cache test: 1.9 million sync objects'
// chunks kept for 340,000 live ones).
func TestSingleObjectsDieAlone(t *testing.T) {
	chunked := newReserve[[4]uint64](64, 64)
	single := &reserve[[4]uint64]{single: true}
	slab := &wordSlab{single: true}
	vc := []uint64{1, 2, 3}
	if c := slab.copyOf(vc); len(c) != 3 || cap(c) != 3 || c[2] != 3 {
		t.Fatalf("single copy %v (cap %d), want [1 2 3] (cap 3)", c, cap(c))
	}
	for _, c := range []struct {
		name string
		get  func() *uint64
		kept bool // the others stay reachable through the first
	}{
		{"chunked reserve", func() *uint64 { return &chunked.get()[0] }, true},
		{"single reserve", func() *uint64 { return &single.get()[0] }, false},
		{"single slab", func() *uint64 { return &slab.copyOf(vc)[0] }, false},
	} {
		first := c.get()
		var others []weak.Pointer[uint64]
		for range 32 {
			others = append(others, weak.Make(c.get()))
		}
		runtime.GC()
		runtime.GC()
		dead := 0
		for _, w := range others {
			if w.Value() == nil {
				dead++
			}
		}
		if want := map[bool]int{true: 0, false: len(others)}[c.kept]; dead != want {
			t.Errorf("%s: %d of %d objects freed while the first is kept, want %d", c.name, dead, len(others), want)
		}
		runtime.KeepAlive(first)
	}
}

// TestGrownRingKeepsPlaces: a history ring grown after it wrapped holds
// its last entries at their sequence numbers' places in the larger ring.
func TestGrownRingKeepsPlaces(t *testing.T) {
	for _, n := range []uint64{32, 50, 95} {
		ents := make([]histEntry, 32)
		for k := n - min(n, 32); k < n; k++ {
			ents[k%32] = histEntry{site: uint32(k) + 1}
		}
		r := grownRing(ents, n)
		if r == nil {
			t.Fatal("no ring in the reserve")
		}
		for k := n - min(n, 32); k < n; k++ {
			if got := r[k%64].site; got != uint32(k)+1 {
				t.Errorf("n=%d: entry %d holds site %d, want %d", n, k, got, k+1)
			}
		}
	}
	rings64.refill()
}
