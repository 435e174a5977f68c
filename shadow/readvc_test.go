// Copyright 2026 The bigfoot Authors. All rights reserved.

package shadow

import (
	"math/rand"
	"testing"
)

// TestReadVCModel applies random sets, freezes and copies to read vector
// clocks and compares find, has and get with a map of the entries set and
// not frozen since: the placement by thread id (home, free) must find every
// entry whatever the clock's size, the collisions of thread ids and the
// entries frozen between them.
func TestReadVCModel(t *testing.T) {
	for seed := int64(1); seed <= 200; seed++ {
		rng := rand.New(rand.NewSource(seed))
		spread := []uint32{4, 16, 64, 5000}[seed%4] // dense to sparse thread ids
		var v *readVC
		model := map[uint32]uint64{} // tid -> clock of its live entry
		for op := 0; op < 400; op++ {
			tid := 1 + uint32(rng.Intn(int(spread)))
			switch r := rng.Intn(10); {
			case r < 6: // a read: set tid's entry
				c := model[tid] + 1 + uint64(rng.Intn(3))
				v = v.with(tid, c, uint32(op))
				model[tid] = c
			case r < 8 && v != nil: // a locked update freezes one entry
				i := rng.Intn(len(v.ents))
				if x := v.takeEntry(i); x != 0 {
					if model[x.TID()] != x.Clock() {
						t.Fatalf("seed %d op %d: entry %d held %v, model %d", seed, op, i, x, model[x.TID()])
					}
					delete(model, x.TID())
				}
			case r < 9 && v != nil: // the clock copied for another cell
				v = v.taken()
				if v == nil {
					model = map[uint32]uint64{}
				}
			case v != nil && rng.Intn(8) == 0: // a write drops it; the cell keeps it
				v.takeAll()
				v = v.reshared()
				model = map[uint32]uint64{}
			}
			for id := uint32(1); id <= spread; id++ {
				c, ok := model[id]
				if got := v.get(id); got != c {
					t.Fatalf("seed %d op %d: get(%d) = %d, model %d (ok %v)", seed, op, id, got, c, ok)
				}
				if ok && !v.has(MakeEpoch(id, c)) {
					t.Fatalf("seed %d op %d: has(%d@%d) false", seed, op, id, c)
				}
				if v.has(MakeEpoch(id, c+1)) {
					t.Fatalf("seed %d op %d: has(%d@%d) true", seed, op, id, c+1)
				}
			}
		}
	}
}

// TestReadVCHome checks that the entries of a read vector clock of dense
// thread ids sit at their homes, so that has looks at one entry.
func TestReadVCHome(t *testing.T) {
	var v *readVC
	for tid := uint32(1); tid <= 1000; tid++ {
		v = v.with(tid, 1, 0)
	}
	if len(v.ents) != 1024 {
		t.Fatalf("1000 readers: %d entries, want 1024", len(v.ents))
	}
	for tid := uint32(1); tid <= 1000; tid++ {
		if i := v.find(tid); i != home(tid, len(v.ents)) {
			t.Errorf("thread %d's entry at %d, home %d", tid, i, home(tid, len(v.ents)))
		}
	}
}
