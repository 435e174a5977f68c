package placement

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"slices"
	"sort"

	"golang.org/x/tools/go/ssa"

	"github.com/bigfoot-go/bigfoot/placement/entail"
)

// Static loop ranges (docs/placement.md, "Static loop ranges").
//
// In bigfoot mode the instrumenter runs an affine loop with plain element
// accesses: each access site keeps one pending range whose extent the loop
// stores after the statement that makes the access, and the runtime checks
// the range at the next synchronization or on the way out (BigFoot's
// [Loop] rule, Rhodes' thesis §3.3.3). The range then holds
// every element accessed only if, on every path,
//
//   - the access runs on every iteration that goes on to the next one (an
//     iteration that skips it leaves a hole in the range): its block
//     dominates every back edge of its innermost loop, so a continue,
//     labelled or not, or a goto that skips it refuses it;
//   - the operands of its address keep their value through the loop, or
//     the range would name the wrong array: the slice or array pointer,
//     and each value of the index other than the loop's header φs (the
//     instrumenter requires the index affine in the induction variable),
//     is defined before the loop, computed from such values, or loaded
//     from a variable that nothing in the loop may store to (stableIn);
//   - no instruction that may panic runs between the access and the end
//     of its statement, where the extent is stored: a recovered panic, or
//     runtime.Goexit (a call that does not return), would leave the access
//     out of the range with nothing else checking it;
//   - its statement is one the extent can be stored after: an assignment,
//     an expression, ++/-- or a var declaration at the top level of the
//     body, which completes only by evaluating all of its operands, or the
//     condition of an if statement without an init statement (the extent
//     is stored before the branches run);
//   - nothing in that statement may synchronize (a call whose kill set is
//     not empty, a receive, close): the runtime checks a pending range at a
//     synchronization, and Go leaves the order of a plain load relative to
//     the calls of its statement unspecified, so an access may run after
//     a synchronization of its statement that precedes it in the source.
//     Only the single target of a plain assignment is written after its
//     right-hand side runs: for it, only what is evaluated to find the
//     targets' addresses counts.
//
// A read with such a hazard after it may still be held if the extent is
// stored at the read itself (LoopSite.AtAccess). A write may be only as
// the single target of a plain assignment, which Go performs after
// evaluating everything else in the statement; in a tuple assignment the
// targets are assigned left to right, and a later target's index or nil
// check may panic after an earlier one was written.
//
// break and return leave the loop after complete statements, and the
// runtime commits the range on every way out of the function, so they
// refuse nothing. An access through the element in the branch that
// leaves, as the v of `if e.k == key { return e.v }`, runs at most once
// per execution of the loop: it is left out of the range and keeps its
// own check (onTheWayOut), so that the condition's reads may be held.

// A LoopSite is placement's decision on the accesses of one kind through
// one element address in a loop, keyed by the SiteKey of the element's
// index expression (Pos: its bracket, the IndexAddr's position).
type LoopSite struct {
	// Loop is the position of the loop statement (its for keyword) whose
	// body's statements hold the accesses: the loop whose range holds
	// them.
	Loop token.Pos
	// Sites are the accesses through the element (s[i], s[i].f, p.f of
	// p := &s[i]), by the positions go/ssa gives them, sorted.
	Sites []SiteKey
	// The index is Coef·i + d for the induction variable i of the loop,
	// which moves by Step per iteration, and d stable through the loop
	// (Coef and Step 0: the index does not move in the loop).
	Coef, Step int64
	// Refused says why no static range may hold the access; "" if one may.
	Refused string
	// AtAccess (reads only) is set when an instruction that may panic can
	// run between the read and the end of its statement (Hazard says
	// which): a range may hold the read only if its extent is stored at
	// the read itself.
	AtAccess bool
	Hazard   string
	// Hazards are the positions of every instruction of the read's
	// statement that may panic, other than its own address computation
	// (an IndexAddr's bracket, a call's parenthesis), in source order.
	Hazards []token.Pos
}

func (s *LoopSite) String() string {
	switch {
	case s.Refused != "":
		return "refused: " + s.Refused
	case s.AtAccess:
		return "at access: " + s.Hazard
	}
	return "ok"
}

// LoopSites decides, for every element access through an IndexAddr in a
// loop of fn, whether a static loop range may hold it. facts decides which
// calls may panic (Facts.MayPanicAt) and may be shared across functions;
// prover decides the bounds checks the loop's conditions prove in range;
// safe, if not nil, is the static safe class of fn's package, whose
// variables no call in a loop can store to.
func LoopSites(fn *ssa.Function, facts *Facts, prover entail.Prover, safe *SafeVars) map[SiteKey]*LoopSite {
	return loopSitesOf(fn, facts, prover, safe).out
}

// loopSitesOf makes LoopSites' decisions and keeps what the merges of
// static ranges need (mergeCandidates).
func loopSitesOf(fn *ssa.Function, facts *Facts, prover entail.Prover, safe *SafeVars) *loopSites {
	out := map[SiteKey]*LoopSite{}
	if len(fn.Blocks) == 0 {
		return &loopSites{out: out}
	}
	a := &analysis{fn: fn, n: newNamer(fn, nil), en: &entailer{prover: prover}, acc: map[ssa.Instruction][]*Access{}}
	a.cfg.Safe = safe
	if facts != nil {
		a.cfg.Effects = facts.ks
	}
	a.en.congruent = a.congruent
	if irreducible(fn) {
		for _, b := range fn.Blocks {
			for _, in := range b.Instrs {
				for _, k := range siteKeys(in) {
					out[k] = &LoopSite{Refused: "irreducible control flow"}
				}
			}
		}
		return &loopSites{out: out}
	}
	a.loops = a.findLoops()
	a.facts = make(map[*ssa.BasicBlock][]entail.Fact)
	for _, b := range fn.Blocks {
		a.facts[b] = a.blockFacts(b)
	}
	ls := &loopSites{a: a, facts: facts, out: out, body: loopBody(fn)}
	ls.hazards()
	ls.synchronizations()
	for _, b := range fn.Blocks {
		loops := ls.loopsOf(b)
		if len(loops) == 0 {
			continue
		}
		for _, in := range b.Instrs {
			ix, ok := in.(*ssa.IndexAddr)
			if !ok || !ix.Pos().IsValid() {
				continue
			}
			ls.decide(ix, loops)
		}
	}
	return ls
}

// loopSites is the state of one LoopSites.
type loopSites struct {
	a     *analysis
	facts *Facts
	out   map[SiteKey]*LoopSite
	body  *loopSyntax
	// haz lists the instructions in loops that may panic; noPos, the
	// loops holding one without a position (no statement to charge it
	// to), with what it is.
	haz   []hazard
	noPos map[*loop]string
	// syncs lists the instructions of fn that may synchronize, with what
	// each is.
	syncs []hazard
	// accs are the element accesses in loops, in the order decided
	// (mergeCandidates).
	accs []loopAccess
}

type hazard struct {
	in   ssa.Instruction
	what string
}

// loopsOf returns the loops whose body holds b, innermost first.
func (ls *loopSites) loopsOf(b *ssa.BasicBlock) []*loop {
	var out []*loop
	for _, l := range ls.a.loops {
		if l.body[b] {
			out = append(out, l)
		}
	}
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && len(out[j].body) < len(out[j-1].body); j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}

// hazards lists the instructions of the loops' blocks that may panic or
// not return: MayPanicAt's, less the bounds checks the block's facts (the
// branch conditions that dominate it, the induction variables' ranges, the
// bounds checks already passed in the block) prove in range.
func (ls *loopSites) hazards() {
	ls.noPos = map[*loop]string{}
	for _, b := range ls.a.fn.Blocks {
		loops := ls.loopsOf(b)
		if len(loops) == 0 {
			continue
		}
		nonNil := map[string]bool{}
		facts := append([]entail.Fact(nil), ls.a.facts[b]...)
		for _, in := range b.Instrs {
			if what := ls.mayPanic(in, nonNil, facts); what != "" {
				if in.Pos().IsValid() {
					ls.haz = append(ls.haz, hazard{in, what})
				} else {
					for _, l := range loops {
						if ls.noPos[l] == "" {
							ls.noPos[l] = what
						}
					}
				}
			}
			noteNonNil(in, nonNil)
			if ix, ok := in.(*ssa.IndexAddr); ok {
				if lo, hi, ok := ls.bounds(ix); ok {
					facts = append(facts, entail.Le(entail.Const(0), lo), entail.Lt(lo, hi))
				}
			}
		}
	}
}

// synchronizations lists the instructions of fn that may synchronize: by
// the kill sets (a call with effects, a receive, a send, select, go), or a
// call of a function with an HTTP handler's signature, which the
// instrumenter gives I/O hooks the kill sets do not see.
func (ls *loopSites) synchronizations() {
	var ks *KillSets
	if ls.facts != nil {
		ks = ls.facts.ks
	}
	for _, b := range ls.a.fn.Blocks {
		for _, in := range b.Instrs {
			if !in.Pos().IsValid() || ks.Instr(in) == 0 && !HandlerCall(in) {
				continue
			}
			what := fmt.Sprintf("%T", in)[len("*ssa."):]
			switch in := in.(type) {
			case *ssa.Call:
				what = "call " + hazardCall(in)
			case *ssa.UnOp:
				what = "receive"
			}
			ls.syncs = append(ls.syncs, hazard{in, what})
		}
	}
}

// mayPanic says what in may do instead of returning normally (panic, or
// end the goroutine), or "" if it cannot.
func (ls *loopSites) mayPanic(in ssa.Instruction, nonNil map[string]bool, facts []entail.Fact) string {
	switch in := in.(type) {
	case *ssa.Jump, *ssa.If, *ssa.Return, *ssa.Phi, *ssa.DebugRef, *ssa.RunDefers, *ssa.Alloc, *ssa.Lookup, *ssa.Next, *ssa.Range:
		return ""
	case *ssa.UnOp:
		if fv, ok := in.X.(*ssa.FreeVar); ok && in.Op == token.MUL && fv.Type() != nil {
			return "" // a captured variable's address is never nil
		}
	case *ssa.IndexAddr:
		if lo, hi, ok := ls.bounds(in); ok && ls.a.en.holds(facts, entail.Le(entail.Const(0), lo)) && ls.a.en.holds(facts, entail.Lt(lo, hi)) {
			if _, ptr := in.X.Type().Underlying().(*types.Pointer); !ptr || isNonNil(in.X, nonNil) {
				return ""
			}
		}
		if !ls.facts.MayPanicAt(in, nonNil) {
			return ""
		}
		return "index out of range"
	}
	if !ls.facts.MayPanicAt(in, nonNil) {
		return ""
	}
	switch in := in.(type) {
	case *ssa.Index:
		return "index out of range"
	case *ssa.MapUpdate:
		return "nil map write"
	case *ssa.UnOp:
		if in.Op == token.ARROW {
			return "receive"
		}
		return "nil dereference"
	case *ssa.Store, *ssa.FieldAddr:
		return "nil dereference"
	case *ssa.BinOp:
		if in.Op == token.QUO || in.Op == token.REM {
			return "division by zero"
		}
		return "negative shift"
	case *ssa.TypeAssert:
		return "type assertion"
	case *ssa.Slice:
		return "slice bounds out of range"
	case *ssa.Panic:
		return "panic"
	case *ssa.Call:
		return "call " + hazardCall(in)
	}
	return fmt.Sprintf("%T", in)[len("*ssa."):]
}

// hazardCall names the function a call calls, for a hazard's description.
func hazardCall(c *ssa.Call) string {
	if f := c.Call.StaticCallee(); f != nil {
		if f.Pkg != nil && f.Parent() == nil {
			return f.Pkg.Pkg.Name() + "." + f.Name()
		}
		return f.Name()
	}
	if c.Call.IsInvoke() {
		return c.Call.Method.Name()
	}
	return c.Call.Value.Name()
}

// bounds returns the index of ix and the length it must be below, as
// terms.
func (ls *loopSites) bounds(ix *ssa.IndexAddr) (idx, n entail.Term, ok bool) {
	idx = ls.a.n.termOf(ix.Index)
	switch t := ix.X.Type().Underlying().(type) {
	case *types.Slice:
		return idx, ls.a.n.length(ix.X), true
	case *types.Pointer:
		if at, ok := t.Elem().Underlying().(*types.Array); ok {
			return idx, entail.Const(at.Len()), true
		}
	}
	return idx, n, false
}

// decide records the decisions on the accesses through ix, which lies in
// loops (innermost first).
func (ls *loopSites) decide(ix *ssa.IndexAddr, loops []*loop) {
	coef, step, notAffine := ls.affine(ix.Index, loops[0])
	for _, acc := range elementAccesses(ix) {
		if ls.onTheWayOut(acc, loops[0]) {
			continue
		}
		_, write := acc[len(acc)-1].(*ssa.Store)
		k := SiteKey{ix.Pos(), write}
		s := ls.out[k]
		if s == nil {
			s = &LoopSite{}
			ls.out[k] = s
		}
		if s.Refused != "" {
			continue
		}
		at := accessPos(acc)
		ls.accs = append(ls.accs, loopAccess{ix: ix, acc: acc, key: SiteKey{at, write}, loop: loops[0]})
		s.Sites = addSite(s.Sites, SiteKey{at, write})
		s.Refused = ls.refusal(ix, acc, loops)
		if s.Refused == "" {
			loop := ls.body.loop[ls.body.unit(at)]
			if s.Loop.IsValid() && s.Loop != loop {
				s.Refused = "it is accessed in the bodies of two loops"
			}
			s.Loop = loop
		}
		if s.Refused == "" && notAffine != "" {
			s.Refused = "its index " + notAffine
		}
		if s.Refused == "" {
			s.Refused = ls.syncIn(at, write)
		}
		s.Coef, s.Step = coef, step
		if s.Refused != "" || write && ls.body.lastTarget(at) {
			continue
		}
		if h, hs := ls.hazardAfter(at, acc); h != "" {
			if write {
				s.Refused = "may panic after the write: " + h
			} else {
				if !s.AtAccess {
					s.AtAccess, s.Hazard = true, h
				}
				s.Hazards = mergePos(s.Hazards, hs)
			}
		}
	}
}

// affine returns the coefficient of the induction variable of l in the
// index idx and the variable's step per iteration (0, 0 if idx does not
// move with one), or why idx is not affine in one: it moves with two
// header φs of l, with one that is no induction variable (no constant
// step), or with a product of one and another value. The other values of
// idx are stable through the loop or refused (stableIn).
func (ls *loopSites) affine(idx ssa.Value, l *loop) (coef, step int64, why string) {
	t := ls.a.n.termOf(idx)
	var phi *ssa.Phi
	for _, m := range t.Monos {
		switch v := ls.a.n.atom(m.Var).(type) {
		case *ssa.Phi:
			if v.Block() != l.header || m.Coef == 0 {
				continue
			}
			if phi != nil {
				return 0, 0, "moves with two variables of the loop"
			}
			phi, coef = v, m.Coef
		case *ssa.BinOp:
			if movesWith(v, l) {
				return 0, 0, "is the product of a variable of the loop and another value"
			}
		}
	}
	if phi == nil {
		return 0, 0, ""
	}
	for _, v := range l.ivs {
		if v.phi == phi {
			return coef, v.step, ""
		}
	}
	return 0, 0, "moves with a variable of the loop that has no constant step"
}

// movesWith reports whether the integer arithmetic v uses a φ of l's
// header.
func movesWith(v ssa.Value, l *loop) bool {
	switch v := v.(type) {
	case *ssa.Phi:
		return v.Block() == l.header
	case *ssa.BinOp:
		return movesWith(v.X, l) || movesWith(v.Y, l)
	case *ssa.Convert:
		return movesWith(v.X, l)
	}
	return false
}

// onTheWayOut reports whether the access acc runs only on the way out
// of the innermost loop l: its block is outside l's natural loop (no
// path from it reaches a back edge of l without entering l anew), and it
// is in no top-level statement of a loop body, such as the v of
// `if e.k == key { return e.v }`. It runs at most once per execution of
// the loop, and keeps its own check: no range holds it, and it refuses
// none of the other accesses through the element.
func (ls *loopSites) onTheWayOut(acc []ssa.Instruction, l *loop) bool {
	return !l.body[acc[len(acc)-1].Block()] && ls.body.unit(accessPos(acc)) == nil
}

// refusal says why no static range may hold the access acc (the address
// chain from ix, then the load or store) in loops, or "".
func (ls *loopSites) refusal(ix *ssa.IndexAddr, acc []ssa.Instruction, loops []*loop) string {
	u := ls.body.unit(accessPos(acc))
	if u == nil {
		return "not in a statement of a loop body"
	}
	if !ls.body.storable[u] {
		return "its statement is no assignment, expression, ++/--, var or if condition"
	}
	// A range lives for one execution of the loop statement that holds
	// it, the innermost natural loop, unless a goto made that loop: then
	// the statement's may be any of the enclosing ones.
	if !ls.body.gotos {
		loops = loops[:1]
	}
	b := acc[len(acc)-1].Block()
	for _, l := range loops {
		for _, latch := range l.latches {
			if !b.Dominates(latch) {
				return "an iteration may skip it (continue or goto)"
			}
		}
		if what := ls.noPos[l]; what != "" {
			return "the loop may panic where no statement says (" + what + ")"
		}
		if why := ls.a.stableIn(ix.X, l, false); why != "" {
			return "its operand " + why
		}
		if why := ls.a.stableIn(ix.Index, l, true); why != "" {
			return "its index " + why
		}
	}
	return ""
}

// syncIn says what may synchronize in the statement of the access at
// pos, or "": for a write that is a whole target of a plain assignment,
// only in the assignment's targets (their addresses are evaluated, and
// the right-hand side runs, before any target is written); else anywhere
// in the statement.
func (ls *loopSites) syncIn(pos token.Pos, write bool) string {
	var region ast.Node = ls.body.unit(pos)
	if write {
		if lhs := ls.body.assignTargets(pos); lhs != nil {
			region = lhs
		}
	}
	for _, h := range ls.syncs {
		if p := h.in.Pos(); p >= region.Pos() && p < region.End() {
			return "its statement may synchronize: " + h.what + " at " + ls.a.line(p)
		}
	}
	return ""
}

// hazardAfter says what may panic in the statement of the access at pos
// other than the access itself (the instructions of acc), first in the
// source, or ""; and where each such instruction is.
func (ls *loopSites) hazardAfter(pos token.Pos, acc []ssa.Instruction) (string, []token.Pos) {
	u := ls.body.unit(pos)
	own := map[ssa.Instruction]bool{}
	for _, in := range acc {
		own[in] = true
	}
	// The outer levels of a[i][j] of nested arrays, and the fields the
	// element is in, compute the same address.
	for v := acc[0].(*ssa.IndexAddr).X; ; {
		in, ok := v.(ssa.Instruction)
		if !ok {
			break
		}
		switch x := v.(type) {
		case *ssa.IndexAddr:
			own[in], v = true, x.X
			continue
		case *ssa.FieldAddr:
			own[in], v = true, x.X
			continue
		}
		break
	}
	what, first := "", token.NoPos
	var at []token.Pos
	for _, h := range ls.haz {
		p := h.in.Pos()
		if p >= u.Pos() && p < u.End() && !own[h.in] && !sameBoundsCheck(h.in, acc) {
			at = append(at, p)
			if !first.IsValid() || p < first {
				what, first = h.what+" at "+ls.a.line(p), p
			}
		}
	}
	sort.Slice(at, func(i, j int) bool { return at[i] < at[j] })
	return what, at
}

// addSite adds k to the sorted list of sites ks.
func addSite(ks []SiteKey, k SiteKey) []SiteKey {
	i, found := slices.BinarySearchFunc(ks, k, SiteKey.compare)
	if found {
		return ks
	}
	return slices.Insert(ks, i, k)
}

// mergePos returns the union of two sorted lists of positions, sorted.
func mergePos(a, b []token.Pos) []token.Pos {
	out := append(append([]token.Pos(nil), a...), b...)
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return slices.Compact(out)
}

// sameBoundsCheck reports whether in is another computation of the
// address acc starts with (the same operands): it panics only where the
// access's own does, before the access.
func sameBoundsCheck(in ssa.Instruction, acc []ssa.Instruction) bool {
	ix, ok := in.(*ssa.IndexAddr)
	own := acc[0].(*ssa.IndexAddr)
	return ok && ix.X == own.X && ix.Index == own.Index
}

// accessPos returns the position of the access acc ends with (the bracket
// of s[i], the selector of s[i].f or of p.f for p := &s[i]), or of its
// element address if it has none.
func accessPos(acc []ssa.Instruction) token.Pos {
	if p := acc[len(acc)-1].Pos(); p.IsValid() {
		return p
	}
	return acc[0].Pos()
}

// elementAccesses returns the loads and stores through the element
// address ix, each with the address chain that leads to it (ix, then the
// field and array-element addresses taken from it, then the access).
func elementAccesses(ix *ssa.IndexAddr) [][]ssa.Instruction {
	var out [][]ssa.Instruction
	var walk func(v ssa.Value, chain []ssa.Instruction)
	walk = func(v ssa.Value, chain []ssa.Instruction) {
		for _, r := range *v.Referrers() {
			switch r := r.(type) {
			case *ssa.UnOp:
				if r.Op == token.MUL {
					out = append(out, append(chain[:len(chain):len(chain)], r))
				}
			case *ssa.Store:
				if r.Addr == v {
					out = append(out, append(chain[:len(chain):len(chain)], r))
				}
			case *ssa.FieldAddr:
				walk(r, append(chain[:len(chain):len(chain)], r))
			case *ssa.IndexAddr:
				if r.X == v {
					walk(r, append(chain[:len(chain):len(chain)], r))
				}
			}
		}
	}
	walk(ix, []ssa.Instruction{ix})
	return out
}

// siteKeys returns the keys of the accesses through in, if it is an
// element address.
func siteKeys(in ssa.Instruction) []SiteKey {
	ix, ok := in.(*ssa.IndexAddr)
	if !ok || !ix.Pos().IsValid() {
		return nil
	}
	var out []SiteKey
	for _, acc := range elementAccesses(ix) {
		_, write := acc[len(acc)-1].(*ssa.Store)
		out = append(out, SiteKey{ix.Pos(), write})
	}
	return out
}

// loopSyntax finds the statement of a loop body an access is in: the
// extent of its range is stored after that statement, or, for the
// condition of an if statement, after the condition.
type loopSyntax struct {
	// units are the top-level statements of the loop bodies of the
	// function (an if's condition standing for the if), innermost loop
	// last; targets, the single targets of plain assignments among them.
	units   []ast.Node
	targets []ast.Expr
	// storable holds the units after which an extent can be stored:
	// the if conditions and the simple statements (simpleStmt).
	storable map[ast.Node]bool
	// loop gives each unit's loop statement's position.
	loop map[ast.Node]token.Pos
	// assigns are the plain assignments (=) among the units.
	assigns []*ast.AssignStmt
	gotos   bool // the function has a goto statement
}

func loopBody(fn *ssa.Function) *loopSyntax {
	ls := &loopSyntax{storable: map[ast.Node]bool{}, loop: map[ast.Node]token.Pos{}}
	root := fn.Syntax()
	if root == nil {
		return ls
	}
	ast.Inspect(root, func(n ast.Node) bool {
		if lit, ok := n.(*ast.FuncLit); ok && lit != root {
			return false // its own function
		}
		if br, ok := n.(*ast.BranchStmt); ok && br.Tok == token.GOTO {
			ls.gotos = true
		}
		var body *ast.BlockStmt
		switch n := n.(type) {
		case *ast.ForStmt:
			body = n.Body
		case *ast.RangeStmt:
			body = n.Body
		}
		if body == nil {
			return true
		}
		for _, st := range body.List {
			switch st := st.(type) {
			case *ast.IfStmt:
				if st.Init == nil {
					ls.units = append(ls.units, st.Cond)
					ls.storable[st.Cond], ls.loop[st.Cond] = true, n.Pos()
					continue
				}
			case *ast.AssignStmt:
				if st.Tok == token.ASSIGN {
					ls.assigns = append(ls.assigns, st)
					if len(st.Lhs) == 1 {
						ls.targets = append(ls.targets, st.Lhs[0])
					}
				}
			case *ast.IncDecStmt:
				ls.targets = append(ls.targets, st.X)
			}
			ls.units = append(ls.units, st)
			ls.storable[st], ls.loop[st] = simpleStmt(st), n.Pos()
		}
		return true
	})
	return ls
}

// unit returns the statement (or if condition) of the innermost loop body
// holding pos, or nil.
func (ls *loopSyntax) unit(pos token.Pos) ast.Node {
	var u ast.Node
	for _, n := range ls.units {
		if n.Pos() <= pos && pos < n.End() {
			if u == nil || n.End()-n.Pos() < u.End()-u.Pos() {
				u = n
			}
		}
	}
	return u
}

// simpleStmt reports whether st completes only by evaluating all of its
// operands: an assignment, expression, ++/-- or var statement.
func simpleStmt(st ast.Stmt) bool {
	switch st := st.(type) {
	case *ast.AssignStmt, *ast.ExprStmt, *ast.IncDecStmt:
		return true
	case *ast.DeclStmt:
		gd, ok := st.Decl.(*ast.GenDecl)
		return ok && gd.Tok == token.VAR
	}
	return false
}

// assignTargets returns the span of the targets of the plain assignment of which
// the write at pos (the bracket of s[i], the selector of x.f) is a whole
// target, or nil.
func (ls *loopSyntax) assignTargets(pos token.Pos) ast.Node {
	for _, as := range ls.assigns {
		for _, t := range as.Lhs {
			if accessPosOf(t) == pos {
				return span{as.Lhs[0].Pos(), as.Lhs[len(as.Lhs)-1].End()}
			}
		}
	}
	return nil
}

// span is a range of source positions, as an ast.Node.
type span struct{ pos, end token.Pos }

func (s span) Pos() token.Pos { return s.pos }
func (s span) End() token.Pos { return s.end }

// accessPosOf returns the position go/ssa gives the access of the
// addressable expression e (the selector of x.f, the bracket of s[i]), or
// NoPos.
func accessPosOf(e ast.Expr) token.Pos {
	switch e := ast.Unparen(e).(type) {
	case *ast.SelectorExpr:
		return e.Sel.Pos()
	case *ast.IndexExpr:
		return e.Lbrack
	}
	return token.NoPos
}

// lastTarget reports whether the write at pos (the bracket of s[i], the
// selector of x.f) is the single target of a plain assignment or an
// increment of a loop body: the statement writes it after evaluating
// everything else, so nothing in it can panic after the write.
func (ls *loopSyntax) lastTarget(pos token.Pos) bool {
	for _, t := range ls.targets {
		if accessPosOf(t) == pos {
			return true
		}
	}
	return false
}

// stableIn says why v may change value from one iteration of l to the
// next, or "" if it cannot: v is defined before the loop, is a constant
// or an address computed from stable values, is computed without
// panicking from stable values (recomputable), or is loaded from a
// stable address that nothing in the loop may store to. With index set,
// the φs of l's header (the induction variables) count as stable: the
// instrumenter requires the index affine in one of them.
func (a *analysis) stableIn(v ssa.Value, l *loop, index bool) string {
	if available(v, l.header) {
		return ""
	}
	switch x := v.(type) {
	case *ssa.Phi:
		if index && x.Block() == l.header && isInteger(x.Type()) {
			return ""
		}
		return "is assigned in the loop"
	case *ssa.FieldAddr:
		return a.stableIn(x.X, l, false)
	case *ssa.IndexAddr:
		if why := a.stableIn(x.X, l, false); why != "" {
			return why
		}
		return a.stableIn(x.Index, l, true)
	case *ssa.UnOp:
		if x.Op != token.MUL {
			break
		}
		if why := a.stableIn(x.X, l, false); why != "" {
			return why
		}
		return a.storedIn(x.X, x.Type(), l)
	}
	if ops, ok := recomputable(v); ok {
		for _, op := range ops {
			if why := a.stableIn(op, l, index); why != "" {
				return why
			}
		}
		return ""
	}
	return "is computed in the loop"
}

// storedIn says what in l may store to the variable at addr (a stable
// address) of type t, or "": a store that may alias it (to the same
// variable, or through a pointer that may point to it: one whose stored
// type contains t, mayAlias's rule of typed memory), or a call or go
// statement that may write it (unless the variable's address is used only
// to load and store it, so that no callee can reach it, or it is in the
// static safe class, stored only before it is shared, never by a closure).
func (a *analysis) storedIn(addr ssa.Value, t types.Type, l *loop) string {
	root := addrRoot(addr)
	private := privateAlloc(root) || a.cfg.Safe.Value(root)
	for b := range l.body {
		for _, in := range b.Instrs {
			switch in := in.(type) {
			case *ssa.Store:
				if a.storeMayWrite(in.Addr, in.Val.Type(), root, private, t) {
					return "may change through a pointer at " + a.line(in.Pos())
				}
			case ssa.CallInstruction:
				if private {
					continue
				}
				c := in.Common()
				if bi, ok := c.Value.(*ssa.Builtin); ok {
					switch bi.Name() {
					case "copy", "clear":
						if s, ok := c.Args[0].Type().Underlying().(*types.Slice); ok && containsType(s.Elem(), t) {
							return "may change through a " + bi.Name() + " in the loop"
						}
					}
					continue
				}
				if fn := c.StaticCallee(); fn != nil && isPure(fn) {
					continue
				}
				return "may change in a call at " + a.line(in.Pos())
			}
		}
	}
	return ""
}

// storeMayWrite reports whether a store of a value of type stored to
// addr may write the variable of type t at an address rooted at root.
func (a *analysis) storeMayWrite(addr ssa.Value, stored types.Type, root ssa.Value, private bool, t types.Type) bool {
	r := addrRoot(addr)
	if r == root {
		return true
	}
	if distinctVar(r) && distinctVar(root) {
		return false // two variables
	}
	if private || !containsType(stored, t) {
		return false
	}
	return true
}

// addrRoot returns the address an address computation starts from: x of
// &x.f, &x[i] (x a pointer to an array), repeatedly.
func addrRoot(v ssa.Value) ssa.Value {
	for {
		switch x := v.(type) {
		case *ssa.FieldAddr:
			v = x.X
		case *ssa.IndexAddr:
			if _, ok := x.X.Type().Underlying().(*types.Pointer); !ok {
				return v
			}
			v = x.X
		default:
			return v
		}
	}
}

// distinctVar reports whether v is the address of a variable of its own:
// a local or global variable, which no other such address denotes.
func distinctVar(v ssa.Value) bool {
	switch v.(type) {
	case *ssa.Alloc, *ssa.Global:
		return true
	}
	return false
}

// privateAlloc reports whether v is a local variable whose address is
// only loaded from and stored to (directly, or through the addresses of
// its fields and elements): nothing but those instructions reaches it.
func privateAlloc(v ssa.Value) bool {
	if _, ok := v.(*ssa.Alloc); !ok {
		return false
	}
	var private func(v ssa.Value) bool
	private = func(v ssa.Value) bool {
		for _, r := range *v.Referrers() {
			switch r := r.(type) {
			case *ssa.UnOp:
				if r.Op != token.MUL {
					return false
				}
			case *ssa.Store:
				if r.Addr != v || r.Val == v {
					return false
				}
			case *ssa.FieldAddr:
				if !private(r) {
					return false
				}
			case *ssa.IndexAddr:
				if _, ok := r.X.Type().Underlying().(*types.Pointer); !ok || !private(r) {
					return false
				}
			case *ssa.DebugRef:
			default:
				return false
			}
		}
		return true
	}
	return private(v)
}

// containsType reports whether a value of type s holds a value of type t:
// s is t, or a struct or array with such a part.
func containsType(s, t types.Type) bool {
	if types.Identical(s, t) {
		return true
	}
	switch u := s.Underlying().(type) {
	case *types.Struct:
		for i := range u.NumFields() {
			if containsType(u.Field(i).Type(), t) {
				return true
			}
		}
	case *types.Array:
		return containsType(u.Elem(), t)
	}
	return false
}

// line names the line of pos in a decision's reason.
func (a *analysis) line(pos token.Pos) string {
	return fmt.Sprintf("line %d", a.fn.Prog.Fset.Position(pos).Line)
}
