// Copyright 2026 The bigfoot Authors. All rights reserved.

//go:build !bigfoot_verify

package detector

import "testing"

// Without the bigfoot_verify tag, A records nothing and returns p.
func TestVerifyOff(t *testing.T) {
	x := new(int64)
	sink = x
	expect(t, false, func(g *G) {
		if p := A(g, x, true, 0); p != x {
			t.Errorf("A returned %p, want %p", p, x)
		}
		if g.verify != nil {
			t.Errorf("A recorded an access without bigfoot_verify")
		}
	})
}

var sink any
