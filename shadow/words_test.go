// Copyright 2026 The bigfoot Authors. All rights reserved.

package shadow

import (
	"sync"
	"testing"
	"unsafe"
)

// AllocWords returns zeroed arrays of their class's capacity, and FreeWords
// makes an array of a class the next one AllocWords returns, zeroed again.
func TestWordsReuse(t *testing.T) {
	for _, n := range []int{1, 8, 9, 100, 4096, wordsMax} {
		w := AllocWords(n)
		if len(w) != n || cap(w) != wordsMin<<wordsClass(n) || cap(w) < n {
			t.Fatalf("AllocWords(%d): len %d cap %d", n, len(w), cap(w))
		}
		w = w[:cap(w)]
		for i := range w {
			if w[i] != 0 {
				t.Fatalf("AllocWords(%d): word %d is %d", n, i, w[i])
			}
			w[i] = ^uint64(i)
		}
		FreeWords(w[:n])
		v := AllocWords(n)
		if unsafe.SliceData(v) != unsafe.SliceData(w) {
			t.Errorf("AllocWords(%d) after a free: a new array, not the freed one", n)
		}
		for i, x := range v[:cap(v)] {
			if x != 0 {
				t.Fatalf("a reused array of %d words holds %#x at %d", n, x, i)
			}
		}
		FreeWords(v)
	}
}

// AllocWordsUncleared hands out a freed array with the words its last
// user left, of its class's capacity.
func TestWordsUncleared(t *testing.T) {
	const n = 100
	w := AllocWords(n)
	for i := range w {
		w[i] = uint64(i) + 1
	}
	FreeWords(w)
	v := AllocWordsUncleared(n)
	if unsafe.SliceData(v) != unsafe.SliceData(w) || len(v) != n || cap(v) != wordsMin<<wordsClass(n) {
		t.Fatalf("AllocWordsUncleared(%d) after a free: len %d cap %d, a new array %v", n, len(v), cap(v), unsafe.SliceData(v) != unsafe.SliceData(w))
	}
	for i, x := range v {
		if x != uint64(i)+1 {
			t.Fatalf("word %d of a reused array is %d, want its last user's %d", i, x, i+1)
		}
	}
	FreeWords(v)
}

// Arrays larger than the largest class come from the heap, and FreeWords
// leaves them, and nil, alone.
func TestWordsLarge(t *testing.T) {
	w := AllocWords(wordsMax + 1)
	if len(w) != wordsMax+1 {
		t.Fatalf("AllocWords(wordsMax+1): len %d", len(w))
	}
	FreeWords(w)
	FreeWords(nil)
	if v := AllocWords(wordsMax); unsafe.SliceData(v) == unsafe.SliceData(w) {
		t.Error("a heap array was put in a pool")
	}
}

// An array in use is never handed out twice: goroutines allocating,
// writing their own mark and freeing at once each find their mark intact.
func TestWordsConcurrent(t *testing.T) {
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 2000 {
				w := AllocWords(1 + (i*7+g)%200)
				mark := uint64(g)<<32 | uint64(i)
				for j := range w {
					w[j] = mark
				}
				for j := range w {
					if w[j] != mark {
						t.Errorf("goroutine %d: word %d of its array changed to %#x", g, j, w[j])
						return
					}
				}
				FreeWords(w)
			}
		}()
	}
	wg.Wait()
}

// Allocating and freeing arrays of a class allocates nothing on the Go
// heap once the class has an array free.
func TestWordsAllocs(t *testing.T) {
	if !recycleGranules {
		t.Skip("off-heap memory is heap memory under go test -race")
	}
	FreeWords(AllocWords(64))
	if n := testing.AllocsPerRun(100, func() { FreeWords(AllocWords(64)) }); n != 0 {
		t.Errorf("AllocWords and FreeWords: %v heap allocations, want 0", n)
	}
}
