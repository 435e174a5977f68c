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
				v = v.with(tid, c, uint32(op), nil)
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
		v = v.with(tid, 1, 0, nil)
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

// TestReadVCWrap checks that entries placed past the end of a read vector
// clock wrap around to its start: readers whose homes are all its last
// entry fill a clock of rvMin entries before it grows, and each is found.
func TestReadVCWrap(t *testing.T) {
	var v *readVC
	var tids []uint32
	for i := range uint32(rvMin) {
		tid := rvMin - 1 + i*rvMin // home rvMin-1
		tids = append(tids, tid)
		v = v.with(tid, uint64(i+1), 0, nil)
	}
	if len(v.ents) != rvMin {
		t.Fatalf("%d readers of one home: %d entries, want %d", rvMin, len(v.ents), rvMin)
	}
	for i, tid := range tids {
		if want := (rvMin - 1 + i) % rvMin; v.find(tid) != want {
			t.Errorf("thread %d's entry at %d, want %d", tid, v.find(tid), want)
		}
		if !v.has(MakeEpoch(tid, uint64(i+1))) || v.has(MakeEpoch(tid, uint64(i+2))) {
			t.Errorf("has of thread %d's entry wrong", tid)
		}
	}
	v = v.with(1, 9, 0, nil) // a fifth reader
	if len(v.ents) != 2*rvMin || v.get(1) != 9 {
		t.Fatalf("fifth reader: %d entries, its clock %d", len(v.ents), v.get(1))
	}
	for i, tid := range tids {
		if v.get(tid) != uint64(i+1) {
			t.Errorf("after growth, thread %d's clock %d, want %d", tid, v.get(tid), i+1)
		}
	}
}

// TestReadVCAtHome checks the cases the home entry decides alone (atHome)
// and the one it leaves to the search: the thread's entry there, in the
// epoch or an earlier one; a free home; another thread's entry there.
func TestReadVCAtHome(t *testing.T) {
	v := newReadVC(rvMin).with(1, 5, 0, nil).with(5, 3, 0, nil) // 5's home is 1's
	for _, c := range []struct {
		e        Epoch
		held, ok bool
	}{
		{MakeEpoch(1, 5), true, true},   // its entry, this epoch
		{MakeEpoch(1, 6), false, true},  // its entry, an earlier epoch
		{MakeEpoch(3, 1), false, true},  // a free home: no entry
		{MakeEpoch(5, 3), false, false}, // past its home
	} {
		held, ok := v.atHome(c.e)
		if held != c.held || ok != c.ok {
			t.Errorf("atHome(%d@%d) = %v, %v, want %v, %v", c.e.TID(), c.e.Clock(), held, ok, c.held, c.ok)
		}
	}
	if !v.has(MakeEpoch(5, 3)) || v.has(MakeEpoch(5, 4)) {
		t.Error("has of an entry past its home wrong")
	}
	// A frozen entry at the home is no thread's: the search goes on, and
	// finds an entry placed past it before it was frozen.
	v.takeEntry(1)
	if _, ok := v.atHome(MakeEpoch(5, 3)); ok || !v.has(MakeEpoch(5, 3)) {
		t.Error("frozen home: entry past it not found")
	}
}
