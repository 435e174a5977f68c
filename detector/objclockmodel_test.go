// Copyright 2026 The bigfoot Authors. All rights reserved.

package detector

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestAcquireDominated: an acquire by the goroutine whose clock is known
// to be at least the object's (its last acquirer, or the goroutine whose
// clock the object copied) is skipped; a release by another goroutine
// ends that, and the next acquire gets the other's entries.
func TestAcquireDominated(t *testing.T) {
	g, h := wideG(40), wideG(50)
	v := g.newSyncVar(0)
	v.releaseBy(g)
	g.tick()
	if v.dom != g.serial {
		t.Fatalf("after g's release, dom = %d, want g's serial %d", v.dom, g.serial)
	}
	before := slices.Clone(g.t.VC)
	g.acquireFrom(v)
	if !slices.Equal(g.t.VC, before) {
		t.Errorf("g's acquire of its own release changed its clock: %v, was %v", g.t.VC, before)
	}

	v.releaseBy(h)
	hClock := slices.Clone(h.t.VC)
	h.tick()
	if v.dom == g.serial {
		t.Fatal("after h's release, the object still names g")
	}
	g.acquireFrom(v)
	if !below(hClock, g.t.VC) {
		t.Errorf("g's clock %v does not include h's release %v", g.t.VC, hClock)
	}
}

// TestSyncObjectClockModel compares sync objects' clocks, and the clocks
// goroutines acquire from them, with plain vector clocks on random
// operations: releases, acquires, atomic operations (acquire, then the
// release of the clock just acquired), takes and ticks, by goroutines of
// clocks narrower and wider than an object's inline clock. Every acquire
// of the model joins; the detector skips the dominated ones (dom), shares
// frozen clocks and trims: what each goroutine's clock orders must be the
// same.
func TestSyncObjectClockModel(t *testing.T) {
	r := rand.New(rand.NewPCG(29, 1))
	skipped := 0
	for round := range 50 {
		var gs []*G
		for i := range 2 + r.IntN(4) {
			if i%2 == 0 {
				gs = append(gs, wideG(8+r.IntN(40)))
			} else {
				gs = append(gs, newG(nil, 0, 0, 0))
			}
		}
		model := make([][]uint64, len(gs))
		for i, g := range gs {
			model[i] = slices.Clone(g.t.VC)
		}
		vs := make([]*syncVar, 1+r.IntN(3))
		vm := make([][]uint64, len(vs))
		for j := range vs {
			vs[j] = gs[0].newSyncVar(0)
		}
		for step := range 300 {
			i, j := r.IntN(len(gs)), r.IntN(len(vs))
			g, v := gs[i], vs[j]
			v.mu.Lock()
			if v.dom == g.serial {
				skipped++
			}
			switch op := r.IntN(5); op {
			case 0: // release
				v.releaseBy(g)
				vm[j] = join(vm[j], model[i])
			case 1: // acquire
				v.acquireBy(g)
				model[i] = join(model[i], vm[j])
			case 2: // atomic operation
				v.acquireBy(g)
				model[i] = join(model[i], vm[j])
				v.releaseAcquired(g)
				vm[j] = join(vm[j], model[i])
			case 3: // take
				v.acquireBy(g)
				model[i] = join(model[i], vm[j])
				v.reset()
				vm[j] = nil
			case 4: // an acquisition from elsewhere: another goroutine's clock
				k := r.IntN(len(gs))
				g.joinClock(gs[k].t.VC)
				model[i] = join(model[i], model[k])
			}
			v.mu.Unlock()
			if r.IntN(2) == 0 {
				g.tick()
				model[i][g.tid]++
			}
			for k, o := range gs {
				if !below(model[k], o.t.VC) || !below(o.t.VC, model[k]) {
					t.Fatalf("round %d step %d: goroutine %d's clock %v, the model's %v", round, step, k, o.t.VC, model[k])
				}
			}
			for k, o := range vs {
				if got := clockOf(o); !below(vm[k], got) || !below(got, vm[k]) {
					t.Fatalf("round %d step %d: object %d's clock %v, the model's %v", round, step, k, got, vm[k])
				}
			}
		}
	}
	if skipped == 0 {
		t.Error("no acquire was dominated: the test does not exercise dom")
	}
}

// TestReleaseAfterAcquireShares: a goroutine that acquired an object whose
// clock another goroutine's release made (a task's context, made by the
// submitter) and releases into it shares its own frozen clock, as the
// other objects it releases into in a row do, instead of giving the
// object a copy of its own.
func TestReleaseAfterAcquireShares(t *testing.T) {
	submitter, worker := wideG(40), wideG(40)
	var objs [2]*syncVar
	for i := range objs {
		objs[i] = submitter.newSyncVar(0)
		objs[i].releaseBy(submitter)
		submitter.tick()
	}
	for _, v := range objs {
		worker.acquireFrom(v)
	}
	for i, v := range objs {
		want := slices.Clone(worker.t.VC)
		v.mu.Lock()
		v.releaseBy(worker)
		v.mu.Unlock()
		worker.tick()
		if !v.shared || !sameArray(v.vc, worker.frozen) {
			t.Errorf("object %d: the worker's release does not share its frozen clock", i)
		}
		if got := clockOf(v); !slices.Equal(got, want) {
			t.Errorf("object %d: clock %v, want the worker's %v", i, got, want)
		}
	}
}

// TestHotObjectOwnsClock: an object that goroutines take turns to acquire
// and release into (an atomic variable many goroutines load) shares each
// one's frozen clock only refreezeLimit times, each a new copy since the
// goroutine's clock changed with the acquire; then it gets a clock of its
// own, which later turns overwrite without an allocation, and which
// stays the last releaser's.
func TestHotObjectOwnsClock(t *testing.T) {
	g, h := wideG(40), wideG(40)
	v := g.newSyncVar(0)
	v.releaseBy(g)
	g.tick()
	elsewhere := make([]uint64, 40)
	turn := func(x *G) {
		// x learns of another goroutine's progress first (entry 39):
		// its clock changes beyond its own entry, so sharing it takes a
		// new copy.
		elsewhere[39] += 100
		x.joinClock(elsewhere)
		v.mu.Lock()
		v.acquireBy(x)
		v.releaseAcquired(x)
		v.mu.Unlock()
		x.tick()
	}
	for i := range refreezeLimit {
		turn([]*G{h, g}[i%2])
		if !v.shared {
			t.Fatalf("turn %d: the object has a clock of its own, want a shared one until %d copies", i, refreezeLimit)
		}
	}
	turn(h)
	if v.shared {
		t.Fatalf("after %d copies the object still shares a frozen clock", refreezeLimit+1)
	}
	var want []uint64
	allocs := testing.AllocsPerRun(20, func() {
		turn(g)
		want = slices.Clone(g.t.VC)
		want[g.tid]--
		turn(h)
		want = slices.Clone(h.t.VC)
		want[h.tid]--
	})
	if allocs > 2 { // the clones
		t.Errorf("turns on an object of its own clock: %v allocations, want only the test's clones", allocs)
	}
	if got := clockOf(v); !slices.Equal(trim(got, 0), trim(want, 0)) {
		t.Errorf("the object's clock %v, want the last releaser's %v", got, want)
	}
}
