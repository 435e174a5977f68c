package placement

import (
	"go/ast"

	"golang.org/x/tools/go/ssa"
)

// funcBody returns the statements fn was built from: the body of its
// declaration or function literal or, for the body of a range-over-func
// loop (which go/ssa builds as a function of its own, whose Syntax is the
// *ast.RangeStmt), that loop's body. It returns nil for a function
// without syntax or without a body.
func funcBody(fn *ssa.Function) *ast.BlockStmt {
	switch syn := fn.Syntax().(type) {
	case *ast.FuncDecl:
		return syn.Body
	case *ast.FuncLit:
		return syn.Body
	case *ast.RangeStmt:
		return syn.Body
	}
	return nil
}

// inspectOwn calls visit, in ast.Inspect's order, for the nodes of fn's
// body that fn itself evaluates. It does not descend into function
// literals, nor into the bodies of range-over-func loops, which are
// functions of their own; such a loop's range statement and its operand
// are fn's and are visited. visit returns whether to descend into the
// node's children; it is never called with nil.
func inspectOwn(fn *ssa.Function, visit func(ast.Node) bool) {
	body := funcBody(fn)
	if body == nil {
		return
	}
	yields := yieldBodies(fn)
	var f func(ast.Node) bool
	f = func(n ast.Node) bool {
		switch n := n.(type) {
		case nil:
			return false
		case *ast.FuncLit:
			return false
		case *ast.RangeStmt:
			if yields[n] {
				if visit(n) {
					ast.Inspect(n.X, f)
				}
				return false
			}
		}
		return visit(n)
	}
	ast.Inspect(body, f)
}

// yieldBodies returns the range statements whose bodies go/ssa built as
// functions of their own, among the functions nested in fn's outermost
// enclosing function.
func yieldBodies(fn *ssa.Function) map[*ast.RangeStmt]bool {
	for fn.Parent() != nil {
		fn = fn.Parent()
	}
	out := map[*ast.RangeStmt]bool{}
	var add func(*ssa.Function)
	add = func(fn *ssa.Function) {
		for _, anon := range fn.AnonFuncs {
			if rs, ok := anon.Syntax().(*ast.RangeStmt); ok {
				out[rs] = true
			}
			add(anon)
		}
	}
	add(fn)
	return out
}
