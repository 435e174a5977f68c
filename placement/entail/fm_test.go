package entail

import "testing"

// TestLinearAgrees checks Fourier–Motzkin against the shared cases: a true
// answer must be right; on these small cases it must also be complete.
func TestLinearAgrees(t *testing.T) {
	p := &Linear{}
	for _, c := range cases {
		got := p.Entails(c.hyps, c.goal)
		if got && !c.want {
			t.Errorf("%s: unsound: %v ⊢ %v", c.name, c.hyps, c.goal)
		}
		if got != c.want && c.name != "parity" {
			t.Errorf("%s: %v ⊢ %v = %v, want %v", c.name, c.hyps, c.goal, got, c.want)
		}
	}
}

// TestLinearTightening checks the integer tightening: 2i = 1 has no
// integer solution, so it entails anything.
func TestLinearTightening(t *testing.T) {
	p := &Linear{}
	if !p.Entails([]Fact{Eq(i.Scale(2), one)}, Eq(n, zero)) {
		t.Error("2i = 1 should be infeasible over the integers")
	}
	if !p.Entails([]Fact{Lt(zero, i), Lt(i, Const(2))}, Eq(i, one)) {
		t.Error("0 < i < 2 should entail i = 1")
	}
}

// TestLinearNE checks the case split on ≠ hypotheses, and that queries
// past the split budget go to the fallback.
func TestLinearNE(t *testing.T) {
	under := &counting{}
	p := &Linear{Fallback: under}
	if !p.Entails([]Fact{Ne(i, n), Le(i, n)}, Lt(i, n)) {
		t.Error("i != n, i <= n should entail i < n")
	}
	if p.Entails([]Fact{Ne(i, n)}, Lt(i, n)) {
		t.Error("i != n alone should not entail i < n")
	}
	if under.calls != 0 {
		t.Errorf("fallback called %d times, want 0", under.calls)
	}
	many := []Fact{Ne(i, zero), Ne(i, one), Ne(i, Const(2)), Ne(i, Const(3)), Le(i, n)}
	if !p.Entails(many, Le(i, n.AddConst(1))) || under.calls != 0 {
		t.Errorf("past the split budget: ≠ hypotheses should be dropped, not sent to the fallback")
	}
}
