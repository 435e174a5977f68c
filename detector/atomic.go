// Copyright 2026 The bigfoot Authors. All rights reserved.

package detector

//go:generate go run ./internal/genatomic -o atomic_gen.go

import (
	"github.com/bigfoot-go/bigfoot/internal/ownheap"
	"unsafe"
)

// An atomic variable is a sync object, synchronized as Go's race
// detector synchronizes it (its runtime's atomic entry points): a load
// acquires, a store releases, a read-modify-write (Add, And, Or, Swap, a
// CompareAndSwap that swaps) acquires and releases, and a CompareAndSwap
// that fails only acquires. A load thus orders nothing after itself and
// a store nothing before itself: a goroutine that writes x and then loads
// a flag another goroutine stored is not ordered before that goroutine's
// next load of the flag, and go -race reports a race on x between them.
// A store joins its clock into the variable's, where ThreadSanitizer's
// release-store replaces it: a load then acquires every earlier store's
// release, not only the last one's, which may miss a race go -race
// reports after two stores of different goroutines but never reports
// one it does not.
//
// The wrappers in atomic_gen.go run the operation with the variable's
// lock held, so that the order of the operations and of their clocks
// agree: a load acquires what every earlier store released, a store
// releases before its value is visible.
//
// Each operation is also checked against the plain accesses of its bytes,
// as a read (loads) or a write (the others), with shadow.Thread.Atomic
// set: a plain access racing with an atomic one is reported both ways, and
// two atomic operations, ordered or not, never conflict (a store after
// another goroutine's load of the variable orders nothing between them).

type atomicOp uint8

const (
	atomicLoad atomicOp = iota
	atomicStore
	atomicRMW
)

// atomicBegin locks the sync object of the variable at p, acquires it
// unless op is a store, and checks the access; atomicEnd (atomicEndCAS)
// releases unless op is a load (a CompareAndSwap that failed) and
// unlocks. A nil p locks nothing (the operation itself then panics).
// Nor does a variable on the goroutine's own stack: only the goroutine
// can reach it (a variable another goroutine reaches escapes to the
// heap), so its operations order nothing and race with nothing, and a
// sync object for it, which no sweep would drop (it proves no heap
// object), would outlive the frame: a goroutine's stack of atomics, a
// thousand goroutines at a time, grew the heap by 40 MB a round.
//
// The pending checks are made first, as before every synchronization,
// but for a load whose acquire joins nothing (the variable's clock is
// within the goroutine's, syncVar.dom: it loaded the variable before and
// nobody stored since), which then only counts itself (syncs,
// acquires_spared) and keeps the goroutine's span going: a goroutine that
// loads one variable again and again (math/rand's global generator at
// each rand.Int63n, a buffer's length loaded at each lookup) does not
// end its span at each load. Counting and verifying builds, and a
// goroutine asked for a snapshot (frontier.go), make every load in full.
// Every operation counts as both an acquire and a release (countSync) for
// the verifier, as the static pass counts it: a check is never moved
// across an atomic operation.
func (g *G) atomicBegin(p unsafe.Pointer, size uintptr, op atomicOp) *syncVar {
	a := uintptr(p)
	if a == 0 || onStack(g, p) {
		return nil
	}
	g.yield()
	var v *syncVar
	switch op {
	case atomicLoad:
		if v = g.lockSync(a, true); v.dom == g.serial && !countAccesses && !verifyChecks && snapReq.Load() == g.snapSeen {
			g.syncs++
			g.acquiresSpared++
			break
		}
		v.mu.Unlock() // not across the commit, which may wait for the sweeper
		g.countSync()
		v = g.lockSync(a, true)
		v.acquireBy(g)
	case atomicStore:
		g.countSync()
		v = g.lockSync(a, true)
	default:
		g.countSync()
		v = g.lockSync(a, true)
		v.acquireBy(g)
	}
	site := hookSite(hookAtomic)
	g.t.Atomic = site
	g.check(p, size, op != atomicLoad, site)
	g.t.Atomic = 0
	return v
}

// atomicEnd ends the operation atomicBegin began on v with op.
func (g *G) atomicEnd(v *syncVar, op atomicOp) {
	if v == nil {
		return
	}
	switch op {
	case atomicLoad:
		v.mu.Unlock()
		return
	case atomicStore:
		v.releaseBy(g)
	default:
		v.releaseAcquired(g)
	}
	v.mu.Unlock()
	g.tick()
}

// atomicEndCAS is atomicEnd of a CompareAndSwap, which releases only if
// *swapped: a failed one only acquired, as a load.
func (g *G) atomicEndCAS(v *syncVar, swapped *bool) {
	if *swapped {
		g.atomicEnd(v, atomicRMW)
	} else {
		g.atomicEnd(v, atomicLoad)
	}
}

// releaseAcquired is releaseBy of a goroutine that acquired v under the
// same lock, its clock unchanged since: its clock includes v's, so the
// join is its clock, copied into v's own clock (one memmove, where a
// join compares every entry) when v has one.
func (v *syncVar) releaseAcquired(g *G) {
	if v.shared || len(v.vc) == 0 || len(g.t.VC) <= len(v.inline) {
		v.releaseBy(g)
		return
	}
	v.vc = trim(ownheap.Append(v.vc[:0], g.t.VC...), 0)
	v.dom = g.serial
}

// An acquire that joins nothing.
//
// The goroutine's deferred checks are made before each synchronization
// so that each is judged against the clock its access had, and before a
// release so that nobody ordered after the access checks the memory
// before the access is recorded. An acquire that releases nothing and
// joins nothing into the goroutine's clock needs neither: no clock
// changes. That is an acquire of an object never released (none) or of
// one whose clock the goroutine's is known to include (syncVar.dom: it
// acquired it last, or released into it what it had acquired): package
// reflect's type caches (sync.Map loads) at every call of a function
// that compares values by reflection, a mutex locked again by its last
// holder, a once done. It then only counts itself (syncs,
// acquires_spared): no commit, no snapshot (unless a sweep asked for
// one: the snapshot needs the commit, frontier.go), and the goroutine's
// span goes on.
// Counting and verifying builds make it in full.
// TestAcquireNothing, TestAcquireNothingRaces.

// acquiresNothing reports whether an acquire of the object at addr would
// join nothing into g's clock, and counts it if so.
func (g *G) acquiresNothing(addr uintptr) bool {
	if countAccesses || verifyChecks || snapReq.Load() != g.snapSeen {
		return false
	}
	v := g.lockSync(addr, false)
	if v != nil {
		dom := v.dom == g.serial
		v.mu.Unlock()
		if !dom {
			return false
		}
	}
	g.syncs++
	g.acquiresSpared++
	return true
}
