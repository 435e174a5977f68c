package main

import (
	"regexp"
	"testing"
)

// TestSameParallelSubtests: many t.Parallel subtests, whose edges through
// their T and their signal channel each acquire takes once (the detector's
// testingTake), and whose clocks the sync objects they release into share:
// what a subtest did before Parallel is ordered before its parent's next
// statements and before the later subtests, what the parent did before
// returning before the subtests' resumption, what they did after it
// before the parent's cleanup. go test -race and bigfoot test agree: no
// race, and every write seen where the edges order it.
func TestSameParallelSubtests(t *testing.T) {
	if bigfootBin == "" {
		t.Skip("end-to-end test; skipped with -short")
	}
	dir := writeModule(t, map[string]string{
		"go.mod": "module example.com/parallel\n\ngo 1.22\n",
		"par_test.go": `package par

import (
	"fmt"
	"testing"
)

const n = 500

func TestOrdered(t *testing.T) {
	before := make([]int, n) // written before Parallel
	after := make([]int, n)  // written after the parent returned
	last := 0                // written by the parent before it returns
	for i := 0; i < n; i++ {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			before[i] = i
			if i > 0 && before[i-1] != i-1 {
				t.Error("earlier subtest's write not seen")
			}
			t.Parallel()
			after[i] = last + before[n-1-i]
		})
		if before[i] != i {
			t.Fatal("subtest's write before Parallel not seen")
		}
	}
	last = 1
	t.Cleanup(func() {
		for i, a := range after {
			if a != 1+n-1-i {
				t.Errorf("after[%d] = %d", i, a)
			}
		}
	})
}
`,
	})
	want, got := testBoth(t, dir, "-count=1", "-v", ".")
	if got.code != want.code || testOutcomes(got.stdout) != testOutcomes(want.stdout) {
		t.Errorf("bigfoot test differs from go test -race\nbigfoot:\n%v\ngo test -race:\n%v", got, want)
	}
}

// testOutcome matches a top-level test's result line of go test -v.
var testOutcome = regexp.MustCompile(`(?m)^--- (PASS|FAIL): \S+`)

// testOutcomes returns the top-level tests' results go test -v printed.
func testOutcomes(out string) string {
	var s string
	for _, m := range testOutcome.FindAllString(out, -1) {
		s += m + "\n"
	}
	return s
}
