// Copyright 2026 The bigfoot Authors. All rights reserved.

package detector

import (
	"math/rand/v2"
	"slices"
	"testing"
	"unsafe"
)

// TestAtomicClocksModel: atomic operations of goroutines with wide clocks
// on a few variables, of every kind in a random order, leave every
// variable's clock and every goroutine's as go -race's rules would: a
// load acquires, a store releases (joins), a read-modify-write and a
// CompareAndSwap that swaps do both, a CompareAndSwap that fails only
// acquires; a release ends the goroutine's epoch (releaseAcquired copies
// where releaseBy joins).
func TestAtomicClocksModel(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	gs := make([]*G, 5)
	model := make([][]uint64, len(gs))
	for i := range gs {
		gs[i] = wideG(20 + 10*i)
		model[i] = slices.Clone(gs[i].t.VC)
	}
	vars := make([]*uint64, 3)
	vmodel := make([][]uint64, len(vars))
	for i := range vars {
		vars[i] = new(uint64)
		forgetSync(uintptr(unsafe.Pointer(vars[i])))
	}
	for op := 0; op < 2000; op++ {
		i, j := rng.IntN(len(gs)), rng.IntN(len(vars))
		g := gs[i]
		if rng.IntN(4) == 0 {
			// A release elsewhere changes the goroutine's clock in more
			// than its own entry before the next operation.
			h := gs[rng.IntN(len(gs))]
			if h != g {
				g.joinClock(h.t.VC)
				model[i] = join(model[i], h.t.VC)
			}
		}
		op := atomicOp(rng.IntN(3))
		failed := op == atomicRMW && rng.IntN(3) == 0 // a CompareAndSwap that fails
		v := g.atomicBegin(unsafe.Pointer(vars[j]), 8, op)
		if op != atomicStore {
			model[i] = join(model[i], vmodel[j])
		}
		switch {
		case failed:
			swapped := false
			g.atomicEndCAS(v, &swapped)
		default:
			g.atomicEnd(v, op)
		}
		if op != atomicLoad && !failed {
			vmodel[j] = join(vmodel[j], model[i])
			model[i][g.tid]++
		}
		if got := clockOf(v); !sameClock(got, vmodel[j]) {
			t.Fatalf("op %d: variable %d's clock %v, want %v", op, j, got, vmodel[j])
		}
		if !sameClock(g.t.VC, model[i]) {
			t.Fatalf("op %d: goroutine %d's clock %v, want %v", op, i, g.t.VC, model[i])
		}
	}
}

// forgetSync drops the sync object at addr that an earlier test's
// variable, freed and its memory reused, may have left. Without the
// runtime's allocation versions (these tests run on a plain runtime) the
// detector keeps such a clock, an over-synchronization (renew), which a
// model starting from empty clocks does not expect.
func forgetSync(addr uintptr) {
	if v := syncs.Load(addr); v != nil {
		v.mu.Lock()
		v.deleted = true
		syncs.CompareAndDelete(addr, v)
		v.mu.Unlock()
	}
}

// sameClock reports whether a and b are the same clock, an entry missing
// or below the floor reading as the floor's.
func sameClock(a, b []uint64) bool { return below(a, b) && below(b, a) }
