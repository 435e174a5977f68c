package entail

import "math"

// Linear is a Prover that decides most placement queries without a solver
// call: it drops the hypotheses that share no variable (transitively) with
// the goal, and refutes hyps ∧ ¬goal by Fourier–Motzkin elimination over
// the rationals, tightening each derived row over the integers (dividing by
// the gcd of its coefficients and rounding the bound down), splitting each
// ≠ hypothesis into its two strict cases. An infeasible system is a proof,
// so true answers are always right; a feasible one answers false, which is
// conservative (the tightened rational relaxation is rarely weaker than
// integer reasoning on these queries). Queries past the budget (rows,
// overflow) go to Fallback, as do the queries it finds feasible where
// multiplying a product's factors may help (product.go); ≠ hypotheses
// past maxSplits are dropped.
//
// Placement queries are tiny (a handful of variables and facts), where
// Fourier–Motzkin is fast and a solver round trip through cgo is not.
type Linear struct {
	Fallback Prover // may be nil: then undecided queries answer false
	MaxRows  int    // elimination budget; 0 means 256
}

// Entails implements Prover.
func (l *Linear) Entails(hyps []Fact, goal Fact) bool {
	rel := relevant(hyps, goal)
	if l.entails(rel, goal) {
		return true
	}
	// Inconsistent hypotheses entail everything, connected or not.
	return len(rel) < len(hyps) && l.entails(hyps, Lt(Const(0), Const(0)))
}

func (l *Linear) entails(hyps []Fact, goal Fact) bool {
	var ineqs, nes []Term // T <= 0; T != 0
	for _, h := range hyps {
		switch h.Op {
		case EQ:
			ineqs = append(ineqs, h.T, h.T.Scale(-1))
		case LE:
			ineqs = append(ineqs, h.T)
		case LT:
			ineqs = append(ineqs, h.T.AddConst(1))
		case NE:
			nes = append(nes, h.T)
		}
	}
	if len(nes) > maxSplits {
		nes = nes[:maxSplits] // dropping hypotheses is conservative
	}
	// hyps ⊢ goal iff hyps ∧ ¬goal is infeasible. ¬goal and each T ≠ 0
	// hypothesis are disjunctions (T ≠ 0 is T <= -1 ∨ -T <= -1): every
	// combination of disjuncts must be infeasible.
	var negGoal [][]Term
	switch goal.Op {
	case EQ:
		negGoal = [][]Term{{goal.T.AddConst(1)}, {goal.T.Scale(-1).AddConst(1)}}
	case NE:
		negGoal = [][]Term{{goal.T, goal.T.Scale(-1)}}
	case LE:
		negGoal = [][]Term{{goal.T.Scale(-1).AddConst(1)}}
	case LT:
		negGoal = [][]Term{{goal.T.Scale(-1)}}
	}
	max := l.MaxRows
	if max == 0 {
		max = 256
	}
	for _, ng := range negGoal {
		for mask := 0; mask < 1<<len(nes); mask++ {
			rows := append(append([]Term(nil), ineqs...), ng...)
			for i, t := range nes {
				if mask&(1<<i) != 0 {
					rows = append(rows, t.AddConst(1)) // T <= -1
				} else {
					rows = append(rows, t.Scale(-1).AddConst(1)) // T >= 1
				}
			}
			switch infeasible(rows, max) {
			case yes:
				continue
			case unknown:
				if l.Fallback != nil {
					return l.Fallback.Entails(hyps, goal)
				}
			case no:
				// Feasible with the products as unknowns: the
				// fallback may know better (product.go).
				if l.Fallback != nil && nonlinearHelps(hyps, goal) {
					return l.Fallback.Entails(hyps, goal)
				}
			}
			return false
		}
	}
	return true
}

// maxSplits bounds the ≠ hypotheses Linear splits on (2^maxSplits cases).
const maxSplits = 3

// relevant returns the hypotheses connected to the goal's variables
// through shared variables. Dropping the others cannot change the answer
// unless they are inconsistent by themselves, which Entails checks
// separately.
func relevant(hyps []Fact, goal Fact) []Fact {
	vars := make(map[string]bool)
	for _, v := range withFactors(goal.T.Vars()) {
		vars[v] = true
	}
	used := make([]bool, len(hyps))
	for changed := true; changed; {
		changed = false
		for i, h := range hyps {
			if used[i] {
				continue
			}
			hv := withFactors(h.T.Vars())
			touch := len(hv) == 0
			for _, v := range hv {
				if vars[v] {
					touch = true
				}
			}
			if touch {
				used[i], changed = true, true
				for _, v := range hv {
					vars[v] = true
				}
			}
		}
	}
	var out []Fact
	for i, h := range hyps {
		if used[i] {
			out = append(out, h)
		}
	}
	return out
}

type verdict int

const (
	no verdict = iota
	yes
	unknown
)

// infeasible decides whether the conjunction of rows T <= 0 has no integer
// solution: yes is a proof, no means a rational solution exists (after
// integer tightening), unknown means the budget ran out.
func infeasible(rows []Term, maxRows int) verdict {
	rs := make([]row, 0, len(rows))
	for _, t := range rows {
		r, ok := tighten(t)
		if !ok {
			return unknown
		}
		rs = append(rs, r)
	}
	for {
		// Constant rows decide or vanish.
		var next []row
		for _, r := range rs {
			if len(r.t.Monos) == 0 {
				if r.t.Const > 0 {
					return yes
				}
				continue
			}
			next = append(next, r)
		}
		rs = next
		if len(rs) == 0 {
			return no
		}
		// Eliminate the variable with the fewest pos×neg pairs.
		v := pickVar(rs)
		var pos, neg, rest []row
		for _, r := range rs {
			switch c := coef(r.t, v); {
			case c > 0:
				pos = append(pos, r)
			case c < 0:
				neg = append(neg, r)
			default:
				rest = append(rest, r)
			}
		}
		for _, p := range pos {
			for _, n := range neg {
				a, b := coef(p.t, v), -coef(n.t, v)
				// b·p + a·n eliminates v.
				t, ok := combineChecked(p.t, b, n.t, a)
				if !ok {
					return unknown
				}
				r, ok := tighten(t)
				if !ok {
					return unknown
				}
				rest = append(rest, r)
				if len(rest) > maxRows {
					return unknown
				}
			}
		}
		rs = rest
	}
}

type row struct{ t Term }

func coef(t Term, v string) int64 {
	for _, m := range t.Monos {
		if m.Var == v {
			return m.Coef
		}
	}
	return 0
}

func pickVar(rs []row) string {
	pos := make(map[string]int)
	neg := make(map[string]int)
	var order []string
	for _, r := range rs {
		for _, m := range r.t.Monos {
			if pos[m.Var] == 0 && neg[m.Var] == 0 {
				order = append(order, m.Var)
			}
			if m.Coef > 0 {
				pos[m.Var]++
			} else {
				neg[m.Var]++
			}
		}
	}
	best, cost := "", math.MaxInt
	for _, v := range order {
		if c := pos[v] * neg[v]; c < cost {
			best, cost = v, c
		}
	}
	return best
}

// tighten divides T <= 0 by the gcd g of its coefficients: Σ a·x <= -c
// becomes Σ (a/g)·x <= floor(-c/g), valid over the integers.
func tighten(t Term) (row, bool) {
	var g int64
	for _, m := range t.Monos {
		g = gcd(g, abs(m.Coef))
	}
	if g <= 1 {
		return row{t}, true
	}
	r := Term{Monos: make([]Mono, len(t.Monos))}
	for i, m := range t.Monos {
		r.Monos[i] = Mono{Var: m.Var, Coef: m.Coef / g}
	}
	r.Const = -floorDiv(-t.Const, g)
	return row{r}, true
}

// combineChecked returns a·x + b·y, failing on overflow.
func combineChecked(x Term, a int64, y Term, b int64) (Term, bool) {
	const lim = 1 << 40
	if abs(a) > lim || abs(b) > lim {
		return Term{}, false
	}
	for _, t := range []Term{x, y} {
		if abs(t.Const) > lim {
			return Term{}, false
		}
		for _, m := range t.Monos {
			if abs(m.Coef) > lim {
				return Term{}, false
			}
		}
	}
	return x.Scale(a).Add(y.Scale(b)), true
}

func gcd(a, b int64) int64 {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

func abs(x int64) int64 {
	if x < 0 {
		return -x
	}
	return x
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}
