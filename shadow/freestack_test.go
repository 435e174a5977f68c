// Copyright 2026 The bigfoot Authors. All rights reserved.

package shadow

import (
	"slices"
	"testing"
)

// A freeStack returns every address put, those put last first (get's
// next block is the one last reports), across nodes, and reuses the
// nodes it emptied.
func TestFreeStackOrder(t *testing.T) {
	var s freeStack
	var want []uintptr
	for i := range 3*freeNodeLen + 7 {
		want = append(want, uintptr(i+1)*64)
	}
	for b := want; len(b) > 0; {
		k := min(len(b), 33)
		s.push(b[:k])
		b = b[k:]
	}
	if s.len() != len(want) {
		t.Fatalf("len %d after pushing %d", s.len(), len(want))
	}
	var got []uintptr
	for s.len() > 0 {
		if s.last() != want[len(want)-1-len(got)] {
			t.Fatalf("last %#x, want %#x", s.last(), want[len(want)-1-len(got)])
		}
		dst := make([]uintptr, 40)
		got = append(got, dst[:s.pop(dst)]...)
	}
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Fatalf("popped %d addresses, not the %d pushed", len(got), len(want))
	}
	if n := s.pop(make([]uintptr, 1)); n != 0 {
		t.Fatalf("pop of an empty stack returned %d", n)
	}
	spare := s.spare
	s.push(want[:1])
	if s.top != spare {
		t.Errorf("push took node %#x, not the spare %#x", s.top, spare)
	}
}

// Returning blocks to a pool allocates nothing on the Go heap: the free
// list was a slice there, whose growth as a sweep returned a cycle's
// granules allocated as much as the pipeline workload did.
func TestPoolPutAllocs(t *testing.T) {
	if !recycleGranules {
		t.Skip("off-heap memory is heap memory under go test -race")
	}
	b := make([]uintptr, 1<<16)
	pools := make([]blockPool, 2) // AllocsPerRun's warm-up and its run
	allocs := testing.AllocsPerRun(1, func() {
		p := &pools[0]
		pools = pools[1:]
		p.size, p.chunk = 64, 1<<20
		p.get(b)
		for i := 0; i < len(b); i += poolBatch {
			p.put(b[i : i+poolBatch])
		}
	})
	if allocs != 0 {
		t.Errorf("getting and putting back %d blocks made %v heap allocations, want 0", len(b), allocs)
	}
}
