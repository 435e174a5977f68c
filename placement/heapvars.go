// Copyright 2026 The bigfoot Authors. All rights reserved.

package placement

import (
	"go/ast"
	"go/token"
	"go/types"
	"strings"

	"golang.org/x/tools/go/ssa"
)

// What is shared memory, for the variables of a package.
//
// Besides package-level variables, a variable another goroutine may reach
// is a local that go/ssa's lifting leaves in memory (an Alloc with Heap
// set: a function literal captures it, or its address is taken) and whose
// address leaves the function's own loads, stores, indexing, slicing and
// builtins (escapes): the locals whose accesses placement finds
// (pathOf). Every other local is thread-local, never checked. The
// instrumenter checks a variable's accesses only if the variable is in
// this set or at package level, and not in the static safe class
// (SafeVars), so its checks of variables are the accesses of the plan.

// SharedVars returns the declaration positions of pkg's local variables
// whose accesses are accesses to shared memory, in some function of pkg
// (methods of generic types, closures and instantiations included): go/ssa
// keeps them on the heap and their address escapes the function.
func SharedVars(pkg *ssa.Package) map[token.Pos]bool {
	set := make(map[token.Pos]bool)
	for fn := range allFunctions(pkg.Prog) {
		if fn.Pkg != pkg && (fn.Origin() == nil || fn.Origin().Pkg != pkg) {
			continue
		}
		for _, b := range fn.Blocks {
			for _, ins := range b.Instrs {
				if a, ok := ins.(*ssa.Alloc); ok && a.Heap && a.Pos().IsValid() && !strings.Contains(a.Comment, "$") && escapes(a) {
					set[a.Pos()] = true
				}
			}
		}
	}
	return set
}

// SyntacticHeapVars is SharedVars for a package go/ssa cannot build (one
// that calls runtime.RaceXxx, which does not type-check outside race
// builds), from its syntax: a local variable lives on the heap if a
// function literal refers to it from inside, or if its address is taken
// (&x, x[:] of an array, x.m() with a pointer receiver), possibly through
// a path of fields and array elements. It may find more than SharedVars
// would, never less.
func SyntacticHeapVars(files []*ast.File, info *types.Info) map[token.Pos]bool {
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
	pointer := func(t types.Type) bool {
		_, ok := t.(*types.Pointer)
		if t != nil {
			_, ok = CoreType(t).(*types.Pointer)
		}
		return ok
	}
	array := func(e ast.Expr) bool {
		t := info.TypeOf(e)
		if t == nil {
			return false
		}
		_, ok := CoreType(t).(*types.Array)
		return ok
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
			if array(e.X) {
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
	for _, f := range files {
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
				if array(n.X) {
					mark(n.X)
				}
			case *ast.SelectorExpr:
				if sel := info.Selections[n]; sel != nil && sel.Kind() == types.MethodVal {
					if fn, ok := sel.Obj().(*types.Func); ok {
						if recv := fn.Type().(*types.Signature).Recv(); recv != nil && pointer(recv.Type()) && !pointer(info.TypeOf(n.X)) {
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
