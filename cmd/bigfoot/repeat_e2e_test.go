package main

import (
	"strings"
	"testing"
)

// TestSameRepeatedRaces: races that happen again are reported as go test
// -race reports them, in the same tests, which pass or fail alike. Go's
// race runtime reports a race once per pair of stacks (the same race
// through another caller is new), and after a race forgets the accesses
// that made it: `*p = *p + 2` in two goroutines is one report, not one for
// the read and one for the write; a race in a loop, in each of three
// subtests or in a later test through the same stacks fails only the
// first; a later race on the same variable through other code is
// reported. Every race here is between two writes or is found once
// whatever the schedule, so the outcome does not depend on it under
// either tool.
func TestSameRepeatedRaces(t *testing.T) {
	if bigfootBin == "" {
		t.Skip("end-to-end test; skipped with -short")
	}
	dir := writeModule(t, map[string]string{
		"go.mod":    "module example.com/repeat\n\ngo 1.22\n",
		"repeat.go": "package repeat\n",
		"repeat_test.go": `package repeat

import (
	"sync"
	"testing"
)

var a, b int

// twice runs f in two goroutines, from one function literal: both have
// the same stack.
func twice(f func()) {
	var wg sync.WaitGroup
	for i := 0; i < 2; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			f()
		}()
	}
	wg.Wait()
}

func writeB()          { b = 1 }
func writeElse(p *int) { *p = 2 }

func TestAdd(t *testing.T) { twice(func() { a = a + 2 }) }

func TestLoop(t *testing.T) {
	for i := 0; i < 3; i++ {
		twice(writeB)
	}
}

func TestSameStacks(t *testing.T) { twice(writeB) }

func TestSubtests(t *testing.T) {
	for i := 0; i < 3; i++ {
		t.Run("sub", func(t *testing.T) {
			p := new(int)
			twice(func() { writeElse(p) })
		})
	}
}

func TestSameVariableElsewhere(t *testing.T) { twice(func() { writeElse(&a) }) }
`,
	})
	want := run(t, dir, nil, "go", "test", "-race", "-count=1", "-v", ".")
	got := run(t, dir, nil, bigfootBin, "test", "-count=1", "-v", ".")
	if got.code != want.code || raceLines(got.stdout) != raceLines(want.stdout) {
		t.Errorf("bigfoot test differs from go test -race\nbigfoot:\n%d\n%s\ngo test -race:\n%d\n%s", got.code, raceLines(got.stdout), want.code, raceLines(want.stdout))
	}
	if n := strings.Count(want.stdout, "WARNING: DATA RACE"); n != 4 {
		t.Errorf("go test -race reported %d races, want 4: the program does not show what the test is about\n%s", n, want.stdout)
	}
}

// raceLines returns the lines of go test -v's output that say which test
// runs, which races it gets and how it ends: testLines' and the start of
// each test and of each race report.
func raceLines(out string) string {
	var keep []string
	for _, l := range strings.Split(normalize(out), "\n") {
		if strings.HasPrefix(l, "=== RUN") || l == "WARNING: DATA RACE" {
			keep = append(keep, l)
		} else if testLines(l) != "" {
			keep = append(keep, l)
		}
	}
	return strings.Join(keep, "\n")
}
