// Copyright 2026 The bigfoot Authors. All rights reserved.

package detector

import (
	"reflect"
	"runtime"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/bigfoot-go/bigfoot/shadow"
)

//lint:file-ignore U1000 the std hooks are called from package sync through //go:linkname.

// A sync.Map synchronizes as it does under go -race, where it is
// internal/sync's HashTrieMap: a hash trie whose slots are atomic
// pointers and whose nodes each have a mutex. That code is compiled
// without memory checks but its atomic operations reach the race
// runtime, one clock per address, and its mutex is annotated (acquired
// by Lock, released by Unlock). So an operation on key k acquires the
// slots on k's path and not what a store of another key released, and
// every operation that changes the trie locks the node that holds its
// slot, for a small map the root for every key, ordering the changes
// among themselves. The model has three kinds of clocks per map
// (syncMapState):
//
//   - root, released by the operation that initializes the map (its
//     inited.Store(1)) and by Clear (its root.Store), acquired by every
//     operation, as each loads inited and the root;
//   - nodes, the node mutexes taken as one: every operation that changes
//     the map acquires it and releases into it;
//   - a stripe per key (its hash, of syncMapStripes): an operation that
//     changes the map releases into its key's stripe, and every operation
//     that finds a key, or its absence, acquires it; Range acquires each
//     key's stripe before it calls f with it, and every stripe once it
//     visited the whole map (the slots it loaded, nil ones too).
//
// Keys that share a stripe, and the node mutexes taken as one, only add
// synchronization; go -race has edges the model lacks only where they
// depend on its per-map hash seed: keys whose slots share a node's slot
// (one in 16 pairs of a small map's keys), or a store that expands the
// slot on another key's path into a node.
//
// Releases come before the operation and acquires after it, so that an
// operation that observes another is ordered after it. An operation
// that changes the map only in some cases (LoadOrStore, LoadAndDelete,
// Delete, CompareAndSwap, CompareAndDelete) first looks the key up:
// one that finds no key is a read (it would change nothing, and takes no
// lock under go -race), and LoadOrStore of a present key returns what
// the lookup found; only the others release. A CompareAndSwap or
// CompareAndDelete of a present key whose value differs releases too.

// syncMapStripes is the number of a map's per-key clocks: two keys share
// one with probability 1/32, where go -race's small map shares a root
// slot between them with probability 1/16.
const syncMapStripes = 32

// A syncMapState is the model of one sync.Map, kept in syncMaps under the
// map's address rather than as sync objects in syncs under addresses of
// their own: syncs hashes adjacent addresses into one group of its table
// (shadow.Map.Words), where a map's 34 clocks would crowd a few probe
// groups, and clocks at addresses past the map's first words would stand
// for no memory of the map that objProof can follow. One state's proof
// (root.obj) covers all its clocks, and sweepSyncMaps drops them
// together when the map dies.
type syncMapState struct {
	// root is the clock of the map's initialization and Clear. Its lock
	// also guards root.obj, the proof of the map, and root.deleted,
	// which says the sweeper removed the state from syncMaps.
	root syncVar
	// nodes is the clock of the trie's node mutexes.
	nodes syncVar
	// stripes are the per-key clocks, each made at its first release.
	stripes [syncMapStripes]atomic.Pointer[syncVar]
}

var syncMaps shadow.Map[syncMapState]

// syncMapStates are the states made ahead (reserve.go).
var syncMapStates = newObjectReserve[syncMapState](16, 1024)

// syncMapRoom is the number of new states the table takes without a
// resize after each GC cycle.
const syncMapRoom = 16

// syncMapSweeps counts sweepSyncMaps' calls; syncMapsSwept is the number
// of states the last sweep left.
var (
	syncMapSweeps int
	syncMapsSwept int
)

func init() {
	syncMaps.Grow(syncMapRoom)
	shadow.AfterGC(sweepSyncMaps)
}

// syncMapInited locates the inited word of a sync.Map's HashTrieMap;
// ok is false if sync.Map is not built on one, and then every operation
// counts as the map's first (it releases root: more synchronization,
// never less).
var syncMapInited = func() (l struct {
	off uintptr
	ok  bool
}) {
	m, ok1 := reflect.TypeFor[sync.Map]().FieldByName("m")
	if !ok1 || m.Type.Kind() != reflect.Struct {
		return l
	}
	in, ok2 := m.Type.FieldByName("inited")
	l.off = m.Offset + in.Offset
	l.ok = ok2 && in.Type.Size() == 4 && l.off%4 == 0
	return l
}()

// syncMapUninited reports whether the map at m may not be initialized
// yet: its next operation may be the one that initializes it.
func syncMapUninited(m *sync.Map) bool {
	if !syncMapInited.ok {
		return true
	}
	return (*atomic.Uint32)(unsafe.Add(unsafe.Pointer(m), syncMapInited.off)).Load() == 0
}

// nilinterhash is the runtime's hash of an interface value (what a
// map[any] uses): it panics on a key of a type that cannot be hashed,
// as the map operation would.
//
//go:linkname nilinterhash runtime.nilinterhash
//go:noescape
func nilinterhash(p unsafe.Pointer, h uintptr) uintptr

// syncMapStripe returns the stripe of key in the map at a, hashed with
// the map's address as the seed so that two keys sharing a stripe in
// one map share none in most others. A key that cannot be hashed gets
// stripe 0: the map's operation panics on it, with its own panic.
func syncMapStripe(a uintptr, key any) (i int) {
	defer func() {
		if recover() != nil {
			i = 0
		}
	}()
	return int(nilinterhash(unsafe.Pointer(&key), a) % syncMapStripes)
}

// newSyncMapState returns the state of a new entry for the map at a, for
// g, proving the map's object as newSyncVar does.
func (g *G) newSyncMapState(a uintptr) *syncMapState {
	s := syncMapStates.get()
	s.root.vc, s.nodes.vc = s.root.inline[:0], s.nodes.inline[:0]
	if p := shadow.PtrOf(a); !shadow.OnStack(g.t.GP, p) && shadow.IsHeap(p) {
		s.root.obj.prove(a)
	}
	return s
}

// lockSyncMap returns the state of the map m with its root locked, or nil
// if there is none and create is false. A state whose map was proven
// freed (a new map took its address) is dropped and a new one made, as
// renew starts a sync object's clock anew; one whose proof only may be
// stale is proven anew, its clocks kept (see lockSync).
func (g *G) lockSyncMap(m *sync.Map, create bool) *syncMapState {
	a := addr(m)
	for {
		s := syncMaps.Load(a)
		if s == nil {
			if !create {
				return nil
			}
			s, _ = syncMaps.LoadOrStore(a, func() *syncMapState { return g.newSyncMapState(a) })
		}
		s.root.mu.Lock()
		switch {
		case s.root.deleted:
		case !s.root.obj.stale(a):
			return s
		case s.root.obj.versioned && s.root.obj.dead(a):
			s.drop()
			syncMaps.CompareAndDelete(a, s)
		default:
			s.root.obj.prove(a)
			return s
		}
		s.root.mu.Unlock()
	}
}

// drop marks s deleted and lets go of its clocks; s's root is locked. No
// goroutine uses s's clocks once it finds it deleted, and s's reserve
// chunk lives while any of its states does: a clock left here would live
// as long.
func (s *syncMapState) drop() {
	s.root.deleted = true
	s.root.vc = nil
	s.nodes.mu.Lock()
	s.nodes.vc = nil
	s.nodes.mu.Unlock()
	for i := range s.stripes {
		if v := s.stripes[i].Load(); v != nil {
			v.mu.Lock()
			v.vc = nil
			v.mu.Unlock()
		}
	}
}

// stripe returns the clock of stripe i, made if it has none yet.
func (s *syncMapState) stripe(i int) *syncVar {
	if v := s.stripes[i].Load(); v != nil {
		return v
	}
	v := syncVars.get()
	v.vc = v.inline[:0]
	if s.stripes[i].CompareAndSwap(nil, v) {
		return v
	}
	return s.stripes[i].Load()
}

// sweepSyncMaps drops the states of dead maps, at the pace of sweepSyncs.
func sweepSyncMaps() {
	syncMapSweeps++
	if syncSweepDue(syncMapSweeps, syncMaps.Len(), syncMapsSwept) {
		shadow.FinishSweep()
		syncMaps.Range(func(a uintptr, s *syncMapState) bool {
			s.root.mu.Lock()
			if s.root.obj.dead(a) {
				s.drop()
				syncMaps.CompareAndDelete(a, s)
			}
			s.root.mu.Unlock()
			return true
		})
		syncMapsSwept = syncMaps.Len()
	}
	syncMaps.Grow(syncMapRoom)
}

// syncMapEnter precedes an operation on m that may initialize it: the
// initialization releases into root.
func (g *G) syncMapEnter(m *sync.Map) {
	if !syncMapUninited(m) {
		return
	}
	g.yield()
	g.countSyncAs(syncRelease)
	s := g.lockSyncMap(m, true)
	s.root.releaseBy(g)
	s.root.mu.Unlock()
	g.tick()
}

// syncMapRead follows an operation on m that found key or its absence:
// it acquires root and key's stripe.
func (g *G) syncMapRead(m *sync.Map, key any) {
	g.countSyncAs(syncAcquire)
	s := g.lockSyncMap(m, false)
	if s == nil {
		return // never released: nothing to acquire
	}
	s.root.acquireBy(g)
	s.root.mu.Unlock()
	if v := s.stripes[syncMapStripe(addr(m), key)].Load(); v != nil {
		v.mu.Lock()
		v.acquireBy(g)
		v.mu.Unlock()
	}
	runtime.KeepAlive(m) // see acquireAt
}

// syncMapWrite precedes an operation on m that changes key's entry: it
// acquires root (and releases into it if the operation may initialize
// m), then nodes, which it releases into, as the lock of the key's node
// does, and then releases into key's stripe, which it acquires first, as
// the operation's load of the key's slot does. Nodes is acquired before
// the stripe's release, so that a Load of this key is ordered after the
// changes of other keys before this one, as under go -race. Two changes
// made at once are ordered as their hooks ran, which may not be the
// order in which their operations took the node's lock: the Go memory
// model orders neither before the other.
func (g *G) syncMapWrite(m *sync.Map, key any) {
	i := syncMapStripe(addr(m), key)
	uninited := syncMapUninited(m)
	g.yield()
	g.countSyncAs(syncBoth)
	s := g.lockSyncMap(m, true)
	if uninited {
		s.root.releaseBy(g)
	}
	s.root.acquireBy(g)
	s.root.mu.Unlock()
	s.nodes.mu.Lock()
	s.nodes.acquireBy(g)
	s.nodes.releaseBy(g)
	s.nodes.mu.Unlock()
	v := s.stripe(i)
	v.mu.Lock()
	v.acquireBy(g)
	v.releaseBy(g)
	v.mu.Unlock()
	g.tick()
}

// syncMapClear precedes m.Clear(), which acquires root and releases
// into it.
func (g *G) syncMapClear(m *sync.Map) {
	g.yield()
	g.countSyncAs(syncBoth)
	s := g.lockSyncMap(m, true)
	s.root.acquireBy(g)
	s.root.releaseBy(g)
	s.root.mu.Unlock()
	g.tick()
}

// syncMapRangeEnd follows a Range over m that visited every key: it
// acquires root and every stripe.
func (g *G) syncMapRangeEnd(m *sync.Map) {
	g.countSyncAs(syncAcquire)
	s := g.lockSyncMap(m, false)
	if s == nil {
		return
	}
	s.root.acquireBy(g)
	s.root.mu.Unlock()
	for i := range s.stripes {
		if v := s.stripes[i].Load(); v != nil {
			v.mu.Lock()
			v.acquireBy(g)
			v.mu.Unlock()
		}
	}
	runtime.KeepAlive(m)
}

// The hooks of sync.Map announce the operation themselves and hide it
// from package sync's own hooks (driver.syncSplices, which model the maps
// of uninstrumented code the same way) by G.stdOff while they call the
// method, restored by a deferred call: the methods panic on a key that
// cannot be hashed, and CompareAndSwap and CompareAndDelete on values
// that cannot be compared. Range shows them again while f, the
// program's, runs.

// showStd ends hiding g's calls from package sync's hooks.
func (g *G) showStd() { g.stdOff-- }

// SyncMapLoad is m.Load(key).
func SyncMapLoad(g *G, m *sync.Map, key any) (any, bool) {
	g.syncMapEnter(m)
	g.stdOff++
	defer g.showStd()
	v, ok := m.Load(key)
	g.syncMapRead(m, key)
	return v, ok
}

// SyncMapStore is m.Store(key, value).
func SyncMapStore(g *G, m *sync.Map, key, value any) {
	g.syncMapWrite(m, key)
	g.stdOff++
	defer g.showStd()
	m.Store(key, value)
}

// SyncMapLoadOrStore is m.LoadOrStore(key, value); a present key is
// loaded, without LoadOrStore.
func SyncMapLoadOrStore(g *G, m *sync.Map, key, value any) (any, bool) {
	g.syncMapEnter(m)
	g.stdOff++
	defer g.showStd()
	v, ok := m.Load(key)
	if !ok {
		g.syncMapWrite(m, key)
		v, ok = m.LoadOrStore(key, value)
	}
	g.syncMapRead(m, key)
	return v, ok
}

// SyncMapLoadAndDelete is m.LoadAndDelete(key); an absent key is only
// looked up.
func SyncMapLoadAndDelete(g *G, m *sync.Map, key any) (any, bool) {
	g.syncMapEnter(m)
	g.stdOff++
	defer g.showStd()
	v, ok := m.Load(key)
	if ok {
		g.syncMapWrite(m, key)
		v, ok = m.LoadAndDelete(key)
	}
	g.syncMapRead(m, key)
	return v, ok
}

// SyncMapDelete is m.Delete(key); an absent key is only looked up.
func SyncMapDelete(g *G, m *sync.Map, key any) {
	g.syncMapEnter(m)
	g.stdOff++
	defer g.showStd()
	if _, ok := m.Load(key); !ok {
		g.syncMapRead(m, key)
		return
	}
	g.syncMapWrite(m, key)
	m.Delete(key)
}

// SyncMapSwap is m.Swap(key, value).
func SyncMapSwap(g *G, m *sync.Map, key, value any) (any, bool) {
	g.syncMapWrite(m, key)
	g.stdOff++
	defer g.showStd()
	v, ok := m.Swap(key, value)
	g.syncMapRead(m, key)
	return v, ok
}

// SyncMapCompareAndSwap is m.CompareAndSwap(key, old, new); an absent key
// is only looked up.
func SyncMapCompareAndSwap(g *G, m *sync.Map, key, old, new any) bool {
	return g.syncMapChangePresent(m, key, func() bool { return m.CompareAndSwap(key, old, new) })
}

// SyncMapCompareAndDelete is m.CompareAndDelete(key, old); an absent key
// is only looked up.
func SyncMapCompareAndDelete(g *G, m *sync.Map, key, old any) bool {
	return g.syncMapChangePresent(m, key, func() bool { return m.CompareAndDelete(key, old) })
}

// syncMapChangePresent runs change, an operation of m on key that may
// change it, if key is present, and returns its result: as under go
// -race, where these operations lock a node only for a key they find, an
// absent key is only looked up and releases nothing.
func (g *G) syncMapChangePresent(m *sync.Map, key any, change func() bool) bool {
	g.syncMapEnter(m)
	g.stdOff++
	defer g.showStd()
	ok := false
	if _, present := m.Load(key); present {
		g.syncMapWrite(m, key)
		ok = change()
	}
	g.syncMapRead(m, key)
	return ok
}

// SyncMapRange is m.Range(f); f runs after an acquire of its key's
// stripe.
func SyncMapRange(g *G, m *sync.Map, f func(key, value any) bool) {
	g.syncMapEnter(m)
	all, hidden := true, true
	g.stdOff++
	defer func() {
		if hidden { // else f panicked
			g.stdOff--
		}
	}()
	m.Range(func(k, v any) bool {
		g.syncMapRead(m, k)
		g.stdOff--
		hidden = false
		all = f(k, v)
		g.stdOff++
		hidden = true
		return all
	})
	if all {
		g.syncMapRangeEnd(m)
	}
}

// SyncMapClear is m.Clear().
func SyncMapClear(g *G, m *sync.Map) {
	g.syncMapClear(m)
	g.stdOff++
	defer g.showStd()
	m.Clear()
}

// stdSyncMapEnter, stdSyncMapRead, stdSyncMapWrite, stdSyncMapClear and
// stdSyncMapRangeEnd are called by sync.Map's methods in every build
// that splices package sync (driver.syncSplices), around the operation as
// the hooks above call them: uninstrumented code's maps order the
// instrumented code they publish.
//
//go:linkname stdSyncMapEnter
func stdSyncMapEnter(m *sync.Map) {
	if !syncMapUninited(m) {
		return
	}
	if g := stdCur(); g != nil {
		g.syncMapEnter(m)
	}
}

//go:linkname stdSyncMapRead
func stdSyncMapRead(m *sync.Map, key any) {
	if g := stdCur(); g != nil {
		g.syncMapRead(m, key)
	}
}

//go:linkname stdSyncMapWrite
func stdSyncMapWrite(m *sync.Map, key any) {
	if g := stdCur(); g != nil {
		g.syncMapWrite(m, key)
	}
}

//go:linkname stdSyncMapClear
func stdSyncMapClear(m *sync.Map) {
	if g := stdCur(); g != nil {
		g.syncMapClear(m)
	}
}

//go:linkname stdSyncMapRangeEnd
func stdSyncMapRangeEnd(m *sync.Map) {
	if g := stdCur(); g != nil {
		g.syncMapRangeEnd(m)
	}
}
