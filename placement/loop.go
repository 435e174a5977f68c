package placement

import (
	"go/token"

	"golang.org/x/tools/go/ssa"

	"github.com/bigfoot-go/bigfoot/placement/entail"
)

// A loop is a natural loop of the SSA CFG: the header and the blocks that
// reach a back edge to it without passing it.
type loop struct {
	header  *ssa.BasicBlock
	body    map[*ssa.BasicBlock]bool
	latches []*ssa.BasicBlock
	ivs     []iv
	// bounded reports a provable trip bound: an exit test executed every
	// iteration compares an induction variable against a loop-invariant
	// bound in the direction of its step, or the loop ranges over a map or
	// string. Checks are deferred past bounded loops only; see doc.go.
	bounded bool

	cands  []*elem // the invariant candidates, once seeded
	seeded bool
}

// An iv is a linear induction variable φ = φ[init, φ+step] of a loop header
// (the [Loop] heuristic of §3.5, Rhodes' thesis §3.5.1).
type iv struct {
	phi  *ssa.Phi
	init entail.Term
	step int64
}

// irreducible reports whether fn has a cycle that is not a natural loop (a
// retreating edge whose target does not dominate its source, made by
// goto). Such a cycle has no header at which to stop anticipation or to
// seed invariants, so Analyze falls back to per-access checks.
func irreducible(fn *ssa.Function) bool {
	const (
		unseen = iota
		active
		done
	)
	state := make([]int, len(fn.Blocks))
	var visit func(b *ssa.BasicBlock) bool
	visit = func(b *ssa.BasicBlock) bool {
		state[b.Index] = active
		for _, s := range b.Succs {
			switch state[s.Index] {
			case unseen:
				if visit(s) {
					return true
				}
			case active:
				if !s.Dominates(b) {
					return true
				}
			}
		}
		state[b.Index] = done
		return false
	}
	return visit(fn.Blocks[0])
}

// findLoops returns the natural loops of fn keyed by header.
func (a *analysis) findLoops() map[*ssa.BasicBlock]*loop {
	loops := make(map[*ssa.BasicBlock]*loop)
	for _, b := range a.fn.Blocks {
		for _, s := range b.Succs {
			if !s.Dominates(b) {
				continue
			}
			l := loops[s]
			if l == nil {
				l = &loop{header: s, body: map[*ssa.BasicBlock]bool{s: true}}
				loops[s] = l
			}
			l.latches = append(l.latches, b)
			stack := []*ssa.BasicBlock{b}
			for len(stack) > 0 {
				x := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				if l.body[x] {
					continue
				}
				l.body[x] = true
				stack = append(stack, x.Preds...)
			}
		}
	}
	for _, l := range loops {
		a.inductionVars(l)
		l.bounded = a.isBounded(l)
	}
	return loops
}

func (a *analysis) inductionVars(l *loop) {
	for _, instr := range l.header.Instrs {
		phi, ok := instr.(*ssa.Phi)
		if !ok {
			break
		}
		if !isInteger(phi.Type()) {
			continue
		}
		self := a.n.termOf(phi)
		var init *entail.Term
		step, okStep := int64(0), true
		for i, p := range l.header.Preds {
			t := a.n.termOf(phi.Edges[i])
			if l.body[p] {
				d := t.Sub(self)
				if !d.IsConst() || d.Const == 0 || step != 0 && step != d.Const {
					okStep = false
				}
				step = d.Const
				continue
			}
			if init != nil && !init.Equal(t) || !a.availableTerm(t, l.header) {
				okStep = false
			}
			init = &t
		}
		if okStep && init != nil && step != 0 {
			l.ivs = append(l.ivs, iv{phi: phi, init: *init, step: step})
		}
	}
}

// isBounded looks for an exit test that bounds the trip count.
func (a *analysis) isBounded(l *loop) bool {
	for b := range l.body {
		ifi, ok := b.Instrs[len(b.Instrs)-1].(*ssa.If)
		if !ok || l.body[b.Succs[0]] == l.body[b.Succs[1]] {
			continue
		}
		every := true
		for _, latch := range l.latches {
			if !b.Dominates(latch) {
				every = false
			}
		}
		if !every {
			continue
		}
		stayOnTrue := l.body[b.Succs[0]]
		if ex, ok := ifi.Cond.(*ssa.Extract); ok && ex.Index == 0 {
			if nx, ok := ex.Tuple.(*ssa.Next); ok {
				if _, ok := nx.Iter.(*ssa.Range); ok {
					return true // range over a map or string
				}
			}
		}
		f, ok := a.condFact(ifi.Cond, stayOnTrue)
		if !ok {
			continue
		}
		for _, v := range l.ivs {
			if a.boundsIV(f, v, l) {
				return true
			}
		}
	}
	return false
}

// boundsIV reports whether the stay condition f is "φ + c < B" (or ≤) for
// an increasing φ, or "φ + c > B" (or ≥) for a decreasing one, with B
// invariant in the loop.
func (a *analysis) boundsIV(f entail.Fact, v iv, l *loop) bool {
	if f.Op != entail.LE {
		return false
	}
	name := valueKey(v.phi)
	var coef int64
	rest := entail.Term{Const: f.T.Const}
	for _, m := range f.T.Monos {
		if m.Var == name {
			coef = m.Coef
			continue
		}
		rest = rest.Add(entail.Var(m.Var).Scale(m.Coef))
	}
	if coef == 0 || !a.invariantTerm(rest, l) {
		return false
	}
	// f: coef·φ + rest ≤ 0. With coef > 0 it bounds φ from above.
	return coef > 0 && v.step > 0 || coef < 0 && v.step < 0
}

// invariantTerm reports whether t has the same value on every iteration
// of l: each atom is defined before the loop, or is a load (or the length
// of a load) from a location of an extended path whose root is defined
// before the loop, when nothing in the loop synchronizes or may store to
// it: for i := 0; i < len(s.items); i++ reloads s.items in the header,
// and the loop is still bounded if its body leaves s.items alone (under
// the race-free assumption of alias facts, Rhodes' thesis §3.4).
func (a *analysis) invariantTerm(t entail.Term, l *loop) bool {
	for _, name := range t.Vars() {
		v := a.n.atom(name)
		if available(v, l.header) {
			continue
		}
		if !a.invariantLoad(v, l) {
			return false
		}
	}
	return true
}

func (a *analysis) invariantLoad(v ssa.Value, l *loop) bool {
	ld, ok := v.(*ssa.UnOp)
	if !ok || ld.Op != token.MUL {
		return false
	}
	p := a.n.base(ld, a.canon) // the location, with a deref step
	if p.Base == v || !available(p.Base, l.header) {
		return false
	}
	for _, st := range p.Steps {
		if st.IsIndex() && !a.availableTerm(st.Lo, l.header) {
			return false
		}
	}
	for b := range l.body {
		for _, instr := range b.Instrs {
			if a.effects(instr) != 0 || a.invalidates(instr, p) {
				return false
			}
		}
	}
	return true
}

// condFact returns the integer comparison cond (or its negation when
// !sense) as a fact.
func (a *analysis) condFact(cond ssa.Value, sense bool) (entail.Fact, bool) {
	bin, ok := cond.(*ssa.BinOp)
	if !ok || !isInteger(bin.X.Type()) {
		return entail.Fact{}, false
	}
	x, y := a.n.termOf(bin.X), a.n.termOf(bin.Y)
	var f entail.Fact
	switch bin.Op {
	case token.LSS:
		f = entail.Lt(x, y)
	case token.LEQ:
		f = entail.Le(x, y)
	case token.GTR:
		f = entail.Gt(x, y)
	case token.GEQ:
		f = entail.Ge(x, y)
	case token.EQL:
		f = entail.Eq(x, y)
	case token.NEQ:
		f = entail.Ne(x, y)
	default:
		return entail.Fact{}, false
	}
	if !sense {
		f = f.Not()
	}
	return f, true
}

// available reports whether v denotes the same value everywhere in block
// s: it is not an instruction, or is defined in a block strictly
// dominating s, or is recomputable there.
func available(v ssa.Value, s *ssa.BasicBlock) bool {
	instr, ok := v.(ssa.Instruction)
	if !ok || v == nil {
		return true
	}
	b := instr.Block()
	if b != s && b.Dominates(s) {
		return true
	}
	ops, ok := recomputable(v)
	if !ok {
		return false
	}
	for _, x := range ops {
		if !available(x, s) {
			return false
		}
	}
	return true
}

// recomputable returns the operands of v if v is integer arithmetic that
// cannot panic (+, -, *, &, |, ^, &^) or an integer conversion: its value
// is a function of its operands alone, the same wherever it is computed,
// so a check may name it where its operands are available and the
// emitter evaluates it again there. The row offset i*n of a[i*n+j], which
// go/ssa computes in the body of the loop over j, is such a value: the
// loop's range a[i*n..i*n+j] is checked at the loop's exit.
func recomputable(v ssa.Value) ([]ssa.Value, bool) {
	switch v := v.(type) {
	case *ssa.BinOp:
		switch v.Op {
		case token.ADD, token.SUB, token.MUL, token.AND, token.OR, token.XOR, token.AND_NOT:
			if isInteger(v.Type()) {
				return []ssa.Value{v.X, v.Y}, true
			}
		}
	case *ssa.Convert:
		if isInteger(v.Type()) && isInteger(v.X.Type()) {
			return []ssa.Value{v.X}, true
		}
	}
	return nil, false
}

func (a *analysis) availableTerm(t entail.Term, s *ssa.BasicBlock) bool {
	for _, name := range t.Vars() {
		if !available(a.n.atom(name), s) {
			return false
		}
	}
	return true
}

// candidates seeds the invariant history H_heuristic of a bounded loop
// (Rhodes' thesis §3.5.1): for each access a[c·φ+r] in the body
// whose other parts are invariant, the accesses of the iterations so far,
// a[c·init+r .. c·φ+r : c·k] (c·k > 0) or a[c·φ+r-c·k .. c·init+r-c·k :
// -c·k] (c·k < 0), k the step of φ. The
// meet keeps a candidate only if it holds on entry (vacuously: the range is
// empty when φ = init) and is preserved by every back edge.
func (a *analysis) candidates(l *loop) []*elem {
	if !l.bounded {
		return nil
	}
	var out []*elem
	seen := make(map[string]bool)
	add := func(e *elem) {
		if !seen[e.key()] {
			seen[e.key()] = true
			out = append(out, e)
		}
	}
	for _, b := range a.fn.Blocks {
		if !l.body[b] {
			continue
		}
		every := true // b runs on every iteration
		for _, latch := range l.latches {
			every = every && b.Dominates(latch)
		}
		for _, instr := range b.Instrs {
			for _, acc := range a.acc[instr] {
				// An invariant path accessed on every iteration: "p◁
				// if the loop ran" (see guard).
				if every && len(l.ivs) > 0 && a.availablePath(acc.Path, l.header) && !mentionsPhis(a, acc.Path, l.header) {
					v := l.ivs[0]
					g := &guard{lo: v.init, hi: a.n.termOf(v.phi)}
					if v.step < 0 {
						g = &guard{lo: a.n.termOf(v.phi), hi: v.init}
					}
					add(&elem{path: acc.Path, write: acc.Write, guard: g})
				}
				i := acc.Path.index()
				if i < 0 {
					continue
				}
				st := acc.Path.Steps[i]
				if st.Stride != 1 || !st.Hi.Equal(st.Lo.AddConst(1)) || derefAfter(acc.Path, i) {
					continue
				}
				for _, v := range l.ivs {
					name := valueKey(v.phi)
					c := coefOf(st.Lo, name)
					if c == 0 {
						continue
					}
					r := st.Lo.Sub(entail.Var(name).Scale(c))
					if !a.availableTerm(r, l.header) {
						continue
					}
					// The accesses so far: c·init+r, …, c·(φ-step)+r.
					first, next, k := v.init.Scale(c).Add(r), entail.Var(name).Scale(c).Add(r), c*v.step
					var p Path
					if k > 0 {
						p = acc.Path.withRange(i, first, next, k)
					} else {
						p = acc.Path.withRange(i, next.AddConst(-k), first.AddConst(-k), -k)
					}
					if !a.availablePath(p, l.header) {
						continue
					}
					add(&elem{path: p, write: acc.Write})
				}
			}
		}
	}
	return out
}

func mentionsPhis(a *analysis, p Path, s *ssa.BasicBlock) bool {
	for _, v := range p.atoms(a.n) {
		if isPhiOf(v, s) {
			return true
		}
	}
	return false
}

// derefAfter reports whether a deref step follows step i of p: a range
// there would be a gather (a[0..n].p.x), which a strided range check
// cannot express.
func derefAfter(p Path, i int) bool {
	for _, st := range p.Steps[i+1:] {
		if st.IsDeref() {
			return true
		}
	}
	return false
}

// coefOf returns the coefficient of the variable name in t.
func coefOf(t entail.Term, name string) int64 {
	for _, m := range t.Monos {
		if m.Var == name {
			return m.Coef
		}
	}
	return 0
}

func containsVar(t entail.Term, name string) bool {
	for _, v := range t.Vars() {
		if v == name {
			return true
		}
	}
	return false
}

// availablePath reports whether every value p mentions is available in s;
// the phis of s count as available (they are s's own names).
func (a *analysis) availablePath(p Path, s *ssa.BasicBlock) bool {
	for _, v := range p.atoms(a.n) {
		if phi, ok := v.(*ssa.Phi); ok && phi.Block() == s {
			continue
		}
		if !available(v, s) {
			return false
		}
	}
	return true
}

// blockFacts returns the boolean facts in force throughout b: the
// conditions of the branch edges that dominate b, and φ ≥ init (φ ≤ init)
// for the increasing (decreasing) induction variables of the loops whose
// headers dominate b. SSA values never change, so these facts need no
// [Assign] bookkeeping (Rhodes' thesis §3.3.3).
func (a *analysis) blockFacts(b *ssa.BasicBlock) []entail.Fact {
	var fs []entail.Fact
	for d := b; d != nil; d = d.Idom() {
		if len(d.Preds) == 1 {
			p := d.Preds[0]
			if ifi, ok := p.Instrs[len(p.Instrs)-1].(*ssa.If); ok && p.Succs[0] != p.Succs[1] {
				if f, ok := a.condFact(ifi.Cond, p.Succs[0] == d); ok {
					fs = append(fs, f)
				}
			}
		}
		if l := a.loops[d]; l != nil {
			for _, v := range l.ivs {
				if v.step > 0 {
					fs = append(fs, entail.Le(v.init, a.n.termOf(v.phi)))
				} else {
					fs = append(fs, entail.Le(a.n.termOf(v.phi), v.init))
				}
			}
		}
	}
	return fs
}

// edgeFacts returns facts that hold on the edge p→s in s's names: p's
// branch condition and the φ equations of s whose incoming values are
// available in s (for a loop's entry edge, φ = init).
func (a *analysis) edgeFacts(p, s *ssa.BasicBlock) []entail.Fact {
	var fs []entail.Fact
	if ifi, ok := p.Instrs[len(p.Instrs)-1].(*ssa.If); ok && p.Succs[0] != p.Succs[1] {
		if f, ok := a.condFact(ifi.Cond, p.Succs[0] == s); ok && a.availableTerm(f.T, s) {
			fs = append(fs, f)
		}
	}
	idx := predIndex(s, p)
	for _, instr := range s.Instrs {
		phi, ok := instr.(*ssa.Phi)
		if !ok {
			break
		}
		if !isInteger(phi.Type()) {
			continue
		}
		t := a.n.termOf(phi.Edges[idx])
		if a.availableTerm(t, s) {
			fs = append(fs, entail.Eq(a.n.termOf(phi), t))
		}
	}
	return fs
}

func predIndex(s, p *ssa.BasicBlock) int {
	for i, q := range s.Preds {
		if q == p {
			return i
		}
	}
	return -1
}

// congruent reports whether x ≡ y (mod k) on every execution: x - y is a
// constant multiple of k once each induction variable φ whose steps keep
// coef·φ fixed modulo k (coef·step ≡ 0 mod k) is replaced by its initial
// value. A strided range a[lo..hi:k] selects the indices congruent to lo,
// so an index joins it only if it is congruent to lo (the loop candidate
// a[init..φ:k] of a[φ] holds φ, not φ+1).
func (a *analysis) congruent(x, y entail.Term, k int64) bool {
	if k == 1 {
		return true
	}
	d := x.Sub(y)
	for range 4 { // inits may name outer induction variables
		if d.IsConst() {
			break
		}
		next, changed := entail.Term{Const: d.Const}, false
		for _, m := range d.Monos {
			if m.Coef%k == 0 {
				changed = true // an integer multiple of k
				continue
			}
			if v, ok := a.ivOf(m.Var); ok && (m.Coef*v.step)%k == 0 {
				next = next.Add(v.init.Scale(m.Coef))
				changed = true
				continue
			}
			next = next.Add(entail.Var(m.Var).Scale(m.Coef))
		}
		if !changed {
			break
		}
		d = next
	}
	return d.IsConst() && d.Const%k == 0
}

// ivOf returns the induction variable named name, if it is one.
func (a *analysis) ivOf(name string) (iv, bool) {
	phi, ok := a.n.atom(name).(*ssa.Phi)
	if !ok || a.n.lens[name] {
		return iv{}, false
	}
	if l := a.loops[phi.Block()]; l != nil {
		for _, v := range l.ivs {
			if v.phi == phi {
				return v, true
			}
		}
	}
	return iv{}, false
}
