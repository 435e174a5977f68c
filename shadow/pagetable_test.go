// Copyright 2026 The bigfoot Authors. All rights reserved.

package shadow

import (
	"math/rand/v2"
	"sync"
	"testing"
	"unsafe"
)

// tableKeys are page numbers that cover each level of the page table: two
// pages of one leaf, the last page of a leaf and the first of the next,
// leaves of one directory and of others, the first and last keys the tree
// holds, and keys past it (addresses of more than 48 bits).
var tableKeys = []uintptr{
	1, 2, 1<<leafBits - 1, 1 << leafBits,
	0xc000000000 >> pageShift, 0xc000001000 >> pageShift, 0xc004000000 >> pageShift,
	1<<(leafBits+midBits) - 1, 1 << (leafBits + midBits),
	1<<keyBits - 1, 1 << keyBits, 1<<keyBits + 1<<leafBits, 1 << 50,
}

func TestPageTableLoadOrStore(t *testing.T) {
	var tab pageTable
	pages := map[uintptr]*page{}
	for _, k := range tableKeys {
		if pg := tab.Load(k); pg != nil {
			t.Fatalf("Load(%#x) = %p before any store", k, pg)
		}
		pg, loaded := tab.LoadOrStore(k, func() *page { return new(page) })
		if loaded || pg == nil {
			t.Fatalf("LoadOrStore(%#x) = %p, %v; want a new page", k, pg, loaded)
		}
		pages[k] = pg
	}
	for _, k := range tableKeys {
		if pg := tab.Load(k); pg != pages[k] {
			t.Errorf("Load(%#x) = %p, want %p", k, pg, pages[k])
		}
		pg, loaded := tab.LoadOrStore(k, func() *page {
			t.Fatalf("LoadOrStore(%#x) made a page for a present key", k)
			return nil
		})
		if !loaded || pg != pages[k] {
			t.Errorf("LoadOrStore(%#x) = %p, %v; want %p, true", k, pg, loaded, pages[k])
		}
	}
	// Neighbours of the stored keys stay absent.
	for _, k := range tableKeys {
		if _, ok := pages[k+3]; !ok && tab.Load(k+3) != nil {
			t.Errorf("Load(%#x) found a page never stored", k+3)
		}
	}
	if n := tab.Len(); n != len(tableKeys) {
		t.Errorf("Len = %d, want %d", n, len(tableKeys))
	}
}

func TestPageTableDelete(t *testing.T) {
	var tab pageTable
	pages := map[uintptr]*page{}
	for _, k := range tableKeys {
		pages[k], _ = tab.LoadOrStore(k, func() *page { return new(page) })
	}
	for i, k := range tableKeys {
		if tab.CompareAndDelete(k, new(page)) {
			t.Fatalf("CompareAndDelete(%#x) of another page succeeded", k)
		}
		if !tab.CompareAndDelete(k, pages[k]) {
			t.Fatalf("CompareAndDelete(%#x) of its page failed", k)
		}
		if tab.CompareAndDelete(k, pages[k]) {
			t.Fatalf("CompareAndDelete(%#x) succeeded twice", k)
		}
		if pg := tab.Load(k); pg != nil {
			t.Fatalf("Load(%#x) = %p after its deletion", k, pg)
		}
		if n := tab.Len(); n != len(tableKeys)-i-1 {
			t.Fatalf("Len = %d after %d deletions, want %d", n, i+1, len(tableKeys)-i-1)
		}
		// The others stay.
		for _, o := range tableKeys[i+1:] {
			if tab.Load(o) != pages[o] {
				t.Fatalf("deleting %#x lost %#x", k, o)
			}
		}
	}
	// A deleted key takes a new page.
	k := tableKeys[0]
	pg, loaded := tab.LoadOrStore(k, func() *page { return new(page) })
	if loaded || pg == pages[k] {
		t.Errorf("LoadOrStore(%#x) after deletion = %p, %v; want a new page", k, pg, loaded)
	}
	if n := tab.Len(); n != 1 {
		t.Errorf("Len = %d, want 1", n)
	}
}

func TestPageTableRange(t *testing.T) {
	var tab pageTable
	want := map[uintptr]*page{}
	for _, k := range tableKeys {
		want[k], _ = tab.LoadOrStore(k, func() *page { return new(page) })
	}
	// A deleted page is not visited, nor is a leaf left empty.
	gone := tableKeys[len(tableKeys)/2]
	tab.CompareAndDelete(gone, want[gone])
	delete(want, gone)

	got := map[uintptr]*page{}
	tab.Range(func(k uintptr, pg *page) bool {
		if _, dup := got[k]; dup {
			t.Errorf("Range visited %#x twice", k)
		}
		got[k] = pg
		return true
	})
	if len(got) != len(want) {
		t.Errorf("Range visited %d pages, want %d", len(got), len(want))
	}
	for k, pg := range want {
		if got[k] != pg {
			t.Errorf("Range gave %p for %#x, want %p", got[k], k, pg)
		}
	}

	n := 0
	tab.Range(func(uintptr, *page) bool {
		n++
		return n < 3
	})
	if n != 3 {
		t.Errorf("Range went on after f returned false: %d calls, want 3", n)
	}

	// f may delete the page it is given (as the sweep does).
	tab.Range(func(k uintptr, pg *page) bool {
		if !tab.CompareAndDelete(k, pg) {
			t.Errorf("CompareAndDelete(%#x) inside Range failed", k)
		}
		return true
	})
	if n := tab.Len(); n != 0 {
		t.Errorf("Len = %d after deleting every page, want 0", n)
	}
}

// TestPageTableConcurrent races goroutines that make, load and delete the
// pages of keys spread over leaves and directories: every key has at
// most one page at a time, which every goroutine that finds it agrees
// on, and a deleted page is never found again. Run it under -race too.
func TestPageTableConcurrent(t *testing.T) {
	var tab pageTable
	const workers, rounds = 4, 200
	keys := make([]uintptr, 0, 64)
	for i := range 64 {
		// Eight leaves of eight pages, the leaves in four directories.
		keys = append(keys, uintptr(i%4)<<(leafBits+midBits)|uintptr(i/4%2)<<leafBits|uintptr(i/8))
	}
	var mu sync.Mutex
	deleted := map[*page]bool{}
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(w), 1))
			for range rounds {
				k := keys[rng.IntN(len(keys))]
				pg, _ := tab.LoadOrStore(k, func() *page { return new(page) })
				// Deletions are marked under mu, so a Load under mu
				// sees every page marked deleted gone.
				mu.Lock()
				if again := tab.Load(k); again != pg && !deleted[pg] {
					t.Errorf("key %#x: Load = %p after LoadOrStore = %p, which is not deleted", k, again, pg)
				}
				if rng.IntN(3) == 0 && tab.CompareAndDelete(k, pg) {
					deleted[pg] = true
				}
				if found := tab.Load(k); found != nil && deleted[found] {
					t.Errorf("key %#x: Load found deleted page %p", k, found)
				}
				mu.Unlock()
			}
		}()
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		for range rounds / 4 {
			tab.Range(func(uintptr, *page) bool { return true })
		}
	}()
	wg.Wait()
	n := 0
	tab.Range(func(k uintptr, pg *page) bool {
		if tab.Load(k) != pg || deleted[pg] {
			t.Errorf("Range gave %#x: %p, not its live page", k, pg)
		}
		n++
		return true
	})
	if tab.Len() != n {
		t.Errorf("Len = %d, Range visited %d", tab.Len(), n)
	}
}

// BenchmarkPageLookup looks up pages in a random order over 64 MiB of
// addresses, all present, in the page table and in the hash map it
// replaced.
func BenchmarkPageLookup(b *testing.B) {
	const n = 64 << 20 / pageSize
	base := uintptr(0xc000000000) >> pageShift
	order := rand.New(rand.NewPCG(1, 1)).Perm(n)
	b.Run("table", func(b *testing.B) {
		var tab pageTable
		for i := range n {
			tab.LoadOrStore(base+uintptr(i), func() *page { return new(page) })
		}
		b.ResetTimer()
		for i := range b.N {
			if tab.Load(base+uintptr(order[i%n])) == nil {
				b.Fatal("missing page")
			}
		}
	})
	b.Run("map", func(b *testing.B) {
		var m Map[page]
		for i := range n {
			m.LoadOrStore(base+uintptr(i), func() *page { return new(page) })
		}
		b.ResetTimer()
		for i := range b.N {
			if m.Load(base+uintptr(order[i%n])) == nil {
				b.Fatal("missing page")
			}
		}
	})
}

// BenchmarkAccessPages reads one word of each page of a 16 MiB array in a
// scattered order, in the epoch that recorded them: the same-epoch check
// of a page other than the one the goroutine used last.
func BenchmarkAccessPages(b *testing.B) {
	const n = 16 << 20 / 8
	const pages = n * 8 / pageSize
	v := escape(make([]uint64, n))
	order := rand.New(rand.NewPCG(1, 1)).Perm(pages)
	s := NewSpace()
	s.noRuns = true
	th := thread(1, 1, nil)
	for _, i := range order {
		s.Access(th, unsafe.Pointer(&v[i*pageSize/8]), 8, false, 1)
	}
	b.ResetTimer()
	for i := range b.N {
		if _, race := s.Access(th, unsafe.Pointer(&v[order[i%pages]*pageSize/8]), 8, false, 1); race {
			b.Fatal("race")
		}
	}
}
