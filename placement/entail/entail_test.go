package entail

import (
	"fmt"
	"sync"
	"testing"
)

var (
	i, j, n, lo, hi = Var("i"), Var("j"), Var("n"), Var("lo"), Var("hi")
	zero, one       = Const(0), Const(1)
)

func TestTermCanonical(t *testing.T) {
	a := i.Add(n).Sub(one)
	b := n.Sub(one).Add(i)
	if !a.Equal(b) || a.String() != b.String() {
		t.Errorf("%q and %q should be the same term", a, b)
	}
	if got := i.Sub(i); !got.IsConst() || got.Const != 0 {
		t.Errorf("i - i = %v, want 0", got)
	}
	if got, want := i.Scale(2).Sub(n).AddConst(-3).String(), "2*i - n - 3"; got != want {
		t.Errorf("String = %q, want %q", got, want)
	}
}

func TestNot(t *testing.T) {
	p := NewZ3(1000)
	for _, f := range []Fact{Eq(i, n), Ne(i, n), Le(i, n), Lt(i, n), Ge(i, one)} {
		// f and ¬f are contradictory and exhaustive.
		if !p.Entails([]Fact{f, f.Not()}, Lt(one, zero)) {
			t.Errorf("%v ∧ ¬%v should be unsatisfiable", f, f)
		}
		if p.Entails([]Fact{f}, f.Not()) {
			t.Errorf("%v should not entail its negation", f)
		}
	}
}

// Each case is a question the placement rules ask; want is the answer.
var cases = []struct {
	name string
	hyps []Fact
	goal Fact
	want bool
}{
	{"reflexive", []Fact{Le(i, n)}, Le(i, n), true},
	{"loop exit gives bound", []Fact{Le(zero, i), Ge(i, n), Le(i, n)}, Eq(i, n), true},
	{"strict to non-strict", []Fact{Lt(i, n)}, Le(i, n), true},
	{"non-strict not strict", []Fact{Le(i, n)}, Lt(i, n), false},
	{"transitive", []Fact{Le(lo, i), Le(i, hi)}, Le(lo, hi), true},
	{"shift", []Fact{Eq(j, i.AddConst(1)), Lt(i, n)}, Le(j, n), true},
	{"unrelated", []Fact{Le(lo, hi)}, Le(i, n), false},
	{"no hypotheses", nil, Le(i, n), false},
	{"parity", nil, Ne(i.Scale(2), one), true},
	{"constant true", nil, Le(zero, one), true},
	{"constant false", nil, Le(one, zero), false},
	{"inconsistent", []Fact{Lt(i, zero), Le(zero, i)}, Eq(n, one), true},
	{"range inclusion", []Fact{Le(zero, lo), Le(lo, hi), Le(hi, n)}, Le(hi.Sub(lo), n), true},
}

func TestZ3(t *testing.T) {
	p := NewZ3(1000)
	for _, c := range cases {
		if got := p.Entails(c.hyps, c.goal); got != c.want {
			t.Errorf("%s: %v ⊢ %v = %v, want %v", c.name, c.hyps, c.goal, got, c.want)
		}
	}
	if p.Errors() != 0 {
		t.Errorf("%d solver errors", p.Errors())
	}
}

// TestCachedAgrees checks that the fast paths and the cache never change an
// answer, and that a repeated query does not reach the solver again.
func TestCachedAgrees(t *testing.T) {
	c := NewCached(NewZ3(1000))
	for round := 0; round < 2; round++ {
		for _, cs := range cases {
			if got := c.Entails(cs.hyps, cs.goal); got != cs.want {
				t.Errorf("round %d %s: got %v, want %v", round, cs.name, got, cs.want)
			}
		}
	}
	st := c.Stats()
	if st.Queries != 2*len(cases) {
		t.Errorf("Queries = %d, want %d", st.Queries, 2*len(cases))
	}
	if st.Solver == 0 || st.CacheHits != st.Solver {
		t.Errorf("stats %+v: second round should be answered from the cache", st)
	}
}

// TestHypothesisOrder checks that the cache key treats hypotheses as a set.
func TestHypothesisOrder(t *testing.T) {
	a := []Fact{Le(lo, i), Le(i, hi)}
	b := []Fact{Le(i, hi), Le(lo, i)}
	if key(a, Le(lo, hi)) != key(b, Le(lo, hi)) {
		t.Error("cache key depends on hypothesis order")
	}
}

type counting struct{ calls int }

func (c *counting) Entails([]Fact, Fact) bool { c.calls++; return false }

// TestSyntacticFastPaths checks which queries never reach the solver.
func TestSyntacticFastPaths(t *testing.T) {
	under := &counting{}
	c := NewCached(under)
	for _, q := range []struct {
		hyps []Fact
		goal Fact
		want bool
	}{
		{[]Fact{Le(i, n)}, Le(i, n), true},
		{[]Fact{Le(i, n)}, Le(i, n.AddConst(3)), true}, // looser bound
		{[]Fact{Eq(i, n)}, Le(i, n), true},
		{nil, Le(zero, one), true},
		{nil, Le(i, n), false},
	} {
		if got := c.Entails(q.hyps, q.goal); got != q.want {
			t.Errorf("%v ⊢ %v = %v, want %v", q.hyps, q.goal, got, q.want)
		}
	}
	if under.calls != 0 {
		t.Errorf("%d queries reached the solver, want 0", under.calls)
	}
}

// TestProduct checks products: Linear alone treats i·n as an unknown and
// cannot prove i = 2 ⊢ i·n = 2n; with Z3 as its fallback it can, and no
// prover proves i ≥ 0 ⊢ i·n ≥ 0 (n may be negative).
func TestProduct(t *testing.T) {
	in := Var(Product("i", "n"))
	if Product("i", "n") != Product("n", "i") {
		t.Errorf("Product is not commutative: %q, %q", Product("i", "n"), Product("n", "i"))
	}
	if x, y, ok := factors(Product(Product("a", "b"), "c")); !ok || x != "c" || y != Product("a", "b") {
		t.Errorf("factors of a nested product = %q, %q, %v", x, y, ok)
	}
	hyps, goal := []Fact{Eq(i, Const(2))}, Eq(in, n.Scale(2))
	if (&Linear{}).Entails(hyps, goal) {
		t.Errorf("Linear without a fallback proves %v ⊢ %v", hyps, goal)
	}
	z3 := NewZ3(1000)
	if !(&Linear{Fallback: z3}).Entails(hyps, goal) {
		t.Errorf("Linear with Z3 does not prove %v ⊢ %v", hyps, goal)
	}
	if calls, _ := z3.Usage(); calls != 1 {
		t.Errorf("Z3 asked %d times, want 1", calls)
	}
	if (&Linear{Fallback: z3}).Entails([]Fact{Ge(i, zero)}, Ge(in, zero)) {
		t.Errorf("i ≥ 0 ⊢ i·n ≥ 0 proved")
	}
	// No equality pins a factor there: Z3 is not asked.
	if calls, _ := z3.Usage(); calls != 1 {
		t.Errorf("Z3 asked %d times, want still 1", calls)
	}
}

// TestSharedZ3: every caller gets the one process-wide prover, and it
// answers queries from several goroutines at once, each as alone.
func TestSharedZ3(t *testing.T) {
	z := SharedZ3()
	if SharedZ3() != z {
		t.Fatal("SharedZ3 returned two provers")
	}
	x, y := Var("x"), Var("y")
	var wg sync.WaitGroup
	errs := make(chan string, 16)
	for i := range 8 {
		wg.Go(func() {
			c := int64(i)
			// x ≤ c ∧ y ≤ x ⊢ y ≤ c, and not y ≤ c-1.
			hyps := []Fact{Le(x, Const(c)), Le(y, x)}
			if !z.Entails(hyps, Le(y, Const(c))) {
				errs <- fmt.Sprintf("%d: y ≤ %d not entailed", i, c)
			}
			if z.Entails(hyps, Le(y, Const(c-1))) {
				errs <- fmt.Sprintf("%d: y ≤ %d entailed", i, c-1)
			}
		})
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}
