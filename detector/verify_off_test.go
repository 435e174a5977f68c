// Copyright 2026 The bigfoot Authors. All rights reserved.

//go:build !bigfoot_verify

package detector

import "testing"

// Without the bigfoot_verify tag, A records nothing and returns p; it
// counts the access with bigfoot_count.
func TestVerifyOff(t *testing.T) {
	x := new(int64)
	sink = x
	expect(t, false, func(g *G) {
		before := g.accesses
		p := A(g, x, true, 0)
		if n := g.accesses - before; countAccesses && n != 1 || !countAccesses && n != 0 {
			t.Errorf("A counted %d accesses with bigfoot_count=%v", n, countAccesses)
		}
		if p != x {
			t.Errorf("A returned %p, want %p", p, x)
		}
		if g.verify != nil {
			t.Errorf("A recorded an access without bigfoot_verify")
		}
	})
}

var sink any
