package instrument

import (
	"fmt"
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"slices"
	"strings"

	"github.com/bigfoot-go/bigfoot/placement"
)

// Static loop ranges (-mode=bigfoot).
//
// A counting loop whose element accesses are affine in its induction
// variable runs with plain accesses; each access site keeps one pending
// range (detector.Range, on a footprint of the function's prologue) whose
// extent the loop updates with a plain store after the statement that
// accesses it, and the runtime checks the range in one operation at the
// next synchronization, the next execution of the loop, the function's
// return or the goroutine's end (BigFoot's [Loop] rule,
// Rhodes' thesis §3.3.3, with the check made by the runtime so
// that every way out of the loop, a recovered panic and runtime.Goexit
// included, checks the iterations that ran and no other):
//
//	for i := lo; i < hi; i++ {         for i := __bf.OpenRange(__bfF1_0, a, lo, 1, 0, 1, 0, 0); i < hi; i++ {
//		a[i] = f(i)               →        a[i] = f(i); __bfF1_0.Next = (i) + 1
//	}                                  }
//
// Placement decides which accesses a range of which loop holds
// (placement.LoopSites, over SSA, through the package's
// placement.SitePlan: loopRefused): the operands keep their value through
// the loop, every iteration that goes on runs the access, its statement
// is one the extent can be stored after (a simple statement of the body,
// or an if condition), nothing in it may synchronize (but the right-hand
// side of an assignment whose target is the write), and nothing in it may
// panic after the access, except that a read after which something may
// is admitted if it stores its range's extent itself (rangeload.go). This
// file renders those decisions: a loop has a form it renders when it is
// `for i := lo; cond; i++` (or i--, i += K, i -= K with K constant) or
// `for i := range x` over an int i that the body neither assigns nor
// takes the address of nor captures; an admitted access, when it is an
// element s[c*i+d] of a slice variable s, or a field s[c*i+d].f.g of one
// (no pointer indirection), or p.f of p := &s[c*i+d], or an element of
// nested fixed arrays (flatSiteOf), where c is a nonzero constant and d
// is built from constants and int variables with +, - and *, and s is not
// declared again in the body. Where it cannot render what placement
// admits, it writes the refusal and why into the plan (refuseRange,
// refuseLoop).
//
// Every other element access in a loop keeps its footprint record
// (footprint.go); with -bfv a note says why a loop has no static range.

// loopPlan is the static ranges of one for loop being rendered.
type loopPlan struct {
	loop  token.Pos // the loop statement's position (placement.LoopSite.Loop)
	iv    *types.Var
	step  int64                    // the induction variable's step
	sites map[accessKey]*rangeSite // qualifying accesses
	order []*rangeSite             // distinct ranges, in order of appearance
	// alias maps a variable p of `p := &s[c*i+d]` (a top-level statement
	// of the body, p never assigned again nor captured) to s[c*i+d]: p.f
	// in a later statement is the element's field.
	alias map[*types.Var]*ast.IndexExpr
	// atAccess holds the reads that store their range's extent
	// themselves (placement.LoopSite.AtAccess, rangeload.go), and
	// loadNext the extent each read of a merged range stores.
	atAccess map[accessKey]bool
	loadNext map[accessKey]string
	// exprOf gives each qualifying access's expression, and byPlan the
	// access of each of placement's site keys.
	exprOf map[accessKey]ast.Expr
	byPlan map[placement.SiteKey]accessKey
}

// accessKey identifies one access expression of a kind.
type accessKey struct {
	pos, end token.Pos
	write    bool
}

// rangeSite is one static range: the accesses of one kind of one affine
// element of one slice.
type rangeSite struct {
	operand string // the slice variable's name
	c       int64  // coefficient of the induction variable
	d       string // the index with the induction variable replaced by 0
	index   string // the index expression's text
	off     string // offset of the accessed field in the element ("0")
	size    string // size of the accessed field ("0": the element)
	write   bool   //
	pos     token.Pos
	stmts   map[int]bool // top-level statements of the body it occurs in
	fp      string       // footprint variable, once used
	// Set for a range merging adjacent sites (placement.RangeMerge,
	// mergeRanges): the merge's key (its first member), the index step of
	// the merged range (±1), the index after its last element once each
	// statement has run, and the index's constant term δ.
	merged bool
	merge  placement.SiteKey
	step1  int64
	nextAt map[int]string
	delta  int64
	// Set for a flattened site (flatSiteOf): the address of the operand's
	// first element, an unsafe.Pointer expression evaluated once before
	// the loop without dereferencing anything, and the size of the
	// innermost element; c, d and the index then count innermost
	// elements from it.
	ptr, elem string
	// keys are placement's decisions it renders: the brackets of the
	// elements its accesses go through.
	keys []placement.SiteKey
	// members are the sites a merged range stands for, in the body's
	// order (the site table's "l" entry: loopCoverage).
	members []*rangeSite
}

// planLoop returns the static ranges of the for loop s, or nil (with a
// note saying why) if it has none.
func (r *fileRewriter) planLoop(s *ast.ForStmt) *loopPlan {
	iv, step, why := r.loopIV(s)
	if iv == nil {
		if why == "" {
			why = "not a counting loop"
		}
		r.refuseLoop(s.Pos(), why)
		return nil
	}
	return r.planBody(s.Pos(), iv, step, s.Body)
}

// refuseLoop records that no static range placement admits in the loop at
// pos is rendered, and why, with a note if there is one.
func (r *fileRewriter) refuseLoop(pos token.Pos, why string) {
	keys := r.sitePlan().LoopKeys(pos)
	for _, k := range keys {
		r.rangeOutcome(k, "loop has no static range: "+why)
	}
	for _, m := range r.sitePlan().Merges(pos) {
		r.mergeOutcome(m.First, "loop has no static range: "+why)
	}
	if len(keys) > 0 {
		r.note(pos, "loop has no static range: %s", why)
	}
}

// rangeOutcome records what this rendering of the file did with the static
// range placement admits at k: rendered it (why == "") or not, and why.
// Rendering wins, and the first reason stands; commitRanges writes the
// outcomes of the final rendering into placement's plan.
func (r *fileRewriter) rangeOutcome(k placement.SiteKey, why string) {
	r.outcome(&r.ranges, k, why)
}

// mergeOutcome records what this rendering of the file did with the merged
// range placement decides, by its first member k (as rangeOutcome).
func (r *fileRewriter) mergeOutcome(k placement.SiteKey, why string) {
	r.outcome(&r.merges, k, why)
}

// callOutcome records what this rendering of the file did with the call
// placement covers whose parenthesis is k.Pos (as rangeOutcome).
func (r *fileRewriter) callOutcome(k placement.SiteKey, why string) {
	r.outcome(&r.calls, k, why)
}

// outcome records in *m what this rendering did with the decision at k.
func (r *fileRewriter) outcome(m *map[placement.SiteKey]string, k placement.SiteKey, why string) {
	if r.sitePlan() == nil {
		return
	}
	if *m == nil {
		*m = map[placement.SiteKey]string{}
	}
	if old, ok := (*m)[k]; !ok || why == "" && old != "" {
		(*m)[k] = why
	}
}

// commitRanges writes the outcomes of the static ranges, their merges and
// the covered calls of this rendering into placement's plan. Only the rendering of the file
// that is emitted commits, before its functions' copies are rendered.
func (r *fileRewriter) commitRanges() {
	plan := r.sitePlan()
	for e, m := range map[placement.Entry]map[placement.SiteKey]string{placement.EntryRange: r.ranges, placement.EntryMerge: r.merges, placement.EntryCall: r.calls} {
		for k, why := range m {
			if why == "" {
				plan.Render(e, k)
			} else {
				plan.Refuse(e, k, why)
			}
		}
	}
}

// planRange returns the static ranges of a range loop over the indices of
// a slice or array variable or over an int, `for i := range x`, or nil.
func (r *fileRewriter) planRange(s *ast.RangeStmt) *loopPlan {
	if why := r.rangeIV(s); why != "" {
		r.refuseLoop(s.Pos(), why)
		return nil
	}
	return r.planBody(s.Pos(), r.varOf(s.Key.(*ast.Ident)), 1, s.Body)
}

// rangeIV says why the range loop s has no induction variable whose
// static ranges the instrumenter can render, or "": its key must be a new
// int variable, the value blank or absent, and x a variable (OpenRange's
// statement before the loop evaluates it again) holding a slice, an array,
// a pointer to an array or an integer.
func (r *fileRewriter) rangeIV(s *ast.RangeStmt) string {
	id, ok := s.Key.(*ast.Ident)
	if !ok || s.Tok != token.DEFINE || s.Value != nil && !isBlank(s.Value) || isBlank(id) {
		return "not a range over indices alone"
	}
	iv := r.varOf(id)
	if iv == nil || !types.Identical(iv.Type(), types.Typ[types.Int]) {
		return "the index is not an int"
	}
	if r.sharedVar(iv) || r.assignedIn(s.Body, iv) {
		return id.Name + " is assigned, address-taken or captured in the loop"
	}
	if _, ok := ast.Unparen(s.X).(*ast.Ident); !ok {
		return "the range expression is not a variable"
	}
	switch u := placement.CoreType(r.typeOf(s.X)).(type) {
	case *types.Slice, *types.Array:
		return ""
	case *types.Pointer:
		if _, ok := placement.CoreType(u.Elem()).(*types.Array); ok {
			return ""
		}
	case *types.Basic:
		if u.Info()&types.IsInteger != 0 {
			return "" // not a string: its indices advance by runes
		}
	}
	return "not a range over a slice, an array or an integer"
}

// planBody returns the static ranges of the body of the loop statement at
// loop with induction variable iv of step step: those of the accesses of
// its statements (of the condition, for an if statement without an init
// statement) that placement puts in a range of this loop.
func (r *fileRewriter) planBody(loop token.Pos, iv *types.Var, step int64, body *ast.BlockStmt) *loopPlan {
	lp := &loopPlan{loop: loop, iv: iv, step: step, sites: map[accessKey]*rangeSite{}, alias: map[*types.Var]*ast.IndexExpr{},
		atAccess: map[accessKey]bool{}, loadNext: map[accessKey]string{}, exprOf: map[accessKey]ast.Expr{}, byPlan: map[placement.SiteKey]accessKey{}}
	keys := map[string]*rangeSite{}
	// join records access a of statement k at its range site, merged with
	// an earlier site of the same operand, index, field and kind.
	join := func(rs *rangeSite, a stmtAccess, k int) {
		key := fmt.Sprintf("%s|%s|%s|%s|%v", rs.operand, rs.index, rs.off, rs.size, rs.write)
		if old := keys[key]; old != nil {
			rs = old
		} else {
			keys[key] = rs
			lp.order = append(lp.order, rs)
		}
		rs.stmts[k] = true
		for _, ix := range r.elementIndices(a.e, lp) {
			if k := (placement.SiteKey{Pos: ix.Lbrack, Write: a.write}); !slices.Contains(rs.keys, k) {
				rs.keys = append(rs.keys, k)
			}
		}
		ak := accessKey{a.e.Pos(), a.e.End(), a.write}
		lp.sites[ak], lp.exprOf[ak] = rs, a.e
		lp.byPlan[placement.SiteKey{Pos: ssaPos(a.e), Write: a.write}] = ak
		if r.loopAtAccess(a.e, a.write, lp) {
			lp.atAccess[ak] = true
		}
	}
	for k, st := range body.List {
		if p, ix := r.elementAlias(st, body, k); p != nil {
			lp.alias[p] = ix
		}
		unit := st
		if ifs, ok := st.(*ast.IfStmt); ok && ifs.Init == nil {
			// The condition runs on every iteration that reaches the if:
			// its reads join ranges extended before the branches run.
			unit = &ast.ExprStmt{X: ifs.Cond}
		}
		for _, a := range r.stmtAccesses(unit, lp) {
			if rs := r.rangeSiteOf(body, lp, a.e, a.write); rs != nil {
				join(rs, a, k)
			}
			if a.write && opAssign(st) {
				for _, ix := range r.elementIndices(a.e, lp) {
					r.rangeOutcome(placement.SiteKey{Pos: ix.Lbrack}, "the read of an assignment operation or ++/-- goes with its write")
				}
			}
		}
	}
	// What placement admits in this loop that no access of its
	// statements reached (the read of s[i] += v, which the write's check
	// covers; p.f of an alias p := &s[i] not followed) is not rendered.
	for _, k := range r.sitePlan().LoopKeys(loop) {
		if !slices.ContainsFunc(lp.order, func(rs *rangeSite) bool { return slices.Contains(rs.keys, k) }) {
			r.rangeOutcome(k, "no access through it is in a form rendered here")
		}
	}
	if len(lp.sites) == 0 {
		for _, m := range r.sitePlan().Merges(loop) {
			r.mergeOutcome(m.First, "no access it merges is in a form rendered here")
		}
		return nil
	}
	r.mergeRanges(body, lp)
	return lp
}

// loopIV returns the induction variable of `for i := lo; …; i op= K` and
// its step, or nil and why not.
func (r *fileRewriter) loopIV(s *ast.ForStmt) (*types.Var, int64, string) {
	init, ok := s.Init.(*ast.AssignStmt)
	if !ok || init.Tok != token.DEFINE || len(init.Lhs) != 1 || len(init.Rhs) != 1 {
		return nil, 0, "" // not a counting loop: nothing to say
	}
	id, ok := init.Lhs[0].(*ast.Ident)
	if !ok {
		return nil, 0, ""
	}
	iv := r.varOf(id)
	if iv == nil || !types.Identical(iv.Type(), types.Typ[types.Int]) {
		return nil, 0, "induction variable is not an int"
	}
	var step int64
	switch p := s.Post.(type) {
	case *ast.IncDecStmt:
		if x, ok := p.X.(*ast.Ident); ok && r.varOf(x) == iv {
			step = 1
			if p.Tok == token.DEC {
				step = -1
			}
		}
	case *ast.AssignStmt:
		if x, ok := p.Lhs[0].(*ast.Ident); ok && len(p.Lhs) == 1 && r.varOf(x) == iv && (p.Tok == token.ADD_ASSIGN || p.Tok == token.SUB_ASSIGN) {
			if k, ok := r.intConst(p.Rhs[0]); ok {
				step = k
				if p.Tok == token.SUB_ASSIGN {
					step = -k
				}
			}
		}
	}
	if step == 0 {
		return nil, 0, "no constant step"
	}
	if r.assignedIn(s.Body, iv) || s.Cond != nil && r.assignedIn(s.Cond, iv) {
		return nil, 0, id.Name + " is assigned, address-taken or captured in the loop"
	}
	if r.sharedVar(iv) {
		return nil, 0, id.Name + " is shared"
	}
	return iv, step, ""
}

// intConst returns the value of a constant integer expression.
func (r *fileRewriter) intConst(e ast.Expr) (int64, bool) {
	tv, ok := r.info.Types[e]
	if !ok || tv.Value == nil || tv.Value.Kind() != constant.Int {
		return 0, false
	}
	return constant.Int64Val(tv.Value)
}

// assignedIn reports whether n assigns, declares, increments, takes the
// address of or captures (in a function literal) v.
func (r *fileRewriter) assignedIn(n ast.Node, v *types.Var) bool {
	found := false
	is := func(e ast.Expr) bool {
		id, ok := ast.Unparen(e).(*ast.Ident)
		return ok && r.varOf(id) == v
	}
	ast.Inspect(n, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.AssignStmt:
			for _, l := range n.Lhs {
				found = found || is(l)
			}
		case *ast.IncDecStmt:
			found = found || is(n.X)
		case *ast.RangeStmt:
			found = found || n.Key != nil && is(n.Key) || n.Value != nil && is(n.Value)
		case *ast.UnaryExpr:
			found = found || n.Op == token.AND && is(n.X)
		case *ast.FuncLit:
			ast.Inspect(n, func(m ast.Node) bool {
				if id, ok := m.(*ast.Ident); ok && r.varOf(id) == v {
					found = true
				}
				return !found
			})
		case *ast.Ident:
			// A method call with a pointer receiver takes the address.
		}
		return !found
	})
	return found
}

// declaresName reports whether n declares a variable named name (which
// would shadow it in the statements that follow).
func declaresName(n ast.Node, name string) bool {
	found := false
	ast.Inspect(n, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.AssignStmt:
			if n.Tok == token.DEFINE {
				for _, l := range n.Lhs {
					if id, ok := l.(*ast.Ident); ok && id.Name == name {
						found = true
					}
				}
			}
		case *ast.ValueSpec:
			for _, id := range n.Names {
				found = found || id.Name == name
			}
		case *ast.RangeStmt:
			for _, e := range []ast.Expr{n.Key, n.Value} {
				if id, ok := e.(*ast.Ident); ok && n.Tok == token.DEFINE && id.Name == name {
					found = true
				}
			}
		case *ast.FuncLit:
			return false
		}
		return !found
	})
	return found
}

// opAssign reports whether st is an assignment operation (x op= v) or
// ++/--, whose target is read and written.
func opAssign(st ast.Stmt) bool {
	switch st := st.(type) {
	case *ast.AssignStmt:
		return st.Tok != token.ASSIGN && st.Tok != token.DEFINE
	case *ast.IncDecStmt:
		return true
	}
	return false
}

// stmtAccess is an element access of a statement.
type stmtAccess struct {
	e     ast.Expr
	write bool
}

// stmtAccesses lists the element accesses of st that a static range of
// lp may hold: reads anywhere, writes as the targets and ++/-- operands
// of st itself; not in function literals nor in the right operand of &&
// and ||. An element access is one of an element of a slice or array
// (elementAccess) or a field of one through an alias of lp (aliasField)
// whose accesses of that kind a range may hold (aliasHeld).
// (Placement decides which of them run whenever st completes: those of a
// simple statement.)
func (r *fileRewriter) stmtAccesses(st ast.Stmt, lp *loopPlan) []stmtAccess {
	var out []stmtAccess
	isAccess := func(e ast.Expr, write bool) bool {
		if ix := r.aliasField(e, lp); ix != nil {
			return r.aliasHeld(ix, write)
		}
		return r.elementAccess(e)
	}
	var visit func(n ast.Node)
	read := func(e ast.Expr) {
		visit(e)
	}
	visit = func(n ast.Node) {
		ast.Inspect(n, func(m ast.Node) bool {
			switch m := m.(type) {
			case *ast.FuncLit:
				return false
			case *ast.BinaryExpr:
				if m.Op == token.LAND || m.Op == token.LOR {
					visit(m.X)
					return false
				}
			case *ast.SelectorExpr, *ast.IndexExpr:
				e := m.(ast.Expr)
				if isAccess(e, false) {
					out = append(out, stmtAccess{e: e})
				}
			}
			return true
		})
	}
	switch st := st.(type) {
	case *ast.AssignStmt:
		for _, e := range st.Rhs {
			read(e)
		}
		for _, l := range st.Lhs {
			if isAccess(l, true) {
				out = append(out, stmtAccess{e: ast.Unparen(l), write: true})
				r.visitAddress(l, visit)
			} else if r.aliasField(l, lp) != nil {
				r.visitAddress(l, visit) // a write no range holds
			} else {
				visit(l)
			}
		}
	case *ast.IncDecStmt:
		if isAccess(st.X, true) {
			out = append(out, stmtAccess{e: ast.Unparen(st.X), write: true})
			r.visitAddress(st.X, visit)
		} else if r.aliasField(st.X, lp) != nil {
			r.visitAddress(st.X, visit)
		} else {
			visit(st.X)
		}
	default:
		visit(st)
	}
	return out
}

// aliasField returns the element s[i] whose field e is, if e is p.f (or
// p.f.g, through fields of struct type) of an alias p := &s[i] of lp
// (loopPlan.alias): the form rangeSiteOf takes for the element's field
// s[i].f. Else nil.
func (r *fileRewriter) aliasField(e ast.Expr, lp *loopPlan) *ast.IndexExpr {
	for {
		sel, ok := ast.Unparen(e).(*ast.SelectorExpr)
		if !ok {
			return nil
		}
		s := r.info.Selections[sel]
		if s == nil || s.Kind() != types.FieldVal {
			return nil
		}
		if s.Indirect() {
			id, ok := ast.Unparen(sel.X).(*ast.Ident)
			if !ok || len(s.Index()) != 1 {
				return nil
			}
			if v := r.varOf(id); v != nil {
				return lp.alias[v]
			}
			return nil
		}
		e = sel.X
	}
}

// aliasHeld reports whether no access of kind write through the element
// ix that placement puts in its range (placement.LoopSite.Sites) is
// checked otherwise, in a field group or by a check that covers it: the
// accesses through one alias are one decision, rendered or not as a
// whole.
func (r *fileRewriter) aliasHeld(ix *ast.IndexExpr, write bool) bool {
	s := r.loopSite(ix, write)
	if s == nil || r.rc == nil {
		return s != nil
	}
	for _, k := range s.Sites {
		if r.rc.groups[siteKey{k.Pos, write}] != nil || r.rc.drop[siteKey{k.Pos, write}] || r.upSites[siteKey{k.Pos, write}] {
			return false
		}
	}
	return true
}

// visitAddress visits the operands evaluated to find the address of the
// element access e (the slice and the index, not the element).
func (r *fileRewriter) visitAddress(e ast.Expr, visit func(ast.Node)) {
	for {
		switch x := ast.Unparen(e).(type) {
		case *ast.SelectorExpr:
			e = x.X
		case *ast.IndexExpr:
			visit(x.X)
			visit(x.Index)
			return
		default:
			return
		}
	}
}

// rangeSiteOf returns the static range of the element access e in the
// loop of lp, or nil if it has none: placement puts it in no range of this
// loop, or the range has no rendering (the refusal is written back into
// placement's plan).
func (r *fileRewriter) rangeSiteOf(body *ast.BlockStmt, lp *loopPlan, e ast.Expr, write bool) *rangeSite {
	if r.unpublished(e, write) {
		for _, ix := range r.elementIndices(e, lp) {
			r.rangeOutcome(placement.SiteKey{Pos: ix.Lbrack, Write: write}, "its object is not yet published: no check")
		}
		return nil
	}
	var fields []*ast.SelectorExpr
	x := ast.Unparen(e)
	for {
		sel, ok := x.(*ast.SelectorExpr)
		if !ok {
			break
		}
		s := r.info.Selections[sel]
		if s == nil || s.Kind() != types.FieldVal {
			return nil
		}
		fields = append(fields, sel)
		x = ast.Unparen(sel.X)
		if s.Indirect() {
			// Only p.f of an alias p := &s[i] (p.f is s[i].f).
			id, ok := x.(*ast.Ident)
			if !ok || len(s.Index()) != 1 {
				return nil
			}
			v := r.varOf(id)
			if v == nil || lp.alias[v] == nil {
				return nil
			}
			x = lp.alias[v]
			break
		}
	}
	ix, ok := x.(*ast.IndexExpr)
	if !ok || r.loopRefused(ix, write, lp) {
		return nil
	}
	id, ok := ast.Unparen(ix.X).(*ast.Ident)
	if !ok {
		return r.flatSiteOf(body, lp, ix, fields, write)
	}
	v := r.varOf(id)
	if v == nil {
		r.refuseRange(ix, write, "its operand is no variable")
		return nil
	}
	sl, ok := placement.CoreType(v.Type()).(*types.Slice)
	if !ok {
		if _, ok := placement.CoreType(v.Type()).(*types.Pointer); ok {
			return r.flatSiteOf(body, lp, ix, fields, write)
		}
		r.refuseRange(ix, write, "its operand is no slice or pointer to an array")
		return nil
	}
	if placement.MentionsTypeParam(sl.Elem()) {
		r.refuseRange(ix, write, "its element type mentions a type parameter")
		return nil
	}
	if declaresName(body, id.Name) {
		r.refuseRange(ix, write, "the loop body declares another "+id.Name)
		return nil
	}
	c, ok := r.affine(ix.Index, lp.iv, body)
	if !ok || c == 0 {
		r.refuseRange(ix, write, "its index is not affine in the loop's induction variable")
		return nil
	}
	if why := r.indexDisagrees(ix, write, c, lp); why != "" {
		r.refuseRange(ix, write, why)
		return nil
	}
	rs := &rangeSite{
		operand: id.Name, c: c, index: r.text(ix.Index), d: r.substIV(ix.Index, lp.iv),
		off: "0", size: "0", write: write, pos: e.Pos(), stmts: map[int]bool{},
	}
	if len(fields) > 0 {
		rs.off, rs.size = fieldExtent(id.Name+"[0]", fields)
	}
	return rs
}

// loopRefused reports whether placement puts the accesses of kind write
// through the element ix in no static range of lp's loop
// (placement.LoopSite), with a note saying why.
func (r *fileRewriter) loopRefused(ix *ast.IndexExpr, write bool, lp *loopPlan) bool {
	switch s := r.loopSite(ix, write); {
	case s == nil || s.Loop != lp.loop && s.Refused == "":
		return true // no access of that kind, or one in a range of another loop
	case s.Refused != "":
		r.note(ix.Lbrack, "no static range for %s: %s", r.text(ix), s.Refused)
		return true
	}
	return false
}

// indexDisagrees says how the index of ix, which this package reads from
// the syntax as c times the induction variable of lp plus terms it takes
// for constants of the loop, differs from placement's decision (the
// coefficient and step of the loop's induction variable in it,
// placement.LoopSite.Coef and Step), or "" if it does not.
func (r *fileRewriter) indexDisagrees(ix *ast.IndexExpr, write bool, c int64, lp *loopPlan) string {
	s := r.loopSite(ix, write)
	if s.Coef == c && (c == 0 || s.Step == lp.step) {
		return ""
	}
	return fmt.Sprintf("placement finds the index %d times a variable of step %d, the syntax %d times %s of step %d", s.Coef, s.Step, c, lp.iv.Name(), lp.step)
}

// refuseRange records that the static range placement puts the accesses
// of kind write through the element ix (and its outer levels, for nested
// arrays) in is not rendered, and why, with a note: they keep their
// checks.
func (r *fileRewriter) refuseRange(ix *ast.IndexExpr, write bool, why string) {
	r.note(ix.Lbrack, "no static range for %s: %s", r.text(ix), why)
	for x := ast.Expr(ix); ; {
		e, ok := ast.Unparen(x).(*ast.IndexExpr)
		if !ok {
			break
		}
		r.rangeOutcome(placement.SiteKey{Pos: e.Lbrack, Write: write}, why)
		x = e.X
	}
}

// loopSite returns placement's decision on the accesses of kind write
// through the element ix, or nil.
func (r *fileRewriter) loopSite(ix *ast.IndexExpr, write bool) *placement.LoopSite {
	return r.sitePlan().Loop(placement.SiteKey{Pos: ix.Lbrack, Write: write})
}

// sitePlan returns placement's plan of the package's sites, or nil.
func (r *fileRewriter) sitePlan() *placement.SitePlan {
	if r.rc == nil {
		return nil
	}
	return r.rc.pkg.sites
}

// fieldExtent returns the offset and size expressions of the field that
// fields (outermost last) select from the element expression elem: for
// a[0].f.g, unsafe.Offsetof(a[0].f)+unsafe.Offsetof(a[0].f.g) and
// unsafe.Sizeof(a[0].f.g), constants that are never evaluated.
func fieldExtent(elem string, fields []*ast.SelectorExpr) (off, size string) {
	var offs []string
	for i := len(fields) - 1; i >= 0; i-- {
		elem += "." + fields[i].Sel.Name
		offs = append(offs, "__bfu.Offsetof("+elem+")")
	}
	return strings.Join(offs, "+"), "__bfu.Sizeof(" + elem + ")"
}

// elementAlias returns p and s[idx] if st, the k-th statement of body, is
// `p := &s[idx]` and body neither assigns p elsewhere nor takes its
// address nor captures it.
func (r *fileRewriter) elementAlias(st ast.Stmt, body *ast.BlockStmt, k int) (*types.Var, *ast.IndexExpr) {
	as, ok := st.(*ast.AssignStmt)
	if !ok || as.Tok != token.DEFINE || len(as.Lhs) != 1 || len(as.Rhs) != 1 {
		return nil, nil
	}
	id, ok := as.Lhs[0].(*ast.Ident)
	u, ok2 := ast.Unparen(as.Rhs[0]).(*ast.UnaryExpr)
	if !ok || !ok2 || u.Op != token.AND {
		return nil, nil
	}
	ix, ok := ast.Unparen(u.X).(*ast.IndexExpr)
	if !ok {
		return nil, nil
	}
	p := r.varOf(id)
	if p == nil || r.sharedVar(p) {
		return nil, nil
	}
	for j, other := range body.List {
		if j != k && (r.assignedIn(other, p) || declaresName(other, id.Name) || r.opAssignsThrough(other, p)) {
			return nil, nil
		}
	}
	return p, ix
}

// opAssignsThrough reports whether n has an assignment operation or
// ++/-- of a field through p (p.f += v): its read goes with its write,
// which the site plan decides for the element as a whole, so the
// accesses through p are not rendered as ranges.
func (r *fileRewriter) opAssignsThrough(n ast.Node, p *types.Var) bool {
	through := func(e ast.Expr) bool {
		for {
			sel, ok := ast.Unparen(e).(*ast.SelectorExpr)
			if !ok {
				id, ok := ast.Unparen(e).(*ast.Ident)
				return ok && r.varOf(id) == p
			}
			e = sel.X
		}
	}
	found := false
	ast.Inspect(n, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.AssignStmt:
			if opAssign(n) {
				found = found || slices.ContainsFunc(n.Lhs, through)
			}
		case *ast.IncDecStmt:
			found = found || through(n.X)
		}
		return !found
	})
	return found
}

// affine returns the coefficient of iv in the index e, which must be a
// sum of products of constants, iv and int variables that body does not
// declare (placement's loopRefused says whether they keep their value
// through the loop).
func (r *fileRewriter) affine(e ast.Expr, iv *types.Var, body ast.Node) (int64, bool) {
	if k, ok := r.intConst(e); ok {
		_ = k
		return 0, true
	}
	switch x := ast.Unparen(e).(type) {
	case *ast.Ident:
		v := r.varOf(x)
		if v == nil || !types.Identical(v.Type(), types.Typ[types.Int]) {
			return 0, false
		}
		if v == iv {
			return 1, true
		}
		return 0, !declaresName(body, x.Name)
	case *ast.UnaryExpr:
		if x.Op == token.SUB || x.Op == token.ADD {
			c, ok := r.affine(x.X, iv, body)
			if x.Op == token.SUB {
				c = -c
			}
			return c, ok
		}
	case *ast.BinaryExpr:
		cx, okx := r.affine(x.X, iv, body)
		cy, oky := r.affine(x.Y, iv, body)
		if !okx || !oky {
			return 0, false
		}
		switch x.Op {
		case token.ADD:
			return cx + cy, true
		case token.SUB:
			return cx - cy, true
		case token.MUL:
			if cx != 0 && cy != 0 {
				return 0, false
			}
			if cx != 0 {
				k, ok := r.intConst(x.Y)
				return cx * k, ok
			}
			if cy != 0 {
				k, ok := r.intConst(x.X)
				return cy * k, ok
			}
			return 0, true
		}
	}
	return 0, false
}

// substIV renders e with the induction variable replaced by 0.
func (r *fileRewriter) substIV(e ast.Expr, iv *types.Var) string {
	var subs []sub
	ast.Inspect(e, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok && r.varOf(id) == iv {
			subs = append(subs, subOf(id, "0"))
		}
		return true
	})
	return "(" + r.spliceNode(e, subs...) + ")"
}

// rangeFootprint returns the footprint variable of the static range of
// the access e of kind write in the loops being rendered, or "".
func (r *fileRewriter) rangeFootprint(e ast.Expr, write bool) string {
	fp := r.fn.fp
	k := accessKey{ast.Unparen(e).Pos(), ast.Unparen(e).End(), write}
	for i := len(fp.plans) - 1; i >= 0; i-- {
		rs := fp.plans[i].sites[k]
		if rs == nil {
			continue
		}
		for _, k := range rs.keys {
			r.rangeOutcome(k, "")
		}
		if rs.merged {
			r.mergeOutcome(rs.merge, "")
		}
		if rs.fp == "" {
			rs.fp = fmt.Sprintf("__bfF%d_%d", fp.id, len(fp.decls))
			if cov := r.loopCoverage(rs, e); cov != "" {
				r.coverage = siteCoverage{rs.pos, cov}
			}
			fp.decls = append(fp.decls, fmt.Sprintf("__bfg.Footprint(%s, %v)", r.site(rs.pos), write))
			fp.ranges[rs.fp] = true
			r.fn.uses++
		}
		if lp := fp.plans[i]; lp.atAccess[k] {
			ld := rangeLoad{"Load", fmt.Sprintf("(%s) + %d", rs.index, rs.c*lp.step)}
			if next, ok := lp.loadNext[k]; ok {
				ld = rangeLoad{"LoadGrow", next}
			}
			fp.loads[ast.Unparen(e).Pos()] = ld
		}
		return rs.fp
	}
	return ""
}

// rangeBody renders the body of a loop with the static ranges of lp: each
// top-level statement is followed by the stores of the ranges it extends.
func (r *fileRewriter) rangeBody(body *ast.BlockStmt, lp *loopPlan) (sub, []*rangeSite) {
	fp := r.fn.fp
	fp.plans = append(fp.plans, lp)
	stores := func(k int) string {
		var out []string
		for _, rs := range lp.order {
			switch {
			case rs.fp == "" || !rs.stmts[k]:
			case rs.merged:
				out = append(out, fmt.Sprintf("%s.Next = %s", rs.fp, rs.nextAt[k]))
			case fp.rangeReads[rs.fp][0] > 0 && fp.rangeReads[rs.fp][1] == 0:
				// Every read of the statement stored the extent.
			default:
				out = append(out, fmt.Sprintf("%s.Next = (%s) + %d", rs.fp, rs.index, rs.c*lp.step))
			}
		}
		return strings.Join(out, "; ")
	}
	subs := make([]sub, len(body.List))
	for k, st := range body.List {
		clear(fp.rangeReads)
		if ifs, ok := st.(*ast.IfStmt); ok && ifs.Init == nil {
			subs[k] = subOf(st, r.rangeIf(ifs, func() string { return stores(k) }))
			continue
		}
		subs[k] = subOf(st, r.compose(st, r.stmt(st, true)))
		if st := stores(k); st != "" {
			subs[k].text += "; " + st
		}
	}
	fp.plans = fp.plans[:len(fp.plans)-1]
	var opened []*rangeSite
	for _, rs := range lp.order {
		if rs.fp == "" {
			for _, k := range rs.keys {
				r.rangeOutcome(k, "no access it holds is checked here (its checks are dropped, grouped or elided)")
			}
			if rs.merged {
				r.mergeOutcome(rs.merge, "no access it holds is checked here")
			}
			continue
		}
		opened = append(opened, rs)
		if rs.off != "0" || rs.ptr != "" {
			r.usesUnsafe = true
		}
	}
	return subOf(body, r.spliceNode(body, subs...)), opened
}

// rangeIf renders the if statement s of a loop body with static ranges:
// when its condition extends ranges, `if c {` becomes
// `{ t := c; stores; if t {`, the stores following the condition's reads
// and preceding the branches (which may break, return or panic).
func (r *fileRewriter) rangeIf(s *ast.IfStmt, stores func() string) string {
	cond := r.expr(s.Cond, mValue)
	st := stores()
	els := r.elseBranch(s.Else)
	if st == "" {
		return r.spliceNode(s, subOf(s.Cond, cond), subOf(s.Body, r.block(s.Body)), els)
	}
	t := r.newTemp()
	return "{ " + t + " := " + cond + "; " + st + "; " + r.spliceNode(s, subOf(s.Cond, t), subOf(s.Body, r.block(s.Body)), els) + " }"
}

// openRange renders the call opening the static range rs of a loop of
// step step whose induction variable starts at lo.
func (r *fileRewriter) openRange(rs *rangeSite, lo string, step int64) string {
	r.fn.uses++
	st := rs.c * step
	if rs.merged {
		st = rs.step1
	}
	if rs.ptr != "" {
		return fmt.Sprintf("__bf.OpenRangeAt(%s, %s, %s, %s, %d, %s, %d, %s, %s)", rs.fp, rs.ptr, rs.elem, lo, rs.c, rs.d, st, rs.off, rs.size)
	}
	return fmt.Sprintf("__bf.OpenRange(%s, %s, %s, %d, %s, %d, %s, %s)", rs.fp, rs.operand, lo, rs.c, rs.d, st, rs.off, rs.size)
}

// rangeFor renders the for loop s with the static ranges of lp.
func (r *fileRewriter) rangeFor(s *ast.ForStmt, lp *loopPlan) stmtOut {
	r.enterLoop(s)
	cond, post := r.exprSub(s.Cond), r.forPost(s.Post)
	body, opened := r.rangeBody(s.Body, lp)
	r.leaveLoop()
	if len(opened) == 0 {
		init, pre := r.forInit(s.Init)
		return stmtOut{pre: pre, preDecl: pre != "", text: r.spliceNode(s, init, cond, post, body)}
	}
	// i := lo becomes i := OpenRange(fp1, a, OpenRange(fp0, b, lo, …), …):
	// lo is evaluated once, before the loop, and each range starts at it.
	as := s.Init.(*ast.AssignStmt)
	lo := r.expr(as.Rhs[0], mValue)
	for _, rs := range opened {
		lo = r.openRange(rs, lo, lp.step)
	}
	init := subOf(s.Init, r.spliceNode(s.Init, subOf(as.Rhs[0], lo)))
	return stmtOut{text: r.spliceNode(s, init, cond, post, body)}
}

// rangeIndices renders `for i := range x` with the static ranges of lp:
// the ranges open in a statement before the loop, from index 0.
func (r *fileRewriter) rangeIndices(s *ast.RangeStmt, lp *loopPlan) stmtOut {
	r.enterLoop(s)
	body, opened := r.rangeBody(s.Body, lp)
	r.leaveLoop()
	x := r.expr(s.X, mValue)
	var pre strings.Builder
	for _, rs := range opened {
		pre.WriteString(r.openRange(rs, "0", 1) + "; ")
	}
	return stmtOut{pre: pre.String(), text: r.spliceNode(s, subOf(s.X, x), body)}
}

// flatSiteOf returns the static range of an element access through fixed
// arrays, ix = X[i1][i2]…[in] (n ≥ 1) whose levels after the first index
// arrays, or nil. X is a variable holding a slice or a pointer to an
// array (not an array variable: &X would move it to the heap); fields
// are the field selections applied to the element, outermost last. The access
// is the element at the flat index ((i1·L2 + i2)·L3 + …)·… + in of the
// innermost element type, counted from X's first element (Lk the length
// of level k), which is affine in the induction variable when each ik is:
// b[k][j] of b *[N][N]T in a loop over j is the range b[k·N+lo…].
func (r *fileRewriter) flatSiteOf(body *ast.BlockStmt, lp *loopPlan, ix *ast.IndexExpr, fields []*ast.SelectorExpr, write bool) *rangeSite {
	levels := []*ast.IndexExpr{ix} // X[i1] … X[i1]…[in]
	x := ix.X
	for {
		e, ok := ast.Unparen(x).(*ast.IndexExpr)
		if !ok {
			break
		}
		if r.loopRefused(e, write, lp) {
			r.refuseRange(ix, write, "placement refuses the range of an outer index, "+r.text(e))
			return nil
		}
		levels = append([]*ast.IndexExpr{e}, levels...)
		x = e.X
	}
	idx := make([]ast.Expr, len(levels)) // i1 … in
	for k, l := range levels {
		idx[k] = l.Index
	}
	id, ok := ast.Unparen(x).(*ast.Ident)
	if !ok {
		r.refuseRange(ix, write, "its operand is no variable")
		return nil
	}
	v := r.varOf(id)
	if v == nil {
		r.refuseRange(ix, write, "its operand is no variable")
		return nil
	}
	if declaresName(body, id.Name) {
		r.refuseRange(ix, write, "the loop body declares another "+id.Name)
		return nil
	}
	// The levels: the first indexes X's slice or array, every later one
	// an array.
	var ptr string
	t := placement.CoreType(v.Type())
	switch u := t.(type) {
	case *types.Slice:
		ptr, t = "__bfu.Pointer(__bfu.SliceData("+id.Name+"))", u.Elem()
	case *types.Pointer:
		a, ok := placement.CoreType(u.Elem()).(*types.Array)
		if !ok {
			r.refuseRange(ix, write, "its operand is no slice or pointer to an array")
			return nil
		}
		ptr, t = "__bfu.Pointer("+id.Name+")", a.Elem()
	default:
		r.refuseRange(ix, write, "its operand is no slice or pointer to an array")
		return nil
	}
	lens := make([]int64, len(idx)) // lens[k]: length of level k (k ≥ 1)
	for k := 1; k < len(idx); k++ {
		a, ok := placement.CoreType(t).(*types.Array)
		if !ok {
			r.refuseRange(ix, write, "an inner level indexes no array")
			return nil
		}
		lens[k], t = a.Len(), a.Elem()
	}
	if placement.MentionsTypeParam(t) {
		r.refuseRange(ix, write, "its element type mentions a type parameter")
		return nil
	}
	var c int64
	var flat, d []string
	stride := int64(1)
	for k := len(idx) - 1; k >= 0; k-- {
		ck, ok := r.affine(idx[k], lp.iv, body)
		if !ok {
			r.refuseRange(ix, write, "its index is not affine in the loop's induction variable")
			return nil
		}
		if why := r.indexDisagrees(levels[k], write, ck, lp); why != "" {
			r.refuseRange(ix, write, why)
			return nil
		}
		c += ck * stride
		if stride == 1 {
			flat = append(flat, "("+r.text(idx[k])+")")
			d = append(d, r.substIV(idx[k], lp.iv))
		} else {
			flat = append(flat, fmt.Sprintf("(%s)*%d", r.text(idx[k]), stride))
			d = append(d, fmt.Sprintf("%s*%d", r.substIV(idx[k], lp.iv), stride))
		}
		if k > 0 {
			stride *= lens[k]
		}
	}
	if c == 0 {
		r.refuseRange(ix, write, "its index is not affine in the loop's induction variable")
		return nil
	}
	zero := id.Name + strings.Repeat("[0]", len(idx))
	rs := &rangeSite{
		operand: id.Name, c: c, index: strings.Join(flat, "+"), d: "(" + strings.Join(d, "+") + ")",
		off: "0", size: "0", write: write, pos: ix.Pos(), stmts: map[int]bool{},
		ptr: ptr, elem: "__bfu.Sizeof(" + zero + ")",
	}
	if len(d) == 1 {
		rs.d = d[0]
	}
	if len(fields) > 0 {
		rs.off, rs.size = fieldExtent(zero, fields)
	}
	return rs
}
