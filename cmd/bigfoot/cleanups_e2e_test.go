package main

import "testing"

// TestCleanups runs the programs of testdata/cleanups, whose races depend
// on how finalizers and cleanups are ordered (a batch's start after every
// goroutine, each cleanup of a batch in a context of its own), 10 times
// each under go test -race and bigfoot in every mode: every TestRace*
// test is reported in every run by both, no TestNoRace* test ever. Before
// the runtime called the detector where go -race's runtime calls
// racefingo and enters a cleanup's context (driver/cleanuphook.go), the
// cleanups of a batch ran on one state and TestRaceBetweenCleanups was
// missed in every mode.
func TestCleanups(t *testing.T) {
	checkRaceTests(t, "../../testdata/cleanups", 10, nil)
}
