// Copyright 2026 The bigfoot Authors. All rights reserved.

package shadow

// Object identity across GC cycles: holds, then weak pointers.
//
// State shared by two goroutines is kept across GC cycles only while the
// heap object it was recorded for still occupies its memory (gc.go). A
// weak pointer proves it, but making one is expensive where it is needed
// most: the runtime keeps one weak handle per object in a list per span
// sorted by address, and weak.Make walks that list twice (getWeakHandle,
// then addspecial) to the object's place. A program that hands fresh
// records from goroutine to goroutine adopts them in allocation order, so
// each walk passes every earlier record of the span that has a handle (up
// to a few hundred, dead ones included until the span is swept): about a
// fifth of the pipeline workload's CPU time.
//
// So adoption of a small object holds it instead: the ident keeps a
// pointer to the object, which therefore cannot be freed, and goes on a
// list. Once about holdBatch objects are held, and at every sweep (after a
// GC cycle, or between cycles, settle.go), a release replaces every hold
// by a weak pointer, made in descending address order so that each
// insertion stops at the head of its span's list. The proof is as exact as
// a weak pointer made at adoption: while held, the object is the one the
// state was recorded for; afterwards, the weak pointer says.
//
// Holding keeps an object that became unreachable alive until the next
// release. Go does not promise when an unreachable object is collected,
// but programs do call runtime.GC and then expect a finalizer to have run
// or a weak pointer to be nil; the instrumented program's runtime.GC and
// debug.FreeOSMemory calls therefore release every hold first
// (ReleaseHolds). Objects larger than holdMax get their weak pointer at
// adoption: holding them could keep much memory alive longer, and their
// weak pointer serves many granules. So do objects with pointers: a small
// header held would keep whatever it points to alive too (a request and
// its body); whether a span's objects hold pointers is read from its span
// class (object.go).
//
// Where bigfoot's driver built the program, the runtime counts the
// allocations over each word of the heap (version.go), and an ident is
// proven by that count instead: the version of the word at its base when
// the ident was made, which stays the current one as long as no other
// object was allocated there (nor, for a large object, its own freed).
// Such an ident neither holds its object nor makes a weak pointer, and
// costs a lookup in the runtime's span table to check.

import (
	"sync/atomic"
	"unsafe"
	"weak"

	"github.com/bigfoot-go/bigfoot/internal/ownheap"
	"github.com/bigfoot-go/bigfoot/internal/spin"
)

// An ident proves that the heap object at base is still the one some
// shadow state was recorded for.
type ident struct {
	base uintptr
	// held is the object while the ident holds it: from adoption until
	// its release. wp is written before held is cleared, and read
	// only after a load of held finds it cleared.
	held atomic.Pointer[byte]
	wp   weak.Pointer[byte]

	// versioned says the proof is ver, the allocation version of the
	// object at base when at most vgen GC cycles had completed (see
	// versionLive). Both are set before the ident is published.
	versioned bool
	ver       uint8
	vgen      atomic.Uint32
}

// proveVersion gives a new ident the allocation version of its object as
// proof, if the runtime keeps versions and base is an object's base. The
// caller keeps the object reachable.
func (id *ident) proveVersion() bool {
	if runtimeVersionPage == nil {
		return false
	}
	return id.proveVersionAt(versionSource(runtimeVersionPage).at, uint32(exactGen())) // the count before the version: see versionSpan
}

// proveVersionAt is proveVersion with the lookup f, after n cycles.
func (id *ident) proveVersionAt(f func(uintptr) (uint8, bool), n uint32) bool {
	v, ok := f(id.base)
	if !ok {
		return false
	}
	id.ver, id.versioned = v, true
	id.vgen.Store(n)
	return true
}

// versionLive reports whether the object a versioned ident was made for
// still occupies its memory.
func (id *ident) versionLive() bool {
	return id.versionLiveAt(versionSource(runtimeVersionPage).at, uint32(exactGen()))
}

// versionLiveAt is versionLive with the lookup f, after n cycles: the
// version at base is unchanged and fewer than versionSpan cycles completed
// since it was last proven so. A proof that holds is renewed with n, read
// before the version, so an ident in use never ages out.
func (id *ident) versionLiveAt(f func(uintptr) (uint8, bool), n uint32) bool {
	g := id.vgen.Load()
	if !versionHolds(f, id.base, id.ver, g, n) {
		return false
	}
	// Monotonic: a concurrent renewal with a newer count wins.
	for g < n && !id.vgen.CompareAndSwap(g, n) {
		g = id.vgen.Load()
	}
	return true
}

// newIdent returns an ident for the heap object at base, which the caller
// keeps reachable, proven now: by its allocation version where the runtime
// keeps them, else by a weak pointer.
func newIdent(base uintptr) *ident {
	id := ownheap.New[ident]()
	id.base = base
	if !id.proveVersion() {
		id.makeWeak()
	}
	return id
}

// makeWeak gives a new ident a weak pointer to its object, which the
// caller keeps reachable.
func (id *ident) makeWeak() {
	m := ownheap.Begin()
	id.wp = weak.Make((*byte)(ptrOf(id.base)))
	m.End()
}

// value returns a pointer to the object the ident was made for, or nil if
// the object died.
func (id *ident) value() *byte {
	if p := id.held.Load(); p != nil {
		return p
	}
	return id.wp.Value()
}

// live reports whether the object the ident was made for still occupies
// its memory.
func (id *ident) live() bool {
	if id.versioned {
		return id.versionLive()
	}
	return id.value() != nil
}

// holdMax is the largest object (slot size) adoption holds instead of
// giving it a weak pointer at once.
const holdMax = 1 << 10

// holdBatch is about how many objects are held at once: a shard that
// reaches its part of it starts a release. Held objects and the shadow
// state that refers to them stay alive until then; releasing only at
// sweeps kept a GC interval of handed-off records and their granules live
// at each cycle, and tripled the pipeline workload's peak RSS.
const holdBatch = 1 << 12

// holdLag is how many times its part of holdBatch a shard may hold before
// the adopting goroutine releases itself.
const holdLag = 2

// holdShards spreads the list of held idents over locks, by thread id, so
// that goroutines adopting records at the same time do not contend.
const holdShards = 8

var holds [holdShards]struct {
	mu  spin.Mutex
	ids []*ident
	_   [64 - unsafe.Sizeof(spin.Mutex{}) - unsafe.Sizeof([]*ident{})]byte // a cache line's size per shard
}

// releasing serializes releases: ReleaseHolds must not return while
// a concurrent release still holds idents it took.
var releasing spin.Mutex

// prove gives a new ident its proof, for an object of slot size size (0
// if unknown) that thread t keeps reachable: its allocation version where
// the runtime keeps them, else a hold if the object is small and holds no
// pointers, a weak pointer otherwise.
func (id *ident) prove(t *Thread, size uintptr, noscan bool) {
	if id.proveVersion() {
		return
	}
	if size == 0 || size > holdMax || !noscan {
		id.makeWeak()
		return
	}
	id.held.Store((*byte)(ptrOf(id.base)))
	h := &holds[t.Epoch.TID()%holdShards]
	h.mu.Lock()
	h.ids = ownheap.Append(h.ids, id)
	n := len(h.ids)
	h.mu.Unlock()
	switch part := holdBatch / holdShards; {
	case n >= holdLag*part:
		// The release goroutine lags behind the adoptions (the machine
		// is busy): the adopting goroutine releases itself, or the
		// holds, and the state that refers to them, would pile up (up
		// to 7,500 records, when only a goroutine of its own released).
		if releasing.TryLock() {
			releaseLocked()
			releasing.Unlock()
		}
	case n >= part:
		// A goroutine of its own releases, off the adopting goroutine's
		// path: in a pipeline, the goroutine that adopts every record
		// (its last stage, which reads what the others wrote) is the
		// one that sets the pace.
		releaseLater()
	}
}

// ReleaseHolds replaces the hold of every held ident by a weak pointer,
// in descending address order, before it returns, so that a GC cycle
// started next collects every unreachable object. The runtime calls it
// before the program's runtime.GC and debug.FreeOSMemory.
func ReleaseHolds() {
	releasing.Lock()
	defer releasing.Unlock()
	releaseLocked()
}

// releaseLocked is ReleaseHolds with releasing held.
func releaseLocked() {
	ids := releaseBuf[:0]
	for i := range holds {
		h := &holds[i]
		h.mu.Lock()
		ids = ownheap.Append(ids, h.ids...)
		clear(h.ids)
		h.ids = h.ids[:0]
		h.mu.Unlock()
	}
	sortDescending(ids)
	m := ownheap.Begin()
	for _, id := range ids {
		id.wp = weak.Make(id.held.Load())
		id.held.Store(nil)
	}
	m.End()
	clear(ids)
	releaseBuf = ids
}

// releaseBuf is releaseLocked's list of the idents it releases, kept
// (empty) between releases; guarded by releasing.
var releaseBuf []*ident

var releaseRunning atomic.Bool

// releaseLater runs ReleaseHolds in a goroutine of its own unless one is
// running: sweeps start it, and may be started from a goroutine that is
// checking an access.
func releaseLater() {
	if releaseRunning.CompareAndSwap(false, true) {
		goBackground(func() {
			defer releaseRunning.Store(false)
			ReleaseHolds()
		})
	}
}

// sortDescending sorts ids by base address, highest first (heapsort: the
// shadow does not use the standard library's sort, which may be
// instrumented).
func sortDescending(ids []*ident) {
	// A min-heap on base: popping the minimum to the end leaves the
	// slice in descending order.
	less := func(i, j int) bool { return ids[i].base < ids[j].base }
	down := func(i, n int) {
		for {
			c := 2*i + 1
			if c >= n {
				return
			}
			if c+1 < n && less(c+1, c) {
				c++
			}
			if !less(c, i) {
				return
			}
			ids[i], ids[c] = ids[c], ids[i]
			i = c
		}
	}
	n := len(ids)
	for i := n/2 - 1; i >= 0; i-- {
		down(i, n)
	}
	for end := n - 1; end > 0; end-- {
		ids[0], ids[end] = ids[end], ids[0]
		down(0, end)
	}
}
