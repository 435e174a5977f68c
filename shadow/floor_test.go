// Copyright 2026 The bigfoot Authors. All rights reserved.

package shadow

import "testing"

// TestHBFloor checks that HB reads an entry of a clock that is missing or
// below the floor as the floor's, and only then.
func TestHBFloor(t *testing.T) {
	defer floor.Store(floor.Load())
	floor.Store(nil)
	vc := []uint64{0, 3}
	if HB(MakeEpoch(1, 4), vc) || HB(MakeEpoch(2, 1), vc) {
		t.Fatal("without a floor, HB holds beyond the clock")
	}
	SetFloor([]uint64{0, 4, 2})
	for _, tc := range []struct {
		e    Epoch
		want bool
	}{
		{MakeEpoch(1, 3), true},  // the clock's own entry
		{MakeEpoch(1, 4), true},  // the floor's entry above the clock's
		{MakeEpoch(1, 5), false}, // above both
		{MakeEpoch(2, 2), true},  // missing from the clock: the floor's
		{MakeEpoch(2, 3), false},
		{MakeEpoch(3, 1), false}, // missing from both
	} {
		if got := HB(tc.e, vc); got != tc.want {
			t.Errorf("HB(tid %d clock %d, %v) with floor %v = %v, want %v", tc.e.TID(), tc.e.Clock(), vc, Floor(), got, tc.want)
		}
	}
}
