// Copyright 2026 The bigfoot Authors. All rights reserved.

package detector

import (
	"runtime"
	"strings"
	"sync"
	"testing"
)

// TestSyncMap: an operation that finds a key is ordered after the
// operations that changed its entry before.
func TestSyncMap(t *testing.T) {
	ops := []struct {
		name  string
		store func(g *G, m *sync.Map)
		load  func(g *G, m *sync.Map)
	}{
		{"Store/Load", func(g *G, m *sync.Map) { SyncMapStore(g, m, 1, 1) }, func(g *G, m *sync.Map) { SyncMapLoad(g, m, 1) }},
		{"LoadOrStore", func(g *G, m *sync.Map) { SyncMapLoadOrStore(g, m, 1, 1) }, func(g *G, m *sync.Map) { SyncMapLoadOrStore(g, m, 1, 2) }},
		{"Swap/LoadAndDelete", func(g *G, m *sync.Map) { SyncMapSwap(g, m, 1, 1) }, func(g *G, m *sync.Map) { SyncMapLoadAndDelete(g, m, 1) }},
		{"CompareAndSwap", func(g *G, m *sync.Map) { SyncMapStore(g, m, 1, 1) }, func(g *G, m *sync.Map) { SyncMapCompareAndSwap(g, m, 1, 1, 2) }},
		{"CompareAndDelete", func(g *G, m *sync.Map) { SyncMapStore(g, m, 1, 1) }, func(g *G, m *sync.Map) { SyncMapCompareAndDelete(g, m, 1, 1) }},
		{"Delete/Load", func(g *G, m *sync.Map) { SyncMapDelete(g, m, 0) }, func(g *G, m *sync.Map) { SyncMapLoad(g, m, 0) }},
		{"Delete/Range", func(g *G, m *sync.Map) { SyncMapDelete(g, m, 0) }, func(g *G, m *sync.Map) {
			SyncMapRange(g, m, func(k, v any) bool { return true })
		}},
		{"Store/Range", func(g *G, m *sync.Map) { SyncMapStore(g, m, 1, 1) }, func(g *G, m *sync.Map) {
			SyncMapRange(g, m, func(k, v any) bool { return true })
		}},
		{"Clear/Load", func(g *G, m *sync.Map) { SyncMapClear(g, m) }, func(g *G, m *sync.Map) { SyncMapLoad(g, m, 1) }},
	}
	for _, op := range ops {
		t.Run(op.name, func(t *testing.T) {
			both(t, func(g *G, synced bool) {
				x, m := new(int), new(sync.Map)
				SyncMapStore(g, m, 0, 0) // initialized: its first operation orders nothing after
				<-spawn(g, func(g *G) {
					*W(g, x, 0) = 1
					if synced {
						op.store(g, m)
					}
				})
				<-spawn(g, func(g *G) {
					if synced {
						op.load(g, m)
					}
					_ = *R(g, x, 0)
				})
			})
		})
	}
}

// otherStripe returns a key whose stripe in m is not key's.
func otherStripe(m *sync.Map, key any) int {
	k := 0
	for syncMapStripe(addr(m), k) == syncMapStripe(addr(m), key) {
		k++
	}
	return k
}

// mapPair runs the scenario of the sync.Map tests below: m initialized by
// the test's goroutine (with the key "b"), then a write of x and first in
// one goroutine, and later second and a read of x in another.
func mapPair(t *testing.T, race bool, first, second func(g *G, m *sync.Map)) {
	t.Helper()
	expect(t, race, func(g *G) {
		x, m := new(int), new(sync.Map)
		SyncMapStore(g, m, "b", 0)
		<-spawn(g, func(g *G) {
			*W(g, x, 0) = 1
			first(g, m)
		})
		<-spawn(g, func(g *G) {
			second(g, m)
			_ = *R(g, x, 0)
		})
	})
}

// TestSyncMapKeys: a Load is ordered after a Store of its key, not of
// another key (of another stripe), as under go -race.
func TestSyncMapKeys(t *testing.T) {
	load := func(g *G, m *sync.Map) { SyncMapLoad(g, m, "b") }
	t.Run("same", func(t *testing.T) {
		mapPair(t, false, func(g *G, m *sync.Map) { SyncMapStore(g, m, "b", 1) }, load)
	})
	t.Run("other", func(t *testing.T) {
		mapPair(t, true, func(g *G, m *sync.Map) { SyncMapStore(g, m, otherStripe(m, "b"), 1) }, load)
	})
}

// TestSyncMapStores: operations that change the map are ordered among
// themselves, whatever their keys (the node mutexes of go -race's map);
// a Load of another key is not ordered after them.
func TestSyncMapStores(t *testing.T) {
	store := func(g *G, m *sync.Map) { SyncMapStore(g, m, otherStripe(m, "b"), 1) }
	for _, c := range []struct {
		name   string
		race   bool
		second func(g *G, m *sync.Map)
	}{
		{"Store", false, func(g *G, m *sync.Map) { SyncMapStore(g, m, "b", 2) }},
		{"Swap", false, func(g *G, m *sync.Map) { SyncMapSwap(g, m, "b", 2) }},
		{"Delete", false, func(g *G, m *sync.Map) { SyncMapDelete(g, m, "b") }},
		{"LoadOrStoreAbsent", false, func(g *G, m *sync.Map) { SyncMapLoadOrStore(g, m, "c", 2) }},
		{"Load", true, func(g *G, m *sync.Map) { SyncMapLoad(g, m, "b") }},
		{"LoadOrStorePresent", true, func(g *G, m *sync.Map) { SyncMapLoadOrStore(g, m, "b", 2) }},
	} {
		t.Run(c.name, func(t *testing.T) { mapPair(t, c.race, store, c.second) })
	}
}

// TestSyncMapReads: operations that change nothing release nothing: a
// LoadOrStore of a present key, a Delete, LoadAndDelete, CompareAndSwap
// or CompareAndDelete of an absent one.
func TestSyncMapReads(t *testing.T) {
	load := func(k any) func(g *G, m *sync.Map) {
		return func(g *G, m *sync.Map) { SyncMapLoad(g, m, k) }
	}
	for _, c := range []struct {
		name  string
		first func(g *G, m *sync.Map)
		key   any
	}{
		{"LoadOrStore", func(g *G, m *sync.Map) { SyncMapLoadOrStore(g, m, "b", 1) }, "b"},
		{"Delete", func(g *G, m *sync.Map) { SyncMapDelete(g, m, "c") }, "c"},
		{"LoadAndDelete", func(g *G, m *sync.Map) { SyncMapLoadAndDelete(g, m, "c") }, "c"},
		{"CompareAndSwap", func(g *G, m *sync.Map) { SyncMapCompareAndSwap(g, m, "c", 0, 1) }, "c"},
		{"CompareAndDelete", func(g *G, m *sync.Map) { SyncMapCompareAndDelete(g, m, "c", 0) }, "c"},
	} {
		t.Run(c.name, func(t *testing.T) { mapPair(t, true, c.first, load(c.key)) })
	}
}

// TestSyncMapRoot: the operation that initializes the map and Clear are
// ordered before every later operation, whatever its key.
func TestSyncMapRoot(t *testing.T) {
	t.Run("Clear", func(t *testing.T) {
		mapPair(t, false, func(g *G, m *sync.Map) { SyncMapClear(g, m) }, func(g *G, m *sync.Map) { SyncMapLoad(g, m, "c") })
	})
	t.Run("init", func(t *testing.T) {
		both(t, func(g *G, synced bool) {
			x, m := new(int), new(sync.Map)
			if !synced {
				SyncMapLoad(g, m, "a")
			}
			<-spawn(g, func(g *G) {
				*W(g, x, 0) = 1
				SyncMapLoad(g, m, "a")
			})
			<-spawn(g, func(g *G) {
				SyncMapLoad(g, m, otherStripe(m, "a"))
				_ = *R(g, x, 0)
			})
		})
	})
}

// TestSyncMapRangeStopped: a Range that visited every key is ordered
// after every change, of a key deleted too; one that f stopped only after
// the changes of the keys it visited.
func TestSyncMapRangeStopped(t *testing.T) {
	both(t, func(g *G, synced bool) {
		x, m := new(int), new(sync.Map)
		SyncMapStore(g, m, "b", 0)
		SyncMapStore(g, m, otherStripe(m, "b"), 0)
		<-spawn(g, func(g *G) {
			*W(g, x, 0) = 1
			SyncMapDelete(g, m, "b")
		})
		<-spawn(g, func(g *G) {
			SyncMapRange(g, m, func(k, v any) bool { return synced })
			_ = *R(g, x, 0)
		})
	})
}

// TestSyncMapUnhashable: a key that cannot be hashed panics as the map
// panics on it, and the goroutine's standard-library hooks are back on,
// after a panic in Range's f too.
func TestSyncMapUnhashable(t *testing.T) {
	expect(t, false, func(g *G) {
		m := new(sync.Map)
		for name, op := range map[string]func(){
			"Load":  func() { SyncMapLoad(g, m, []int{}) },
			"Store": func() { SyncMapStore(g, m, []int{}, 1) },
			"Swap":  func() { SyncMapSwap(g, m, []int{}, 1) },
			"Range": func() {
				SyncMapStore(g, m, 1, 1)
				SyncMapRange(g, m, func(k, v any) bool { SyncMapLoad(g, m, []int{}); return true })
			},
		} {
			func() {
				defer func() {
					err, ok := recover().(runtime.Error)
					if !ok || !strings.Contains(err.Error(), "hash of unhashable type []int") {
						t.Errorf("%s: panic %v, want the map's", name, err)
					}
				}()
				op()
			}()
			if g.stdOff != 0 {
				t.Errorf("%s: stdOff %d after the panic", name, g.stdOff)
			}
		}
	})
}
