// Copyright 2026 The bigfoot Authors. All rights reserved.

package shadow

import (
	"sync/atomic"

	"github.com/bigfoot-go/bigfoot/internal/ownheap"
	"github.com/bigfoot-go/bigfoot/internal/spin"
)

// The page table maps a page number (an address >> pageShift) to its
// shadow page. It is looked up at every access outside the page a
// goroutine used last, so it is direct-mapped, like Go's own heap arena
// index and unlike the hash map it replaced (Map: a multiply, a probe
// loop, and adjacent pages scattered over the table, each lookup of a
// new page a cache miss): a radix tree over the 48-bit address space
// that the 64-bit platforms give user programs, in three levels of 4,096
// entries, each level an index of 12 bits of the page number:
//
//	dir  := t.dirs[key>>24]          // 64 GiB of addresses
//	leaf := dir[key>>12&4095]         // 16 MiB
//	page := leaf.pages[key&4095]      // 4 KiB
//
// The first level is part of the table; directories and leaves are made
// on the first page of their range and never freed (a lock-free reader
// may hold one at any time; the sweep visits the pages leaf by leaf, from
// the list of leaves). They are on the Go heap, like the pages they hold,
// which they keep reachable: a leaf costs 8 bytes per 4 KiB page of its
// range, so a program's leaves weigh 1/512 of the memory it touches,
// rounded up to 32 KiB per 16 MiB range touched. Page numbers of 2^36
// and above (addresses past 48 bits, which no 64-bit platform gives a Go
// program unless asked) go to a hash map.
//
// Readers are lock-free (atomic loads); LoadOrStore and CompareAndDelete
// take the table's lock, as the Map's updates do.
type pageTable struct {
	dirs [1 << dirBits]atomic.Pointer[pageDir]

	mu     spin.Mutex
	leaves []*pageLeaf // every leaf, in order of creation; guarded by mu
	live   int         // pages in the tree; guarded by mu
	high   Map[page]   // page numbers of keyBits bits and more
}

const (
	leafBits = 12                           // page-number bits a leaf resolves
	midBits  = 12                           // bits a directory resolves
	dirBits  = 12                           // bits the table resolves
	keyBits  = leafBits + midBits + dirBits // 36: addresses below 2^48
)

// A pageDir holds the leaves of 2^(midBits+leafBits) pages.
type pageDir [1 << midBits]atomic.Pointer[pageLeaf]

// A pageLeaf holds the pages of 2^leafBits consecutive page numbers from
// base.
type pageLeaf struct {
	base  uintptr // first page number
	live  atomic.Int32
	pages [1 << leafBits]atomic.Pointer[page]
}

// leaf returns the leaf of key, or nil if there is none (yet). key must
// be below 1<<keyBits.
func (t *pageTable) leaf(key uintptr) *pageLeaf {
	d := t.dirs[key>>(midBits+leafBits)&(1<<dirBits-1)].Load()
	if d == nil {
		return nil
	}
	return d[key>>leafBits&(1<<midBits-1)].Load()
}

// Load returns the page of key, or nil.
func (t *pageTable) Load(key uintptr) *page {
	if key >= 1<<keyBits {
		return t.high.Load(key)
	}
	return t.lookup(key)
}

// lookup is Load for the lock-free fast paths, which it inlines into:
// for a key of keyBits bits or more it returns nil, which sends the
// caller to its locked path (Space.page), whose LoadOrStore finds the
// page.
func (t *pageTable) lookup(key uintptr) *page {
	if l := t.leaf(key); l != nil && key < 1<<keyBits {
		return l.pages[key&(1<<leafBits-1)].Load()
	}
	return nil
}

// LoadOrStore returns the page of key, storing the result of mk if there
// is none. mk runs with the table's lock held.
func (t *pageTable) LoadOrStore(key uintptr, mk func() *page) (pg *page, loaded bool) {
	if pg := t.lookup(key); pg != nil {
		return pg, true
	}
	if key >= 1<<keyBits {
		return t.high.LoadOrStore(key, mk)
	}
	t.mu.Lock()
	l := t.leafLocked(key)
	slot := &l.pages[key&(1<<leafBits-1)]
	pg = slot.Load()
	loaded = pg != nil
	if !loaded {
		pg = mk()
		slot.Store(pg)
		l.live.Add(1)
		t.live++
	}
	t.mu.Unlock()
	return pg, loaded
}

// leafLocked returns the leaf of key, making it and its directory if
// needed. t.mu is held.
func (t *pageTable) leafLocked(key uintptr) *pageLeaf {
	m := ownheap.Begin()
	defer m.End()
	dp := &t.dirs[key>>(midBits+leafBits)&(1<<dirBits-1)]
	d := dp.Load()
	if d == nil {
		d = new(pageDir)
		dp.Store(d)
	}
	lp := &d[key>>leafBits&(1<<midBits-1)]
	l := lp.Load()
	if l == nil {
		l = &pageLeaf{base: key &^ (1<<leafBits - 1)}
		t.leaves = append(t.leaves, l)
		lp.Store(l)
	}
	return l
}

// CompareAndDelete deletes the page of key if it is pg.
func (t *pageTable) CompareAndDelete(key uintptr, pg *page) bool {
	if key >= 1<<keyBits {
		return t.high.CompareAndDelete(key, pg)
	}
	t.mu.Lock()
	l := t.leaf(key)
	ok := l != nil && l.pages[key&(1<<leafBits-1)].CompareAndSwap(pg, nil)
	if ok {
		l.live.Add(-1)
		t.live--
	}
	t.mu.Unlock()
	return ok
}

// Len returns the number of pages.
func (t *pageTable) Len() int {
	t.mu.Lock()
	n := t.live
	t.mu.Unlock()
	return n + t.high.Len()
}

// Range calls f for every page present when Range starts (and possibly
// some added later), in order of address within each leaf, without
// holding the lock during f, until f returns false.
func (t *pageTable) Range(f func(key uintptr, pg *page) bool) {
	t.mu.Lock()
	leaves := t.leaves // append-only: the prefix stays valid
	t.mu.Unlock()
	for _, l := range leaves {
		if l.live.Load() == 0 {
			continue
		}
		for i := range l.pages {
			if pg := l.pages[i].Load(); pg != nil && !f(l.base+uintptr(i), pg) {
				return
			}
		}
	}
	t.high.Range(f)
}
