package detector

import "testing"

// withSched runs f with schedule perturbation set to n and seed.
func withSched(t *testing.T, n, seed uint64, f func()) {
	t.Helper()
	old := sched
	sched.n, sched.seed = n, seed
	defer func() { sched = old }()
	f()
}

// decisions returns the yields a goroutine with goid id makes over k
// synchronization operations.
func decisions(id uint64, k int) []bool {
	g := &G{goid: id}
	out := make([]bool, k)
	for i := range out {
		before := schedYields.Load()
		g.perturb()
		out[i] = schedYields.Load() != before
	}
	return out
}

// TestSchedDecisions: a goroutine's decisions depend only on the seed and
// its goid (a printed seed repeats them), differ between goroutines and
// seeds, and yield about once in n operations.
func TestSchedDecisions(t *testing.T) {
	withSched(t, 4, 12345, func() {
		a, b := decisions(7, 4000), decisions(7, 4000)
		other := decisions(8, 4000)
		yields, same, differ := 0, true, false
		for i := range a {
			same = same && a[i] == b[i]
			differ = differ || a[i] != other[i]
			if a[i] {
				yields++
			}
		}
		if !same {
			t.Error("two streams of one seed and goid differ")
		}
		if !differ {
			t.Error("goroutines 7 and 8 make the same decisions")
		}
		if yields < 800 || yields > 1200 {
			t.Errorf("%d yields in 4000 operations with sched=4, want about 1000", yields)
		}
	})
	var s1, s2 []bool
	withSched(t, 4, 1, func() { s1 = decisions(7, 200) })
	withSched(t, 4, 2, func() { s2 = decisions(7, 200) })
	if equal := func() bool {
		for i := range s1 {
			if s1[i] != s2[i] {
				return false
			}
		}
		return true
	}(); equal {
		t.Error("seeds 1 and 2 make the same decisions")
	}
	withSched(t, 1, 9, func() {
		for i, y := range decisions(3, 50) {
			if !y {
				t.Fatalf("sched=1: operation %d did not yield", i)
			}
		}
	})
}

func TestSchedOption(t *testing.T) {
	old := sched
	defer func() { sched = old }()
	parseOptions("sched=8 sched_seed=42")
	if sched.n != 8 || sched.seed != 42 {
		t.Errorf("sched = %+v, want n=8 seed=42", sched)
	}
}
