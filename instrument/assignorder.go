package instrument

import (
	"go/ast"
	"go/token"
	"go/types"
	"strings"

	"github.com/bigfoot-go/bigfoot/placement"
)

// The order of an assignment's checks.
//
// Go carries out an assignment in two phases (the Go spec, "Assignment
// statements"): the operands of index expressions and pointer
// indirections on the left and the expressions on the right are
// evaluated, in the usual order; then the assignments are carried out,
// left to right. A panic of the right-hand side comes before any store,
// and an index out of range, a nil map or a nil pointer on the left
// panics when its assignment is carried out, after the earlier ones.
// Go's race instrumentation checks each store where it happens.
//
// The in-place form *__bf.W(g, &t, S) = v evaluates the address of t and
// checks it in the first phase. That is the same only when neither the
// right-hand side nor a later target can panic. Otherwise the write is
// checked after the statement (lvalue's late form), and a tuple
// assignment whose later target may panic is split into its phases
// (splitTuple), so that each target's check follows its own store and
// precedes the next one.

// assignOrder is where the writes of assignment s (not a definition) are
// checked.
func (r *fileRewriter) assignOrder(s *ast.AssignStmt) checkOrder {
	switch {
	case r.maySync(s.Rhs...):
		return checkAfterSync
	case r.mayPanic(s.Rhs...):
		return checkAfter
	}
	for _, e := range s.Lhs[1:] {
		if r.storeMayPanic(e) {
			return checkAfter
		}
	}
	return checkBefore
}

// splits reports whether tuple assignment s must be split into its
// phases: a store after the first may panic, after earlier stores that
// must be checked.
func (r *fileRewriter) splits(s *ast.AssignStmt) bool {
	if len(s.Lhs) < 2 {
		return false
	}
	for _, e := range s.Lhs[1:] {
		if r.storeMayPanic(e) {
			return true
		}
	}
	return false
}

// mayPanic reports whether evaluating one of es may panic (or not return):
// anything but constants, variables, fields reached without a pointer,
// arithmetic that cannot divide by zero or shift by a negative count,
// composite and function literals of such parts, conversions that are not
// to an array, a few builtins and calls whose summary says they return
// normally (summaries.go).
func (r *fileRewriter) mayPanic(es ...ast.Expr) bool {
	for _, e := range es {
		if !r.cannotPanic(e) {
			return true
		}
	}
	return false
}

func (r *fileRewriter) cannotPanic(e ast.Expr) bool {
	if tv, ok := r.info.Types[e]; ok && (tv.IsType() || tv.Value != nil || tv.IsNil()) {
		return true
	}
	switch e := e.(type) {
	case *ast.Ident:
		return true
	case *ast.ParenExpr:
		return r.cannotPanic(e.X)
	case *ast.FuncLit:
		return true
	case *ast.BasicLit:
		return true
	case *ast.SelectorExpr:
		sel := r.info.Selections[e]
		if sel == nil {
			return true // a qualified identifier
		}
		return !sel.Indirect() && r.cannotPanic(e.X)
	case *ast.UnaryExpr:
		switch e.Op {
		case token.ARROW:
			return false
		case token.AND:
			if _, ok := ast.Unparen(e.X).(*ast.CompositeLit); ok {
				return r.cannotPanic(e.X)
			}
			_, isID := ast.Unparen(e.X).(*ast.Ident)
			return isID // &x.f, &a[i] evaluate (and check) operands
		}
		return r.cannotPanic(e.X)
	case *ast.BinaryExpr:
		switch e.Op {
		case token.QUO, token.REM:
			if isInteger(r.typeOf(e)) {
				tv := r.info.Types[e.Y]
				if tv.Value == nil || tv.Value.String() == "0" {
					return false
				}
			}
		case token.SHL, token.SHR:
			if r.info.Types[e.Y].Value == nil {
				return false
			}
		case token.EQL, token.NEQ:
			if holdsInterface(r.typeOf(e.X)) || holdsInterface(r.typeOf(e.Y)) {
				return false
			}
		}
		return r.cannotPanic(e.X) && r.cannotPanic(e.Y)
	case *ast.CompositeLit:
		for _, el := range e.Elts {
			if kv, ok := el.(*ast.KeyValueExpr); ok {
				if !r.cannotPanic(kv.Key) || !r.cannotPanic(kv.Value) {
					return false
				}
			} else if !r.cannotPanic(el) {
				return false
			}
		}
		// A map literal hashes its keys: an interface key may panic.
		if m, ok := placement.CoreType(r.typeOf(e)).(*types.Map); ok && holdsInterface(m.Key()) {
			return false
		}
		return true
	case *ast.CallExpr:
		for _, a := range e.Args {
			if !r.cannotPanic(a) {
				return false
			}
		}
		if r.info.Types[e.Fun].IsType() {
			switch placement.CoreType(r.typeOf(e)).(type) {
			case *types.Array, *types.Pointer:
				return false // from a slice: may be too short
			}
			return true
		}
		switch r.builtinName(e.Fun) {
		case "len", "cap", "new", "min", "max", "real", "imag", "complex", "append", "copy":
			return true
		case "":
			return r.cannotPanic(e.Fun) && r.harmlessCall(e)
		}
		return false
	}
	return false
}

// holdsInterface reports whether comparing values of type t compares
// interface values, which panics on incomparable dynamic types.
func holdsInterface(t types.Type) bool {
	switch u := t.Underlying().(type) {
	case *types.Interface:
		return true
	case *types.Array:
		return holdsInterface(u.Elem())
	case *types.Struct:
		for i := 0; i < u.NumFields(); i++ {
			if holdsInterface(u.Field(i).Type()) {
				return true
			}
		}
	}
	return false
}

func isInteger(t types.Type) bool {
	b, ok := placement.CoreType(t).(*types.Basic)
	return ok && b.Info()&types.IsInteger != 0
}

// storeMayPanic reports whether carrying out the assignment to target e
// may panic: an index (out of range, or a nil map), a pointer indirection,
// explicit or implicit, through a nil pointer.
func (r *fileRewriter) storeMayPanic(e ast.Expr) bool {
	switch e := ast.Unparen(e).(type) {
	case *ast.Ident:
		return false
	case *ast.SelectorExpr:
		sel := r.info.Selections[e]
		if sel == nil {
			return false
		}
		return sel.Indirect() || r.storeMayPanic(e.X)
	case *ast.IndexExpr:
		if _, isArray := placement.CoreType(r.typeOf(e.X)).(*types.Array); isArray && r.info.Types[e.Index].Value != nil {
			return r.storeMayPanic(e.X) // a constant index into an array is checked at compile time
		}
		return true
	}
	return true
}

// splitTuple renders the tuple assignment s, in a statement list, as its
// two phases: the target's operand values and the right-hand side into
// temporaries, in one definition (so in Go's order), then one assignment
// per target, each followed by its check. It returns false, rendering
// nothing, when a value's temporary would not have the type it is
// assigned as (an untyped value, which takes its type from the target).
func (r *fileRewriter) splitTuple(s *ast.AssignStmt, ord checkOrder) (stmtOut, bool) {
	multi := len(s.Lhs) != len(s.Rhs)
	if _, isCall := ast.Unparen(s.Rhs[0]).(*ast.CallExpr); multi && !isCall {
		return stmtOut{}, false // a comma-ok form: its untyped bool takes the target's type
	}
	for _, v := range s.Rhs {
		if r.info.Types[v].Value == nil && untypedForm(v) {
			return stmtOut{}, false
		}
	}
	var hs []ast.Expr
	for _, e := range s.Lhs {
		if !r.operands(e, &hs) {
			return stmtOut{}, false
		}
	}
	for _, h := range hs {
		if r.info.Types[h].Value == nil && untypedForm(h) {
			return stmtOut{}, false
		}
	}
	var names, values []string
	hoisted := map[ast.Expr]string{}
	for _, h := range hs {
		t := r.newTemp()
		names = append(names, t)
		values = append(values, r.expr(h, mValue))
		hoisted[h] = t
	}
	rhs := make([]string, len(s.Lhs))
	call := "" // f() with several results, all typed: defined after the operands
	if multi {
		for i := range rhs {
			rhs[i] = r.newTemp()
		}
		call = strings.Join(rhs, ", ") + " := " + r.expr(s.Rhs[0], mValue) + "; "
	}
	for i, v := range s.Rhs {
		if multi {
			break
		}
		text := r.expr(v, mValue)
		if r.info.Types[v].Value != nil || r.info.Types[v].IsNil() {
			rhs[i] = text // a constant: assigned in place, with its target's type
			continue
		}
		t := r.newTemp()
		names = append(names, t)
		values = append(values, text)
		rhs[i] = t
	}
	cgoPre, cgoPost := r.cgoHooks(s.Pos(), true)
	var out strings.Builder
	out.WriteString(cgoPre)
	if len(names) > 0 {
		out.WriteString(strings.Join(names, ", ") + " := " + strings.Join(values, ", ") + "; ")
	}
	out.WriteString(call)
	r.hoisted = hoisted
	for i, e := range s.Lhs {
		text, post := r.lvalue(e, ord, true, nil)
		if text == "_" {
			out.WriteString("_ = " + rhs[i])
		} else {
			out.WriteString(text + " = " + rhs[i] + post)
		}
		out.WriteString("; ")
	}
	r.unhoist()
	return stmtOut{text: padLines(r.text(s), "{ "+out.String()+strings.TrimPrefix(cgoPost, "; ")+" }"), block: true}, true
}

// operands appends to hs the operand values of target e that its
// assignment uses, left to right (every one that is not a constant, not
// only those with calls as hoistable), and reports whether e has only
// such forms.
func (r *fileRewriter) operands(e ast.Expr, hs *[]ast.Expr) bool {
	rest, ok := r.targetOperands(e, func(x ast.Expr) {
		if r.info.Types[x].Value == nil {
			*hs = append(*hs, x)
		}
	})
	return ok && rest == nil
}

// untypedForm reports whether e may be an untyped value that takes its
// type from where it is used (a comparison, a shift, a logical operator):
// a temporary := e would get the default type instead.
func untypedForm(e ast.Expr) bool {
	switch e := ast.Unparen(e).(type) {
	case *ast.BinaryExpr:
		switch e.Op {
		case token.EQL, token.NEQ, token.LSS, token.LEQ, token.GTR, token.GEQ, token.LAND, token.LOR, token.SHL, token.SHR:
			return true
		}
		return untypedForm(e.X) || untypedForm(e.Y)
	case *ast.UnaryExpr:
		return e.Op == token.NOT || untypedForm(e.X)
	}
	return false
}
