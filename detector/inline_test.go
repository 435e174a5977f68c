// Copyright 2026 The bigfoot Authors. All rights reserved.

package detector

import (
	"os/exec"
	"regexp"
	"strconv"
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

// TestCheckCost builds testdata/inline with -gcflags=-m=2 and fails if a
// check helper costs a function that calls it more than 40 of the
// inliner's budget of 80 (the helpers call their check through a
// parameter: viaCheck), or if a getter or setter with its one check no
// longer inlines. With a direct call of the check a helper cost 65, and
// bufio's Reader.reset (a store of a composite literal, cost 12 in a plain
// build) did not inline under bigfoot: what escapes in its callers
// changed.
func TestCheckCost(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a program")
	}
	out, err := exec.Command("go", "build", "-o", t.TempDir()+"/inline", "-gcflags=-m=2", "./testdata/inline").CombinedOutput()
	if err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	for _, fn := range []string{"R", "W", "RG", "WG", "R1", "W1", "RG1", "WG1", "ReadAll1", "WriteAll1"} {
		re := regexp.MustCompile(`can inline detector\.` + fn + `\[go\.shape\.[^ ]*\] with cost (\d+)`)
		m := re.FindSubmatch(out)
		if m == nil {
			t.Errorf("detector.%s: no inlinable instantiation:\n%s", fn, out)
			continue
		}
		if cost, _ := strconv.Atoi(string(m[1])); cost > 40 {
			t.Errorf("detector.%s costs %d of the inlining budget, want at most 40", fn, cost)
		}
	}
	for _, fn := range []string{`\(\*point\)\.getX`, `\(\*point\)\.setX`, `\(\*point\)\.both`, `\(\*point\)\.setBoth`, `text`, `zero`} {
		if !regexp.MustCompile(`main\.go:\d+:\d+: can inline ` + fn + ` with cost`).Match(out) {
			t.Errorf("%s does not inline:\n%s", fn, out)
		}
	}
}
