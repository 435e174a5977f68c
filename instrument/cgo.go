package instrument

import (
	"go/ast"
	"go/token"
	"go/types"
	"strings"
)

// Files that import "C". The loader type-checks them from their own syntax
// (typecheckCgo in load.go), so they are rewritten like any other file;
// the go command then runs cgo on the rewritten file from the overlay. C
// code itself is not instrumented. What the rewrite adds for C is the
// synchronization Go's race runtime gives every C call (detector/cgo.go):
// a release before each call of a C function, an acquire after it, and the
// reverse around each Go function exported to C.

// cgoValue reports whether v is a package-level variable of cgo's
// declarations (_cgo_gotypes.go, in the build cache, not in the module)
// that C.name denotes but that is not a variable of the program: C.f used
// as a function pointer (_Cfpvar_fp_f, which cgo rewrites to a
// non-addressable value). C variables (_Cvar_x, C.x the C variable
// itself) stay ordinary package-level variables, and so does a variable
// of the program that happens to be named _C....
func (r *fileRewriter) cgoValue(v *types.Var) bool {
	if !strings.HasPrefix(v.Name(), "_C") || strings.HasPrefix(v.Name(), "_Cvar_") {
		return false
	}
	return !inModule(r.p.pkg, r.p.pkg.Fset.Position(v.Pos()).Filename)
}

// goImplementedC lists the functions of cgo's pseudo-package C that are
// implemented in Go by the runtime, without a call into C: Go's race
// runtime sees no synchronization in them.
var goImplementedC = map[string]bool{"GoString": true, "GoStringN": true, "GoBytes": true}

// cgoCallee reports whether fun names a C function, C.name, that calls
// into C: the type checker resolves name to cgo's _Cfunc_name.
func (r *fileRewriter) cgoCallee(fun ast.Expr) bool {
	sel, ok := ast.Unparen(fun).(*ast.SelectorExpr)
	if !ok {
		return false
	}
	x, ok := sel.X.(*ast.Ident)
	if !ok {
		return false
	}
	pn, ok := r.info.Uses[x].(*types.PkgName)
	if !ok || pn.Imported().Path() != "C" {
		return false
	}
	fn, ok := r.info.Uses[sel.Sel].(*types.Func)
	return ok && strings.HasPrefix(fn.Name(), "_Cfunc_") && !goImplementedC[sel.Sel.Name]
}

// cgoCall renders a call of a C function: the release into the C sync
// object wraps the last argument that can carry it (ioWrappable), so that
// it follows the evaluation of the arguments, or else precedes the call;
// the acquire wraps the result, or where it cannot follows the statement.
func (r *fileRewriter) cgoCall(e *ast.CallExpr, args []sub) string {
	g := r.g()
	last := r.cgoLastWrappable(e)
	for _, a := range e.Args[last+1:] {
		if tv := r.info.Types[a]; tv.Value == nil && !tv.IsNil() {
			r.note(a.Pos(), "argument of a C call evaluated after the release into the C sync object")
		}
	}
	if r.cgoInPlace(e, last) {
		if last >= 0 {
			args[last].text = "__bf.CgoArg(" + g + ", " + args[last].text + ")"
		} else {
			r.cgoRelease = true
		}
		r.cgoAcquire = true
		return r.spliceNode(e, args...)
	}
	if last < 0 {
		return "__bf.CgoRet(__bf.CgoPre(" + g + "), " + r.spliceNode(e, args...) + ")"
	}
	args[last].text = "__bf.CgoArg(" + g + ", " + args[last].text + ")"
	return "__bf.CgoRet(" + g + ", " + r.spliceNode(e, args...) + ")"
}

// cgoLastWrappable returns the index of the last argument of the C call e
// that can carry the release into the C sync object (ioWrappable), or -1.
func (r *fileRewriter) cgoLastWrappable(e *ast.CallExpr) int {
	for i := len(e.Args) - 1; i >= 0; i-- {
		if r.ioWrappable(e.Args[i]) {
			return i
		}
	}
	return -1
}

// cgoInPlace reports whether the C call e, whose last wrappable argument
// is last, must stay as written, its result unwrapped. A void call whose
// pointer arguments cgo checks becomes a function literal with no result:
// it must stay a statement. The two-result form (r, err := C.f(x), errno
// as an error) must stay where cgo sees its context. The statement that
// holds such a call acquires after it (cgoHooks), and with no wrappable
// argument releases before it.
func (r *fileRewriter) cgoInPlace(e *ast.CallExpr, last int) bool {
	return r.cgoVoid(e) && last >= 0 || r.resultCount(e) != 1
}

// cgoHooked reports whether the simple statement s holds a C call that
// needs hooks around s (cgoInPlace): a for statement's init and post then
// take the rewrites that give them a statement list (forInit, forPost).
// Calls in function literals are the literals' own.
func (r *fileRewriter) cgoHooked(s ast.Stmt) bool {
	if r.fn == nil {
		return false
	}
	found := false
	ast.Inspect(s, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.CallExpr:
			if r.cgoCallee(n.Fun) && r.cgoInPlace(n, r.cgoLastWrappable(n)) {
				found = true
			}
		}
		return !found
	})
	return found
}

// cgoVoid reports whether the C function called by e returns nothing
// (cgo's _Ctype_void).
func (r *fileRewriter) cgoVoid(e *ast.CallExpr) bool {
	sel := ast.Unparen(e.Fun).(*ast.SelectorExpr)
	sig, ok := r.info.Uses[sel.Sel].Type().(*types.Signature)
	if !ok || sig.Results().Len() != 1 {
		return false
	}
	named, ok := types.Unalias(sig.Results().At(0).Type()).(*types.Named)
	return ok && named.Obj().Name() == "_Ctype_void"
}

// cgoHooks returns the statements to run before and after the statement
// at pos for the C call in it that cgoCall could not wrap (r.cgoRelease,
// r.cgoAcquire), and clears the request. Outside a statement list there
// is no room for them: a note says so. No statement reaches here that way:
// a for statement's init and post that need them get a list (cgoHooked).
func (r *fileRewriter) cgoHooks(pos token.Pos, list bool) (pre, post string) {
	release, acquire := r.cgoRelease, r.cgoAcquire
	r.cgoRelease, r.cgoAcquire = false, false
	if !release && !acquire {
		return "", ""
	}
	if !list || r.fn == nil {
		r.note(pos, "C call outside a statement list: not synchronized with other C calls")
		return "", ""
	}
	if release {
		pre = "__bf.CgoRelease(" + r.g() + "); "
	}
	if acquire {
		post = "; __bf.CgoAcquire(" + r.g() + ")"
	}
	return pre, post
}

// cgoDeferred wraps the text of a C call deferred by a go or defer
// statement (its operands already evaluated) in the C sync object's hooks,
// run by the goroutine state g.
func cgoDeferred(g, call string) string {
	return "__bf.CgoRelease(" + g + "); " + call + "; __bf.CgoAcquire(" + g + ")"
}

// exportedToC reports whether d carries a //export directive: C may call
// it, on a goroutine of its own or from inside a C call.
func exportedToC(d *ast.FuncDecl) bool {
	if d.Doc == nil || d.Recv != nil {
		return false
	}
	for _, c := range d.Doc.List {
		if strings.HasPrefix(c.Text, "//export ") {
			return true
		}
	}
	return false
}

// cgoCallbackPrologue is added to the prologue of a function exported to
// C: it acquires from the C sync object at entry and releases into it when
// it returns, as Go's runtime does around a call from C.
const cgoCallbackPrologue = "__bf.CgoCallback(__bfg); defer __bf.CgoCallbackEnd(__bfg);"
