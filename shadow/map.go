// Copyright 2026 The bigfoot Authors. All rights reserved.

package shadow

import (
	"sync/atomic"

	"github.com/bigfoot-go/bigfoot/internal/ownheap"
	"github.com/bigfoot-go/bigfoot/internal/spin"
)

// Map is a concurrent hash map from uintptr keys to *V, used for the
// sync-object table, the channel table and the goroutine registry (and for
// the pages of addresses past the page table's range: pagetable.go).
//
// Lookups are lock-free (a few atomic loads in an open-addressed table), so
// the hot paths of the detector never contend; updates are serialized by a
// mutex, because they are rare (a new goroutine, a new mutex).
// Keys 0 and ^0 are reserved (empty slot and tombstone).
type Map[V any] struct {
	// Words says the keys are addresses of words that programs often
	// use in runs (the sync objects of atomically accessed slots): the
	// hash then keeps the keys of four adjacent words in one cache line
	// of the table, so that a walk over the words misses the cache once
	// per four. (Other keys, such as page numbers, must not use it: dense
	// keys that differ above bit 4 would crowd groups.) Set before use.
	Words bool

	mu   spin.Mutex
	tab  atomic.Pointer[mapTable[V]]
	live int // keys present; guarded by mu
	used int // live keys plus tombstones; guarded by mu
}

type mapTable[V any] struct {
	mask  uintptr
	slots []mapSlot[V]
}

type mapSlot[V any] struct {
	key atomic.Uintptr
	val atomic.Pointer[V]
}

const tombstone = ^uintptr(0)

// hash is a multiplicative (Fibonacci) hash; addresses are 8-aligned and
// page numbers are dense, both of which it spreads well.
func hash(k uintptr) uintptr {
	return uintptr(uint64(k)*0x9E3779B97F4A7C15>>17) ^ k
}

// wordHash is the hash of a Words map: the 32-byte block of the word,
// hashed, selects a group of four slots (one 64-byte cache line of the
// table), and the word's place in its block a slot of the group.
func wordHash(k uintptr) uintptr {
	return uintptr(uint64(k>>5)*0x9E3779B97F4A7C15>>17)<<2 | k>>3&3
}

// start returns the slot where key's probe starts in a table of mask+1
// slots.
func (m *Map[V]) start(key, mask uintptr) uintptr {
	if m.Words {
		return wordHash(key) & mask
	}
	return hash(key) & mask
}

// Load returns the value stored under key, or nil.
func (m *Map[V]) Load(key uintptr) *V {
	t := m.tab.Load()
	if t == nil {
		return nil
	}
	for i := m.start(key, t.mask); ; i = (i + 1) & t.mask {
		s := &t.slots[i]
		switch s.key.Load() {
		case key:
			return s.val.Load()
		case 0:
			return nil
		}
	}
}

// LoadOrStore returns the value under key, storing the result of mk if
// there is none. mk runs with the map's lock held and must not use m.
func (m *Map[V]) LoadOrStore(key uintptr, mk func() *V) (v *V, loaded bool) {
	if v := m.Load(key); v != nil {
		return v, true
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if v := m.loadLocked(key); v != nil {
		return v, true
	}
	v = mk()
	m.insertLocked(key, v)
	return v, false
}

// Store sets the value under key and returns the previous one, if any.
func (m *Map[V]) Store(key uintptr, v *V) (old *V) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if s := m.slotLocked(key); s != nil {
		old = s.val.Load()
		s.val.Store(v)
		return old
	}
	m.insertLocked(key, v)
	return nil
}

// CompareAndDelete deletes key if its value is old.
func (m *Map[V]) CompareAndDelete(key uintptr, old *V) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	s := m.slotLocked(key)
	if s == nil || s.val.Load() != old {
		return false
	}
	s.val.Store(nil)
	s.key.Store(tombstone)
	m.live--
	return true
}

// Len returns the number of keys.
func (m *Map[V]) Len() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.live
}

// Range calls f for every key and value present when Range starts (and
// possibly some added later), without holding the lock during f.
func (m *Map[V]) Range(f func(key uintptr, v *V) bool) {
	t := m.tab.Load()
	if t == nil {
		return
	}
	for i := range t.slots {
		s := &t.slots[i]
		k := s.key.Load()
		if k == 0 || k == tombstone {
			continue
		}
		if v := s.val.Load(); v != nil && !f(k, v) {
			return
		}
	}
}

func (m *Map[V]) slotLocked(key uintptr) *mapSlot[V] {
	t := m.tab.Load()
	if t == nil {
		return nil
	}
	for i := m.start(key, t.mask); ; i = (i + 1) & t.mask {
		s := &t.slots[i]
		switch s.key.Load() {
		case key:
			return s
		case 0:
			return nil
		}
	}
}

func (m *Map[V]) loadLocked(key uintptr) *V {
	if s := m.slotLocked(key); s != nil {
		return s.val.Load()
	}
	return nil
}

func (m *Map[V]) insertLocked(key uintptr, v *V) {
	if key == 0 || key == tombstone {
		panic("shadow: reserved Map key")
	}
	t := m.tab.Load()
	if t == nil || (m.used+1)*4 > len(t.slots)*3 {
		t = m.resizeLocked(1)
	}
	for i := m.start(key, t.mask); ; i = (i + 1) & t.mask {
		s := &t.slots[i]
		k := s.key.Load()
		if k == 0 || k == tombstone {
			// Publish the value before the key, so that a reader that
			// finds the key also finds the value.
			s.val.Store(v)
			s.key.Store(key)
			m.live++
			if k == 0 {
				m.used++
			}
			return
		}
	}
}

// Grow makes room for n more keys, so that their insertions do not
// resize the table: the detector grows its tables after GC cycles, in its
// own goroutine, and a program's goroutine that adds a key allocates
// nothing (docs/runtime.md, "Objects made ahead").
func (m *Map[V]) Grow(n int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if t := m.tab.Load(); t == nil || (m.used+n)*4 > len(t.slots)*3 {
		m.resizeLocked(n)
	}
}

// resizeLocked rehashes the live keys into a new table sized for twice the
// live count and extra more, dropping tombstones; it may shrink the table.
// Readers of the old table keep a consistent, if stale, snapshot.
func (m *Map[V]) resizeLocked(extra int) *mapTable[V] {
	n := 16
	for n*3 < (m.live+extra)*2*4 {
		n *= 2
	}
	m0 := ownheap.Begin()
	nt := &mapTable[V]{mask: uintptr(n - 1), slots: make([]mapSlot[V], n)}
	m0.End()
	if old := m.tab.Load(); old != nil {
		for i := range old.slots {
			s := &old.slots[i]
			k := s.key.Load()
			if k == 0 || k == tombstone {
				continue
			}
			for j := m.start(k, nt.mask); ; j = (j + 1) & nt.mask {
				if nt.slots[j].key.Load() == 0 {
					nt.slots[j].val.Store(s.val.Load())
					nt.slots[j].key.Store(k)
					break
				}
			}
		}
	}
	m.used = m.live
	m.tab.Store(nt)
	return nt
}
