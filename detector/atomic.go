// Copyright 2026 The bigfoot Authors. All rights reserved.

package detector

//go:generate go run ./internal/genatomic -o atomic_gen.go

import "unsafe"

// An atomic variable is a sync object. The wrappers in atomic_gen.go run
// the operation with the variable's clock locked, so that the order of the
// operations and of their clocks agree: a load acquires what every earlier
// operation released, a store releases before its value is visible. Every
// operation both acquires and releases, which totally orders all atomic
// operations on one variable. That is more synchronization than the memory
// model's edges (a load does not happen before a later store), but it lets
// each atomic operation be checked against plain accesses to the same
// memory as an ordinary read (loads) or write (the others) without atomic
// operations ever racing with each other, so a plain access racing with an
// atomic one is reported.

type atomicOp uint8

const (
	atomicLoad atomicOp = iota
	atomicStore
	atomicRMW
)

// atomicBegin locks the sync object of the variable at p, acquires it and
// checks the access; atomicEnd releases and unlocks. A nil p locks nothing (the operation itself then panics).
func (g *G) atomicBegin(p unsafe.Pointer, size uintptr, op atomicOp) *syncVar {
	a := uintptr(p)
	if a == 0 {
		return nil
	}
	g.yield()
	g.countSync()
	v := g.lockSync(a, true)
	v.acquireBy(g)
	g.check(p, size, op != atomicLoad, hookSite(hookAtomic))
	return v
}

func (g *G) atomicEnd(v *syncVar) {
	if v == nil {
		return
	}
	v.releaseAcquired(g)
	v.mu.Unlock()
	g.tick()
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
	v.vc = trim(append(v.vc[:0], g.t.VC...), 0)
	v.dom = g.serial
}
