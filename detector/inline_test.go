// Copyright 2026 The bigfoot Authors. All rights reserved.

package detector

import (
	"os/exec"
	"regexp"
	"testing"
)

// TestInlining builds testdata/inline, which calls every check emitted
// code makes per access, with -gcflags=-m, and fails if the compiler
// stops inlining one of them at its call site: a call per access would
// cost more than the check's fast path, and F's argument would escape.
func TestInlining(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a program")
	}
	out, err := exec.Command("go", "build", "-o", t.TempDir()+"/inline", "-gcflags=-m", "./testdata/inline").CombinedOutput()
	if err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	for _, fn := range []string{"F", "R", "W", "RG", "WG", "Load", "LoadGrow"} {
		re := regexp.MustCompile(`main\.go:\d+:\d+: inlining call to detector\.` + fn + `\[`)
		if !re.Match(out) {
			t.Errorf("detector.%s is not inlined at its call site:\n%s", fn, out)
		}
	}
	// Checking an element through a footprint never moves the array to
	// the heap.
	if !regexp.MustCompile(`main\.go:\d+:\d+: a does not escape`).Match(out) {
		t.Errorf("the checked array escapes:\n%s", out)
	}
}

// TestSameInlined builds this package with -gcflags=-m and fails if the
// shadow's same-epoch fast path (shadow.Thread.Cached and
// shadow.Granule.Same) is not inlined into check, checkGroup and
// checkOne: a same-epoch access, most accesses, would pay a call again.
func TestSameInlined(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the package")
	}
	out, err := exec.Command("go", "build", "-gcflags=-m", ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	for _, file := range []string{"access.go", "footprint.go"} {
		for _, fn := range []string{`\(\*Thread\)\.Cached`, `\(\*granule\)\.Same`} {
			re := regexp.MustCompile(file + `:\d+:\d+: inlining call to shadow\.` + fn + `\n`)
			want := 2 // check and checkGroup
			if file == "footprint.go" {
				want = 1 // checkOne
			}
			if n := len(re.FindAll(out, -1)); n != want {
				t.Errorf("%s: shadow.%s inlined %d times, want %d", file, fn, n, want)
			}
		}
	}
}
