// Copyright 2026 The bigfoot Authors. All rights reserved.

package main

import (
	"strings"
	"testing"
)

// TestCurSlotUnderBigfoot runs the detector's TestCurSlot in a bigfoot
// build of the detector's tests, the only build whose runtime has the
// goroutine hooks that Cur's load from the g relies on (under go test it
// skips). TestPatchGoroutines requires the hooks to apply to this
// toolchain, so here the test must run and pass, not skip.
func TestCurSlotUnderBigfoot(t *testing.T) {
	r := bigfootCmd(t, "../../detector", "test", "-count=1", "-run", "^TestCurSlot$", "-v", ".")
	if r.code != 0 || !strings.Contains(r.stdout, "--- PASS: TestCurSlot") {
		t.Errorf("bigfoot test -run TestCurSlot ./detector: %v", r)
	}
}
