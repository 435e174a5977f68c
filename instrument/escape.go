package instrument

import (
	"go/ast"
	"go/token"
	"go/types"

	"golang.org/x/tools/go/packages"
)

// syntacticHeapVars is the fallback of heapVars for packages go/ssa cannot
// build (those that call runtime.RaceXxx, which does not type-check outside
// race builds). It computes the same rule from the syntax: a local variable
// lives on the heap if a function literal refers to it from inside, or if
// its address is taken (&x, x[:] of an array, x.m() with a pointer
// receiver), possibly through a path of fields and array elements.
func syntacticHeapVars(pkg *packages.Package) map[token.Pos]bool {
	info := pkg.TypesInfo
	set := map[token.Pos]bool{}
	local := func(id *ast.Ident) *types.Var {
		v, ok := info.Uses[id].(*types.Var)
		if !ok {
			v, ok = info.Defs[id].(*types.Var)
		}
		if !ok || v.IsField() || v.Pkg() == nil || v.Parent() == v.Pkg().Scope() || v.Parent() == nil {
			return nil
		}
		return v
	}
	// root returns the variable whose memory an addressable path denotes.
	var root func(e ast.Expr) *types.Var
	root = func(e ast.Expr) *types.Var {
		switch e := ast.Unparen(e).(type) {
		case *ast.Ident:
			return local(e)
		case *ast.SelectorExpr:
			if sel := info.Selections[e]; sel != nil && sel.Kind() == types.FieldVal && !sel.Indirect() {
				return root(e.X)
			}
		case *ast.IndexExpr:
			if _, ok := coreType(info.TypeOf(e.X)).(*types.Array); ok {
				return root(e.X)
			}
		}
		return nil
	}
	mark := func(e ast.Expr) {
		if v := root(e); v != nil {
			set[v.Pos()] = true
		}
	}
	for _, f := range pkg.Syntax {
		var lits []*ast.FuncLit
		var visit func(n ast.Node) bool
		visit = func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.FuncLit:
				lits = append(lits, n)
				ast.Inspect(n.Body, visit)
				lits = lits[:len(lits)-1]
				return false
			case *ast.Ident:
				if len(lits) > 0 {
					if v := local(n); v != nil {
						inner := lits[len(lits)-1]
						if v.Pos() < inner.Pos() || v.Pos() >= inner.End() {
							set[v.Pos()] = true
						}
					}
				}
			case *ast.UnaryExpr:
				if n.Op == token.AND {
					mark(n.X)
				}
			case *ast.SliceExpr:
				if _, ok := coreType(info.TypeOf(n.X)).(*types.Array); ok {
					mark(n.X)
				}
			case *ast.SelectorExpr:
				if sel := info.Selections[n]; sel != nil && sel.Kind() == types.MethodVal {
					if fn, ok := sel.Obj().(*types.Func); ok {
						if recv := fn.Type().(*types.Signature).Recv(); recv != nil && isPointer(recv.Type()) && !isPointer(info.TypeOf(n.X)) {
							mark(n.X)
						}
					}
				}
			}
			return true
		}
		ast.Inspect(f, visit)
	}
	return set
}
