package instrument

import (
	"go/ast"
	"go/types"
	"strings"

	"github.com/bigfoot-go/bigfoot/placement"
)

// Assignment targets whose address contains a call.
//
// A write whose right-hand side may synchronize is checked after the
// statement (lvalue), at the target's address computed again; that is
// only the same address if computing it calls nothing. Go evaluates the
// operands of index expressions and pointer indirections on the left
// before the right-hand side, in the usual order (the Go spec,
// "Assignment statements"), and leaves the order of a call and a
// variable's read unspecified ("Order of evaluation"). So the calls of a
// target may be made first, into temporaries, before the statement:
// infos[key()].ts = time.Now() becomes
//
//	__bft1 := R(infos)[key()]; __bft1.ts = time.Now(); __bf.W(g, &__bft1.ts, S)
//
// Only operand values are hoisted (a pointer, slice or map operand, an
// index), never an array or struct operand that the target must address,
// and nothing is dereferenced or indexed early: a nil pointer or an index
// out of range still panics where the assignment does.

// hoistCalls evaluates, before the statement, the maximal operand
// values of target e that are not call-free, into temporaries the
// rendering of e then uses (r.hoisted). It returns the statements, or
// false (and hoists nothing) if e has a call it cannot hoist.
func (r *fileRewriter) hoistCalls(e ast.Expr) (string, bool) {
	var hs []ast.Expr
	if !r.hoistable(e, &hs) {
		return "", false
	}
	var pre strings.Builder
	for _, h := range hs {
		t := r.newTemp()
		pre.WriteString(t + " := " + r.expr(h, mValue) + "; ")
		if r.hoisted == nil {
			r.hoisted = map[ast.Expr]string{}
		}
		r.hoisted[h] = t
	}
	return pre.String(), true
}

// hoistable appends to hs the operand values of the target e to hoist,
// left to right, and reports whether what remains of e is call-free.
func (r *fileRewriter) hoistable(e ast.Expr, hs *[]ast.Expr) bool {
	rest, ok := r.targetOperands(e, func(x ast.Expr) {
		if !r.callFree(x) {
			*hs = append(*hs, x)
		}
	})
	return ok && (rest == nil || r.callFree(rest))
}

// targetOperands walks the address of assignment target e: it calls
// value, left to right, on each operand value the address uses (a pointer
// that is dereferenced, a slice or map that is indexed, an index), and
// descends into the array and struct operands the address is made of. It
// returns the first part that is none of these forms (nil if there is
// none), and false if e selects something other than a field, which is
// no address at all.
func (r *fileRewriter) targetOperands(e ast.Expr, value func(ast.Expr)) (rest ast.Expr, ok bool) {
	switch e := e.(type) {
	case *ast.Ident:
		return nil, true
	case *ast.ParenExpr:
		return r.targetOperands(e.X, value)
	case *ast.StarExpr:
		value(e.X)
		return nil, true
	case *ast.SelectorExpr:
		sel := r.info.Selections[e]
		if sel == nil {
			return nil, true // a qualified identifier
		}
		if sel.Kind() != types.FieldVal {
			return nil, false
		}
		if isPointer(r.typeOf(e.X)) {
			value(e.X)
			return nil, true
		}
		return r.targetOperands(e.X, value)
	case *ast.IndexExpr:
		if _, isArray := placement.CoreType(r.typeOf(e.X)).(*types.Array); isArray {
			rest, ok = r.targetOperands(e.X, value)
		} else {
			value(e.X)
			ok = true
		}
		value(e.Index)
		return rest, ok
	}
	return e, true
}

// unhoist forgets the temporaries of hoistCalls once the statement is
// rendered.
func (r *fileRewriter) unhoist() { r.hoisted = nil }

// hoistedText is the source of e with the hoisted operands replaced by
// their temporaries.
func (r *fileRewriter) hoistedText(e ast.Expr) string {
	var subs []sub
	ast.Inspect(e, func(n ast.Node) bool {
		x, ok := n.(ast.Expr)
		if !ok {
			return true
		}
		if t, ok := r.hoisted[x]; ok {
			subs = append(subs, subOf(x, t))
			return false
		}
		return true
	})
	return r.splice(e.Pos(), e.End(), subs...)
}
