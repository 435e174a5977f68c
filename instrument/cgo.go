package instrument

import (
	"go/ast"
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
// the acquire wraps the result. The two-result form (r, err := C.f(x),
// errno as an error) must stay where cgo sees its context, so its result
// is not wrapped: the acquire moves before the call, with the release.
func (r *fileRewriter) cgoCall(e *ast.CallExpr, args []sub) string {
	g := r.g()
	last := -1
	for i := len(e.Args) - 1; i >= 0; i-- {
		if r.ioWrappable(e.Args[i]) {
			last = i
			break
		}
	}
	for _, a := range e.Args[last+1:] {
		if tv := r.info.Types[a]; tv.Value == nil && !tv.IsNil() {
			r.note(a.Pos(), "argument of a C call evaluated after the release into the C sync object")
		}
	}
	if r.resultCount(e) != 1 {
		if last < 0 {
			r.note(e.Pos(), "C call with two results and no wrappable argument: not synchronized with other C calls")
			return r.spliceNode(e, args...)
		}
		args[last].text = "__bf.CgoArgSync(" + g + ", " + args[last].text + ")"
		return r.spliceNode(e, args...)
	}
	if last < 0 {
		return "__bf.CgoRet(__bf.CgoPre(" + g + "), " + r.spliceNode(e, args...) + ")"
	}
	args[last].text = "__bf.CgoArg(" + g + ", " + args[last].text + ")"
	return "__bf.CgoRet(" + g + ", " + r.spliceNode(e, args...) + ")"
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
