// Copyright 2026 The bigfoot Authors. All rights reserved.

package detector

import (
	"math/rand"
	"slices"
	"testing"
	"unsafe"

	"github.com/bigfoot-go/bigfoot/shadow"
)

// wideG returns a goroutine state whose clock is wider than a sync
// object's inline clock, with an entry for each of width thread ids.
func wideG(width int) *G {
	vc := make([]uint64, width)
	for i := range vc {
		vc[i] = uint64(i + 1)
	}
	return newG(vc, 0, 0, 0)
}

// sameAboveFloor reports whether the clocks a and b are equal but for the
// entries at their ends that the floor covers: a release trims those
// (trim), and the floor is the process's, which sweeps of other tests'
// objects raise.
func sameAboveFloor(a, b []uint64) bool {
	f := shadow.Floor()
	return slices.Equal(trimTo(a, 0, f), trimTo(b, 0, f))
}

// clockOf returns v's clock as an acquirer sees it.
func clockOf(v *syncVar) []uint64 {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.joinInto(nil)
}

// TestSyncObjectsShareClock: the objects a goroutine releases into in a
// row, its clock changing only in its own entry, share one copy of its
// clock, each with the goroutine's own entry as of its release; a release
// by another goroutine gives an object a clock of its own, the join of
// both; an acquirer gets exactly the released clock.
func TestSyncObjectsShareClock(t *testing.T) {
	g := wideG(40)
	var objs [3]*syncVar
	var want [3][]uint64
	for i := range objs {
		objs[i] = g.newSyncVar(0)
		want[i] = slices.Clone(g.t.VC)
		objs[i].releaseBy(g)
		g.tick()
	}
	for i, v := range objs {
		if !v.shared || !sameArray(v.vc, objs[0].vc) {
			t.Errorf("object %d does not share the clock of object 0", i)
		}
		if got := clockOf(v); !sameAboveFloor(got, want[i]) {
			t.Errorf("object %d: clock %v, want %v", i, got, want[i])
		}
	}

	// The goroutine acquires more: its next release into a shared object
	// shares its new clock, which includes the old.
	h := wideG(50)
	v := h.newSyncVar(0)
	v.releaseBy(h)
	g.acquireFrom(v)
	objs[0].releaseBy(g)
	if !objs[0].shared || sameArray(objs[0].vc, objs[1].vc) {
		t.Error("a release after an acquire shares the old frozen clock")
	}
	if got := clockOf(objs[0]); !sameAboveFloor(got, g.t.VC) {
		t.Errorf("clock %v after the goroutine's second release, want %v", got, g.t.VC)
	}

	// Another goroutine's release: a clock of the object's own.
	want1 := join(clockOf(objs[1]), h.t.VC)
	objs[1].releaseBy(h)
	if objs[1].shared {
		t.Error("an object released into by two goroutines still shares a clock")
	}
	if got := clockOf(objs[1]); !sameAboveFloor(got, want1) {
		t.Errorf("clock %v after a second goroutine's release, want %v", got, want1)
	}

	// An acquirer gets the shared clock and the raised own entry.
	a := newG(nil, 0, 0, 0)
	a.acquireFrom(objs[2])
	if !below(want[2], a.t.VC) {
		t.Errorf("acquirer's clock %v does not include the released %v", a.t.VC, want[2])
	}
}

// acquireFrom acquires v, as acquire does with the object at an address.
func (g *G) acquireFrom(v *syncVar) {
	v.mu.Lock()
	v.acquireBy(g)
	v.mu.Unlock()
}

// TestTakeEmpties: taking a handoff's clock gives the acquirer its
// entries and empties it, so that no copy of a subtest's clock stays with
// its T or its channel once its parent received (testingTake).
func TestTakeEmpties(t *testing.T) {
	g := wideG(40)
	key := new(int)
	a := uintptr(unsafe.Pointer(key))
	g.release(a)
	released := slices.Clone(g.t.VC)
	released[g.tid]--
	c := newG(nil, 0, 0, 0)
	c.take(a)
	if !below(released, c.t.VC) {
		t.Errorf("taker's clock %v does not include the released %v", c.t.VC, released)
	}
	v := c.lockSync(a, false)
	if v == nil {
		t.Fatal("the key's sync object is gone")
	}
	n := len(v.vc)
	v.mu.Unlock()
	if n != 0 {
		t.Errorf("the key keeps %d entries after the take, want 0", n)
	}
}

// sameArray reports whether a and b, not empty, start at the same element.
func sameArray(a, b []uint64) bool {
	return len(a) > 0 && len(b) > 0 && &a[0] == &b[0]
}

// TestSameBut compares sameBut with a loop over the entries, for clocks
// of every length up to 40 that differ at no entry, at the skipped one,
// or at one or two others.
func TestSameBut(t *testing.T) {
	r := rand.New(rand.NewSource(2))
	for n := 1; n <= 40; n++ {
		for round := 0; round < 50; round++ {
			a := make([]uint64, n)
			for j := range a {
				a[j] = uint64(r.Intn(5))
			}
			b := append([]uint64(nil), a...)
			i := r.Intn(n)
			for k := r.Intn(3); k > 0; k-- {
				b[r.Intn(n)]++
			}
			want := true
			for j := range a {
				if a[j] != b[j] && j != i {
					want = false
				}
			}
			if got := sameBut(a, b, i); got != want {
				t.Fatalf("sameBut(%v, %v, %d) = %v, want %v", a, b, i, got, want)
			}
		}
	}
}
