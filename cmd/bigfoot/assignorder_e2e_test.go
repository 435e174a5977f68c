package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestAssignOrderGoRace checks the premise of testdata/programs/assignorder,
// which TestPrograms runs under bigfoot in each mode of modes: go run -race prints
// what go run prints and reports no race, because the writes whose
// right-hand side or earlier target panics never happen (docs/instrument.md,
// "The order of an assignment's checks").
func TestAssignOrderGoRace(t *testing.T) {
	if bigfootBin == "" {
		t.Skip("end-to-end test; skipped with -short")
	}
	root, _ := filepath.Abs("../../testdata/programs")
	want := run(t, root, nil, "go", "run", "./assignorder")
	got := run(t, root, nil, "go", "run", "-race", "./assignorder")
	if got.code != 0 || strings.Contains(got.stderr, raceReport) {
		t.Fatalf("go run -race ./assignorder: want exit status 0 and no race; got %v", got)
	}
	if got.stdout != want.stdout {
		t.Errorf("go run -race printed\n%s\ngo run printed\n%s", got.stdout, want.stdout)
	}
}
