package placement

import (
	"fmt"
	"strings"
	"testing"

	"golang.org/x/tools/go/ssa"

	"github.com/bigfoot-go/bigfoot/mode"
	"github.com/bigfoot-go/bigfoot/placement/entail"
)

// pathCheck is a test-only checker of a plan's precision on the
// function's bounded CFG paths (each block visited at most twice, so loops
// run zero, one or two iterations): it replays each complete path as a
// trace of accesses, checks and synchronization, with SSA values renamed
// per execution and branch conditions and φ equations as facts, and checks
// the definitions of §3.2 (Rhodes' thesis §3.2): every access
// is covered by a check of a covering kind (before it with no release in
// between, or after it with no acquire in between), and every check is
// legitimate for some access it checks. Extended paths are compared by the
// stores that may redirect them (the analysis's own alias assumption).
type pathCheck struct {
	a      *analysis
	plan   *Plan
	at     map[Point][]*Check
	prover entail.Prover
	paths  int
	errs   []string
}

type event struct {
	kind  int // evAccess, evCheck, evAcq, evRel
	write bool
	locs  []loc
	acc   *Access
	chk   *Check
	facts int // number of facts in force
}

const (
	evAccess = iota
	evCheck
	evAcq
	evRel
)

// A loc is a path instantiated at one moment of a trace.
type loc struct {
	shape  string // base instance, steps, deref versions; index erased
	lo, hi entail.Term
	stride int64
	index  bool
}

type trace struct {
	defs   map[string]entail.Term // φ instance = term of earlier instances
	inst   map[ssa.Value]int
	facts  []entail.Fact
	events []event
	instrs []ssa.Instruction // executed, for deref versions
}

func (pc *pathCheck) name(v ssa.Value, tr *trace) string {
	if _, ok := v.(ssa.Instruction); ok {
		return fmt.Sprintf("%s#%d", valueKey(v), tr.inst[v])
	}
	return valueKey(v)
}

func (pc *pathCheck) term(t entail.Term, tr *trace) entail.Term {
	r := entail.Const(t.Const)
	for _, m := range t.Monos {
		v := pc.a.n.atom(m.Var)
		n := pc.name(v, tr)
		if pc.a.n.lens[m.Var] {
			n = "len(" + n + ")"
		}
		r = r.Add(entail.Var(n).Scale(m.Coef))
	}
	return r
}

func (pc *pathCheck) loc(p Path, tr *trace) loc {
	var b strings.Builder
	b.WriteString(pc.name(p.Base, tr))
	if p.Map {
		b.WriteString("{}")
	}
	l := loc{}
	last := p.index()
	for i, st := range p.Steps {
		switch {
		case st.IsDeref():
			// The object a deref designates changes with each store
			// or call that may redirect it.
			n := 0
			for _, in := range tr.instrs {
				if pc.a.invalidates(in, Path{Base: p.Base, Steps: p.Steps[:i+1]}) {
					n++
				}
			}
			fmt.Fprintf(&b, "→%d", n)
		case st.IsIndex() && i == last:
			b.WriteString("[]")
			l.lo, l.hi, l.stride, l.index = pc.term(st.Lo, tr), pc.term(st.Hi, tr), st.Stride, true
		case st.IsIndex():
			fmt.Fprintf(&b, "[%s..%s:%d]", pc.term(st.Lo, tr), pc.term(st.Hi, tr), st.Stride)
		default:
			b.WriteString("." + st.Name)
		}
	}
	l.shape = b.String()
	return l
}

// norm substitutes φ instances by their definitions, down to the
// instances defined outside loops.
func (tr *trace) norm(t entail.Term) entail.Term {
	for changed := true; changed; {
		changed = false
		r := entail.Const(t.Const)
		for _, m := range t.Monos {
			if d, ok := tr.defs[m.Var]; ok {
				r = r.Add(d.Scale(m.Coef))
				changed = true
			} else {
				r = r.Add(entail.Var(m.Var).Scale(m.Coef))
			}
		}
		t = r
	}
	return t
}

func (pc *pathCheck) holds(tr *trace, n int, f entail.Fact) bool {
	return pc.prover.Entails(tr.facts[:n], f)
}

// within reports whether x's locations are among c's at fact count n.
func (pc *pathCheck) within(x, c loc, tr *trace, n int) bool {
	if x.shape != c.shape || x.index != c.index {
		return false
	}
	if !x.index {
		return true
	}
	if c.stride != 1 {
		d := tr.norm(x.lo).Sub(tr.norm(c.lo))
		if !d.IsConst() || d.Const%c.stride != 0 || x.stride != 1 && x.stride != c.stride {
			return false
		}
	}
	return pc.holds(tr, n, entail.Le(c.lo, x.lo)) && pc.holds(tr, n, entail.Le(x.hi, c.hi))
}

// overlaps reports whether x and c may share a location.
func (pc *pathCheck) overlaps(x, c loc, tr *trace, n int) bool {
	if x.shape != c.shape || x.index != c.index {
		return false
	}
	if !x.index {
		return true
	}
	return !pc.holds(tr, n, entail.Le(c.hi, x.lo)) && !pc.holds(tr, n, entail.Le(x.hi, c.lo)) &&
		!pc.holds(tr, n, entail.Le(x.hi, x.lo)) && !pc.holds(tr, n, entail.Le(c.hi, c.lo))
}

func (pc *pathCheck) run(t *testing.T) {
	pc.at = make(map[Point][]*Check)
	for _, c := range pc.plan.Checks {
		pc.at[c.At] = append(pc.at[c.At], c)
	}
	visits := make(map[*ssa.BasicBlock]int)
	var walk func(b *ssa.BasicBlock, from *ssa.BasicBlock, tr *trace)
	walk = func(b, from *ssa.BasicBlock, tr *trace) {
		if pc.paths >= 300 || len(tr.events) > 400 {
			return
		}
		visits[b]++
		defer func() { visits[b]-- }()
		tr = tr.clone()
		// φs: simultaneous assignment, then facts.
		if from != nil {
			idx := predIndex(b, from)
			type eq struct {
				phi *ssa.Phi
				t   entail.Term
			}
			var eqs []eq
			for _, phi := range phisOf(b) {
				if isInteger(phi.Type()) {
					eqs = append(eqs, eq{phi, pc.term(pc.a.n.termOf(phi.Edges[idx]), tr)})
				}
			}
			for _, phi := range phisOf(b) {
				tr.inst[phi]++
			}
			for _, e := range eqs {
				tr.facts = append(tr.facts, entail.Eq(entail.Var(pc.name(e.phi, tr)), e.t))
				tr.defs[pc.name(e.phi, tr)] = e.t
			}
		}
		for i, instr := range b.Instrs {
			if _, ok := instr.(*ssa.Phi); ok {
				continue
			}
			pc.checksAt(Point{Block: b, Index: i}, tr)
			switch eff := pc.a.effects(instr); eff {
			case Both:
				tr.events = append(tr.events, event{kind: evRel}, event{kind: evAcq})
			case Acquire:
				tr.events = append(tr.events, event{kind: evAcq})
			case Release:
				tr.events = append(tr.events, event{kind: evRel})
			}
			if v, ok := instr.(ssa.Value); ok {
				tr.inst[v]++
			}
			for _, acc := range pc.a.acc[instr] {
				tr.events = append(tr.events, event{kind: evAccess, write: acc.Write, acc: acc,
					locs: []loc{pc.loc(acc.Path, tr)}, facts: len(tr.facts)})
			}
			tr.instrs = append(tr.instrs, instr)
			switch in := instr.(type) {
			case *ssa.Return, *ssa.Panic:
				if in, ok := in.(*ssa.Return); ok && in.Parent().Recover != nil {
					_ = in
				}
				pc.paths++
				pc.verify(tr)
				return
			case *ssa.If:
				for k, s := range b.Succs {
					if visits[s] >= 2 {
						continue
					}
					tk := tr.clone()
					if f, ok := pc.a.condFact(in.Cond, k == 0); ok {
						f.T = pc.term(f.T, tk)
						tk.facts = append(tk.facts, f)
						if pc.prover.Entails(tk.facts, entail.Lt(entail.Const(0), entail.Const(0))) {
							continue // infeasible
						}
					}
					pc.checksAt(Point{Block: b, Index: i, Edge: s}, tk)
					walk(s, b, tk)
				}
				return
			case *ssa.Jump:
				s := b.Succs[0]
				if visits[s] < 2 {
					walk(s, b, tr)
				}
				return
			}
		}
	}
	walk(pc.a.fn.Blocks[0], nil, &trace{inst: make(map[ssa.Value]int), defs: make(map[string]entail.Term)})
	for _, e := range pc.errs {
		t.Error(e)
	}
}

func (tr *trace) clone() *trace {
	c := &trace{inst: make(map[ssa.Value]int, len(tr.inst)), defs: make(map[string]entail.Term, len(tr.defs)),
		facts:  append([]entail.Fact(nil), tr.facts...),
		events: append([]event(nil), tr.events...),
		instrs: append([]ssa.Instruction(nil), tr.instrs...)}
	for k, v := range tr.inst {
		c.inst[k] = v
	}
	for k, v := range tr.defs {
		c.defs[k] = v
	}
	return c
}

func (pc *pathCheck) checksAt(pt Point, tr *trace) {
	for _, c := range pc.at[pt] {
		if c.Guard != nil {
			g := entail.Lt(pc.term(c.Guard.Lo, tr), pc.term(c.Guard.Hi, tr))
			if !pc.prover.Entails(tr.facts, g) {
				if !pc.prover.Entails(tr.facts, g.Not()) {
					pc.fail(tr, "guard of %v undecided", c)
				}
				continue
			}
		}
		ev := event{kind: evCheck, write: c.Write, chk: c, facts: len(tr.facts)}
		for _, p := range c.Paths {
			ev.locs = append(ev.locs, pc.loc(p, tr))
		}
		tr.events = append(tr.events, ev)
	}
}

func (pc *pathCheck) fail(tr *trace, format string, args ...any) {
	if len(pc.errs) < 5 {
		pc.errs = append(pc.errs, fmt.Sprintf("%s: path %d: ", pc.a.fn, pc.paths)+fmt.Sprintf(format, args...))
	}
}

// between reports whether an event of kind k lies strictly between i and j.
func between(evs []event, i, j, k int) bool {
	if i > j {
		i, j = j, i
	}
	for x := i + 1; x < j; x++ {
		if evs[x].kind == k {
			return true
		}
	}
	return false
}

func (pc *pathCheck) verify(tr *trace) {
	evs := tr.events
	n := len(tr.facts) // facts known at the end hold throughout (SSA)
	for i, x := range evs {
		if x.kind != evAccess {
			continue
		}
		ok := false
		for j, c := range evs {
			if c.kind != evCheck || x.write && !c.write {
				continue
			}
			in := false
			for _, cl := range c.locs {
				in = in || pc.within(x.locs[0], cl, tr, n)
			}
			if !in {
				continue
			}
			if j < i && !between(evs, j, i, evRel) || j > i && !between(evs, i, j, evAcq) {
				ok = true
				break
			}
		}
		if !ok {
			pc.fail(tr, "%s access %v at %v not covered", kindName(x.write), x.acc.Path, pc.a.fn.Prog.Fset.Position(x.acc.Pos))
		}
	}
	for j, c := range evs {
		if c.kind != evCheck {
			continue
		}
		for _, cl := range c.locs {
			if cl.index && pc.holds(tr, n, entail.Le(cl.hi, cl.lo)) {
				continue // an empty range checks nothing
			}
			ok := false
			for i, x := range evs {
				if x.kind != evAccess || c.write && !x.write || !pc.overlaps(x.locs[0], cl, tr, n) {
					continue
				}
				if j < i && !between(evs, j, i, evAcq) || j > i && !between(evs, i, j, evRel) {
					ok = true
					break
				}
			}
			if !ok {
				pc.fail(tr, "check %v at %v is legitimate for no access", c.chk, c.chk.At)
			}
		}
	}
}

// checkPlan runs the path checker on one plan.
func checkPlan(t *testing.T, plan *Plan, ks *KillSets, prover entail.Prover) {
	fn := plan.Func
	if plan.Fallback != "" || len(fn.Blocks) > 60 {
		return
	}
	a := &analysis{fn: fn, cfg: Config{Effects: ks}, n: planNamer(plan), acc: make(map[ssa.Instruction][]*Access)}
	for _, acc := range plan.Accesses {
		a.acc[acc.Instr] = append(a.acc[acc.Instr], acc)
	}
	pc := &pathCheck{a: a, plan: plan, prover: prover}
	pc.run(t)
}

// checkPaths runs the path checker on every function of a golden case.
func checkPaths(t *testing.T, name string, m mode.Mode) {
	pkg, _, _ := loadCase(t, name)
	ks := NewKillSets(pkg.Prog)
	prover := entail.NewCached(&entail.Linear{})
	for _, fn := range AnalyzedFunctions(pkg) {
		checkPlan(t, Analyze(fn, Config{Mode: m, Effects: ks, Prover: prover}), ks, prover)
	}
}

// TestPaths checks the precision of every golden case's plans, in both
// modes, on bounded paths.
func TestPaths(t *testing.T) {
	for _, name := range cases {
		for _, m := range []mode.Mode{mode.BigFoot, mode.RedCard} {
			t.Run(name+"/"+m.String(), func(t *testing.T) { checkPaths(t, name, m) })
		}
	}
}

// planNamer returns the namer of p's paths.
func planNamer(p *Plan) *namer {
	for _, a := range p.Accesses {
		if a.Path.names != nil {
			return a.Path.names
		}
	}
	return newNamer(p.Func, nil)
}
