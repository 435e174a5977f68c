// Package testingmodel holds the happens-before edges of package testing,
// one test per edge, run under go test -race and bigfoot test by
// cmd/bigfoot's TestTestingModel: a TestNoRace* test (and FuzzNoRace*,
// BenchmarkNoRace*) relies on an edge and must never be reported, a
// TestRace* test races and must be reported in every run. The module is
// at go 1.21, so that range variables are shared across iterations, as in
// the suites that copy them with tc := tc before t.Parallel.
package testingmodel

import (
	"runtime"
	"testing"
	"time"
)

// t.Parallel returns control to the parent: the subtest's accesses before
// Parallel happen before t.Run returns.
func TestNoRaceParallelResumesParent(t *testing.T) {
	x := 1
	t.Run("a", func(t *testing.T) {
		_ = x
		t.Parallel()
	})
	x = 2
}

// The pre-1.22 idiom: the subtest copies the shared range variable before
// Parallel; the parent's next iteration writes it after t.Run returned.
func TestNoRaceParallelLoopCopy(t *testing.T) {
	cases := []struct{ name, in string }{{"a", "x"}, {"b", "y"}, {"c", "z"}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tc := tc
			t.Parallel()
			if tc.in == "" {
				t.Error("empty")
			}
		})
	}
}

// A parallel subtest resumes after its parent's function returned: the
// parent's accesses after t.Run happen before the subtest's after
// Parallel.
func TestNoRaceParallelAfterParentReturns(t *testing.T) {
	var x int
	t.Run("a", func(t *testing.T) {
		t.Parallel()
		_ = x
	})
	x = 1
}

// The parent's cleanups run after its parallel subtests ended.
func TestNoRaceCleanupAfterParallelSubtests(t *testing.T) {
	var a, b int
	t.Cleanup(func() { _ = a + b })
	t.Run("a", func(t *testing.T) { t.Parallel(); a = 1 })
	t.Run("b", func(t *testing.T) { t.Parallel(); b = 1 })
}

// t.Run of a group returns after the group's parallel subtests ended.
func TestNoRaceGroupAfterParallelSubtests(t *testing.T) {
	var a, b int
	t.Run("group", func(t *testing.T) {
		t.Run("a", func(t *testing.T) { t.Parallel(); a = 1 })
		t.Run("b", func(t *testing.T) { t.Parallel(); b = 1 })
	})
	_ = a + b
}

// A subtest's cleanup runs before t.Run returns.
func TestNoRaceSubtestCleanup(t *testing.T) {
	var x int
	t.Run("a", func(t *testing.T) {
		t.Cleanup(func() { x = 1 })
	})
	_ = x
}

// testing.RunTests runs its tests after the call and returns after them
// (a suite library's own tests call it).
func TestNoRaceRunTests(t *testing.T) {
	in, out := 1, 0
	testing.RunTests(func(pat, str string) (bool, error) { return true, nil }, []testing.InternalTest{
		{Name: "inner", F: func(t *testing.T) { out = in }},
	})
	if out != 1 {
		t.Errorf("out = %d", out)
	}
}

// testing.Benchmark runs the benchmark function on goroutines of its own,
// after the call and before it returns.
func TestNoRaceBenchmarkFunc(t *testing.T) {
	in, out := 1, 0
	testing.Benchmark(func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			out = in
		}
	})
	_ = out
}

// The seed corpus runs after f.Add and what precedes f.Fuzz, and before
// f.Fuzz returns.
func FuzzNoRaceSeedsAfterAdd(f *testing.F) {
	seen := map[int]bool{}
	f.Add(1)
	f.Add(2)
	limit := 10
	f.Fuzz(func(t *testing.T, n int) {
		if n > limit {
			t.Skip()
		}
		seen[n] = true
	})
	_ = len(seen)
}

// b.RunParallel's goroutines run after what precedes the call.
func BenchmarkNoRaceRunParallel(b *testing.B) {
	in := make([]int, 8)
	for i := range in {
		in[i] = i
	}
	b.RunParallel(func(pb *testing.PB) {
		s := 0
		for pb.Next() {
			s += in[s%8]
		}
	})
}

// A parent blocked in t.Run while collections run: what the subtest
// wrote is ordered before the parent's return from Run, however many
// sweeps dropped or kept its state meanwhile.
func TestNoRaceSweepsWhileParentWaits(t *testing.T) {
	xs := make([]int, 1<<12)
	t.Run("a", func(t *testing.T) {
		for i := range xs {
			xs[i] = i
		}
		for i := 0; i < 3; i++ {
			runtime.GC()
		}
	})
	for i := range xs {
		xs[i]++
	}
}

// The parent waits in t.Run for the subtest, but a goroutine it started
// before does not: the subtest's write stays racy with the goroutine's
// read after the collections that run while the parent waits.
func TestRaceSweepsWhileParentWaits(t *testing.T) {
	x := new(int)
	done := make(chan bool)
	go func() {
		time.Sleep(100 * time.Millisecond)
		_ = *x
		done <- true
	}()
	t.Run("a", func(t *testing.T) {
		*x = 1
		for i := 0; i < 3; i++ {
			runtime.GC()
		}
	})
	<-done
}

// Two parallel subtests that run at the same time are not ordered: a
// write of each races.
func TestRaceParallelSiblings(t *testing.T) {
	var x int
	t.Run("a", func(t *testing.T) {
		t.Parallel()
		x = 1
		time.Sleep(50 * time.Millisecond)
	})
	t.Run("b", func(t *testing.T) {
		t.Parallel()
		time.Sleep(10 * time.Millisecond)
		x = 2
	})
	_ = &x
}

// A goroutine the parent starts and never joins is not ordered before a
// parallel subtest.
func TestRaceParallelUnjoinedGoroutine(t *testing.T) {
	var x int
	go func() { x = 1 }()
	t.Run("a", func(t *testing.T) {
		t.Parallel()
		time.Sleep(10 * time.Millisecond)
		_ = x
	})
}
