package instrument

import (
	"go/ast"
	"go/token"
	"go/types"

	"github.com/bigfoot-go/bigfoot/placement"
)

// use says how an expression's value is used.
type use int

const (
	// mValue: the value is used; if the expression denotes a shared
	// location, evaluating it is a read of that location.
	mValue use = iota
	// mAddr: the location's address is used (&x, the x of x.f, a pointer
	// receiver); no access of its own, but the operands of the address
	// computation (pointers, slice headers, indices) are read.
	mAddr
)

// expr renders an expression. Reads of shared locations are wrapped in
// place, so each check happens exactly where (and whether) the original
// expression is evaluated.
func (r *fileRewriter) expr(e ast.Expr, m use) string {
	if e == nil {
		return ""
	}
	if t, ok := r.hoisted[e]; ok {
		return t
	}
	if tv, ok := r.info.Types[e]; ok && (tv.IsType() || tv.Value != nil) {
		return r.text(e) // types and constants: nothing is evaluated
	}
	switch e := e.(type) {
	case *ast.Ident:
		if m == mValue && r.fn != nil {
			if v := r.varOf(e); v != nil && r.sharedVar(v) {
				if r.dropCheck(e, false) {
					return r.elided(e, e.Name, false)
				}
				return r.wrapRead(e, e.Name)
			} else if v != nil && r.safeVar(v) && r.p.recordSafe {
				return r.elided(e, e.Name, false) // counted, never checked
			}
		}
		return e.Name
	case *ast.ParenExpr:
		return r.spliceNode(e, subOf(e.X, r.expr(e.X, m)))
	case *ast.SelectorExpr:
		return r.selector(e, m)
	case *ast.IndexExpr:
		return r.index(e, m)
	case *ast.IndexListExpr:
		return r.spliceNode(e, subOf(e.X, r.expr(e.X, mValue)))
	case *ast.StarExpr:
		inner := r.spliceNode(e, subOf(e.X, r.expr(e.X, mValue)))
		if m == mValue && r.fn != nil && isPointer(r.typeOf(e.X)) {
			if r.dropCheck(e, false) {
				return r.elided(e, inner, false)
			}
			return r.wrapRead(e, inner)
		}
		return inner
	case *ast.UnaryExpr:
		switch e.Op {
		case token.AND:
			return r.spliceNode(e, subOf(e.X, r.expr(e.X, mAddr)))
		case token.ARROW:
			return r.recvExpr(e, false)
		}
		return r.spliceNode(e, subOf(e.X, r.expr(e.X, mValue)))
	case *ast.BinaryExpr:
		return r.spliceNode(e, subOf(e.X, r.expr(e.X, mValue)), subOf(e.Y, r.expr(e.Y, mValue)))
	case *ast.CallExpr:
		return r.call(e)
	case *ast.CompositeLit:
		return r.composite(e)
	case *ast.FuncLit:
		return r.funcLit(e)
	case *ast.SliceExpr:
		xm := mValue
		if _, ok := placement.CoreType(r.typeOf(e.X)).(*types.Array); ok {
			xm = mAddr // slicing an array takes its address
		}
		return r.spliceNode(e, subOf(e.X, r.expr(e.X, xm)), r.exprSub(e.Low), r.exprSub(e.High), r.exprSub(e.Max))
	case *ast.TypeAssertExpr:
		return r.spliceNode(e, subOf(e.X, r.expr(e.X, mValue)))
	case *ast.KeyValueExpr:
		return r.spliceNode(e, subOf(e.Key, r.expr(e.Key, mValue)), subOf(e.Value, r.expr(e.Value, mValue)))
	}
	return r.text(e)
}

// exprSub is the substitution rendering e (possibly nil) in value mode.
func (r *fileRewriter) exprSub(e ast.Expr) sub {
	if e == nil {
		return sub{}
	}
	return subOf(e, r.expr(e, mValue))
}

// wrapRead wraps the rendered addressable expression inner, the
// rendering of e, in a read check.
func (r *fileRewriter) wrapRead(e ast.Expr, inner string) string {
	return "(*__bf.R(" + r.g() + ", &" + inner + ", " + r.checkSite(e, false) + "))"
}

// wrapWrite is the in-place write form of the rendered addressable inner,
// the rendering of e.
func (r *fileRewriter) wrapWrite(e ast.Expr, inner string) string {
	return "*__bf.W(" + r.g() + ", &" + inner + ", " + r.checkSite(e, true) + ")"
}

// checkSite returns the site entry of a check of kind write made where
// the access of e is (a variable's, e's own: its SSA position, ssaPos)
// and notes it for the plan (flushChecks).
func (r *fileRewriter) checkSite(e ast.Expr, write bool) string {
	r.noteCheck(ssaPos(e), write)
	return r.site(e.Pos())
}

// checkSiteAt is checkSite for an access go/ssa puts at pos, which is
// also where the report names it (a return statement's stores).
func (r *fileRewriter) checkSiteAt(pos token.Pos, write bool) string {
	r.noteCheck(pos, write)
	return r.site(pos)
}

// localAt reports whether the plan states the access of kind write that
// go/ssa puts at pos not shared (placement.SitePlan.NotShared: a fresh
// map, a fresh slice), in the modes with plans; its runtime helper's
// check is then left out, and the decision rendered.
func (r *fileRewriter) localAt(pos token.Pos, write bool) bool {
	if r.rc == nil {
		return false
	}
	k := placement.SiteKey{Pos: pos, Write: write}
	if !r.rc.pkg.sites.NotShared(k) {
		return false
	}
	r.rc.pkg.sites.Render(placement.EntryNotShared, k)
	return true
}

// refuseLocal writes into the plan, where it states the access of kind
// write at pos not shared, that the emitted code checks it anyway, and
// why.
func (r *fileRewriter) refuseLocal(pos token.Pos, write bool, why string) {
	if k := (placement.SiteKey{Pos: pos, Write: write}); r.rc != nil && r.rc.pkg.sites.NotShared(k) {
		r.rc.pkg.sites.Refuse(placement.EntryNotShared, k, why)
	}
}

// noteCheck notes, for the plan (flushChecks), that the emitted code
// checks the access of kind write that go/ssa puts at pos where it is.
func (r *fileRewriter) noteCheck(pos token.Pos, write bool) {
	if !pos.IsValid() {
		return
	}
	if r.checkedAt == nil {
		r.checkedAt = map[placement.SiteKey]bool{}
	}
	r.checkedAt[placement.SiteKey{Pos: pos, Write: write}] = true
}

// flushChecks writes the checks the emitted rendering makes where the
// accesses are into the plan (bigfoot and redcard modes), which then
// states every check of the binary (placement.SitePlan.Decisions).
func (r *fileRewriter) flushChecks() {
	if r.p.rc == nil {
		return
	}
	for k := range r.checkedAt {
		r.p.rc.sites.Render(placement.EntryCheck, k)
	}
}

func (r *fileRewriter) selector(e *ast.SelectorExpr, m use) string {
	sel := r.info.Selections[e]
	if sel == nil {
		// A qualified identifier: a global of another package.
		if m == mValue && r.fn != nil {
			if v, ok := r.info.Uses[e.Sel].(*types.Var); ok && r.sharedVar(v) {
				if r.dropCheck(e, false) {
					return r.elided(e, r.text(e), false)
				}
				return r.wrapRead(e, r.text(e))
			}
		}
		return r.text(e)
	}
	switch sel.Kind() {
	case types.FieldVal:
		inner := r.spliceNode(e, subOf(e.X, r.operand(e.X)))
		shared := sel.Indirect() || (r.addressable(e.X) && r.sharedLoc(e.X))
		if m == mValue && shared && r.fn != nil {
			if r.dropCheck(e, false) {
				return r.elided(e, inner, false)
			}
			if gw := r.groupWrap(e, inner, false); gw != "" {
				return gw
			}
			if fp := r.deferredFootprint(e, false, false); fp != "" {
				return r.wrapDeferred(e, fp, inner, false)
			}
			return r.wrapRead(e, inner)
		}
		return inner
	case types.MethodVal:
		return r.methodValue(e, sel)
	}
	return r.text(e)
}

// operand renders the x of x.f: a pointer is read, an addressable struct
// only provides its address, any other value is read.
func (r *fileRewriter) operand(x ast.Expr) string {
	if isPointer(r.typeOf(x)) || !r.addressable(x) {
		return r.expr(x, mValue)
	}
	return r.expr(x, mAddr)
}

func (r *fileRewriter) index(e *ast.IndexExpr, m use) string {
	xt := r.typeOf(e.X)
	if _, ok := xt.(*types.Signature); ok || r.info.Types[e.X].IsType() {
		// Instantiation of a generic function or type.
		return r.spliceNode(e, subOf(e.X, r.expr(e.X, mValue)))
	}
	idx := r.expr(e.Index, mValue)
	var x string
	shared := false
	switch u := placement.CoreType(xt).(type) {
	case *types.Map:
		x = r.expr(e.X, mValue)
		if m == mValue && r.fn != nil && !r.localAt(e.Lbrack, false) {
			r.noteCheck(e.Lbrack, false)
			x = "__bf.MapRead(" + r.g() + ", " + x + ", " + r.site(e.Pos()) + ")"
		}
		return r.spliceNode(e, subOf(e.X, x), subOf(e.Index, idx))
	case *types.Slice:
		x, shared = r.expr(e.X, mValue), true
	case *types.Pointer:
		_ = u
		x, shared = r.expr(e.X, mValue), true
	case *types.Array:
		if r.addressable(e.X) {
			x, shared = r.expr(e.X, mAddr), r.sharedLoc(e.X)
		} else {
			x = r.expr(e.X, mValue)
		}
	default: // strings are immutable; type parameters without a core type are not checked
		if m == mValue {
			if text := r.byteStringIndex(e, idx); text != "" {
				return text
			}
		}
		x = r.expr(e.X, mValue)
	}
	inner := r.spliceNode(e, subOf(e.X, x), subOf(e.Index, idx))
	if m == mValue && shared && r.fn != nil {
		if r.dropCheck(e, false) {
			return r.elided(e, inner, false)
		}
		if gw := r.groupWrap(e, inner, false); gw != "" {
			return gw
		}
		if fp := r.deferredFootprint(e, false, false); fp != "" {
			return r.wrapDeferred(e, fp, inner, false)
		}
		return r.wrapRead(e, inner)
	}
	return inner
}

func (r *fileRewriter) composite(e *ast.CompositeLit) string {
	_, isStruct := placement.CoreType(r.typeOf(e)).(*types.Struct)
	var subs []sub
	for _, elt := range e.Elts {
		if kv, ok := elt.(*ast.KeyValueExpr); ok {
			if !isStruct {
				subs = append(subs, subOf(kv.Key, r.expr(kv.Key, mValue)))
			}
			subs = append(subs, subOf(kv.Value, r.expr(kv.Value, mValue)))
			continue
		}
		subs = append(subs, subOf(elt, r.expr(elt, mValue)))
	}
	return r.spliceNode(e, subs...)
}

// varOf returns the variable (not field) an identifier denotes, or nil.
func (r *fileRewriter) varOf(id *ast.Ident) *types.Var {
	obj := r.info.Uses[id]
	if obj == nil {
		obj = r.info.Defs[id]
	}
	if v, ok := obj.(*types.Var); ok && !v.IsField() {
		return v
	}
	return nil
}

// sharedVar reports whether v may be accessed by more than one goroutine:
// package-level variables, and locals that go/ssa puts on the heap,
// except those of the static safe class.
func (r *fileRewriter) sharedVar(v *types.Var) bool {
	if v.Pkg() == nil || v.IsField() || v.Name() == "_" {
		return false
	}
	if r.safeVar(v) || r.cgoValue(v) {
		return false
	}
	if v.Parent() == v.Pkg().Scope() || (v.Parent() == nil && v.Pkg().Scope().Lookup(v.Name()) == v) {
		return true
	}
	return r.p.heap[v.Pos()]
}

// safeVar reports whether placement put v in the static safe class
// (bigfoot mode): other goroutines only read it, after its last write, so
// it is not shared memory for the emitted code, which neither checks it
// nor takes its address (outside counting builds).
func (r *fileRewriter) safeVar(v *types.Var) bool {
	return r.p.rc != nil && r.p.rc.safe.Var(v)
}

// sharedLoc reports whether the addressable expression e denotes memory
// another goroutine may reach.
func (r *fileRewriter) sharedLoc(e ast.Expr) bool {
	switch e := ast.Unparen(e).(type) {
	case *ast.Ident:
		v := r.varOf(e)
		return v != nil && r.sharedVar(v)
	case *ast.SelectorExpr:
		sel := r.info.Selections[e]
		if sel == nil {
			v, ok := r.info.Uses[e.Sel].(*types.Var)
			return ok && r.sharedVar(v)
		}
		if sel.Kind() != types.FieldVal {
			return false
		}
		return sel.Indirect() || (r.addressable(e.X) && r.sharedLoc(e.X))
	case *ast.IndexExpr:
		switch placement.CoreType(r.typeOf(e.X)).(type) {
		case *types.Slice, *types.Pointer:
			return true
		case *types.Array:
			return r.addressable(e.X) && r.sharedLoc(e.X)
		}
	case *ast.StarExpr:
		return isPointer(r.typeOf(e.X))
	}
	return false
}

func (r *fileRewriter) addressable(e ast.Expr) bool {
	tv, ok := r.info.Types[e]
	return ok && tv.Addressable()
}

func (r *fileRewriter) typeOf(e ast.Expr) types.Type {
	if tv, ok := r.info.Types[e]; ok && tv.Type != nil {
		return tv.Type
	}
	if id, ok := e.(*ast.Ident); ok {
		if obj := r.info.ObjectOf(id); obj != nil {
			return obj.Type()
		}
	}
	return types.Typ[types.Invalid]
}

func isTypeParam(t types.Type) bool {
	_, ok := types.Unalias(t).(*types.TypeParam)
	return ok
}

func isPointer(t types.Type) bool {
	_, ok := placement.CoreType(t).(*types.Pointer)
	return ok
}

// callFree reports whether evaluating e calls no function, receives from no
// channel and creates no closure: it may be evaluated again after the
// statement it belongs to.
func (r *fileRewriter) callFree(e ast.Expr) bool {
	ok := true
	ast.Inspect(e, func(n ast.Node) bool {
		if x, isExpr := n.(ast.Expr); isExpr && r.hoisted[x] != "" {
			return false // a temporary (hoistCalls)
		}
		switch n := n.(type) {
		case *ast.CallExpr:
			if !r.info.Types[n.Fun].IsType() {
				ok = false
			}
		case *ast.UnaryExpr:
			if n.Op == token.ARROW {
				ok = false
			}
		case *ast.FuncLit:
			ok = false
		}
		return ok
	})
	return ok
}

// maySync reports whether evaluating the expressions may synchronize (or
// panic or fail to return, which would leave a check made before them
// without its access): they call a function other than a builtin, a
// conversion or one whose summary says it returns normally without
// synchronizing (summaries.go), or receive.
func (r *fileRewriter) maySync(es ...ast.Expr) bool {
	for _, e := range es {
		found := false
		ast.Inspect(e, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.FuncLit:
				return false
			case *ast.CallExpr:
				if !r.info.Types[n.Fun].IsType() && r.builtinName(n.Fun) == "" && !r.harmlessCall(n) {
					found = true
				}
			case *ast.UnaryExpr:
				if n.Op == token.ARROW {
					found = true
				}
			}
			return !found
		})
		if found {
			return true
		}
	}
	return false
}

// builtinName is the name of the builtin fun denotes, or "".
func (r *fileRewriter) builtinName(fun ast.Expr) string {
	switch f := ast.Unparen(fun).(type) {
	case *ast.Ident:
		if b, ok := r.info.Uses[f].(*types.Builtin); ok {
			return b.Name()
		}
	case *ast.SelectorExpr:
		if b, ok := r.info.Uses[f.Sel].(*types.Builtin); ok {
			return "unsafe." + b.Name()
		}
	}
	return ""
}

// mentions reports whether e refers to any of the objects.
func (r *fileRewriter) mentions(e ast.Expr, objs map[types.Object]bool) bool {
	found := false
	ast.Inspect(e, func(n ast.Node) bool {
		if id, ok := n.(*ast.Ident); ok && objs[r.info.ObjectOf(id)] {
			found = true
		}
		return !found
	})
	return found
}

// paren parenthesizes rendered text of e unless e is a primary expression.
func paren(e ast.Expr, text string) string {
	switch ast.Unparen(e).(type) {
	case *ast.Ident, *ast.SelectorExpr, *ast.IndexExpr, *ast.IndexListExpr, *ast.CallExpr, *ast.CompositeLit:
		return text
	}
	if _, ok := e.(*ast.ParenExpr); ok {
		return text
	}
	return "(" + text + ")"
}
