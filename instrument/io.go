package instrument

import (
	"go/ast"
	"go/token"
	"go/types"
	"strings"

	"github.com/bigfoot-go/bigfoot/placement"
)

// I/O as synchronization (docs/runtime.md, "I/O"). The operating system
// orders a write to a file, socket or pipe before a read that sees it; Go's
// race detector models this in package syscall with one sync object for
// all I/O: a Read or Pread that succeeded acquires it, a Write, Pwrite or
// Sendfile releases into it. Where the build's syscall announces the same
// (the driver's splices, Config.SyscallIO), calls do nothing more; else
// (the standard library left uninstrumented, -deps=main) the calls of
// instrumented code that do I/O announce it: writes call __bf.IOWrite
// (release) before, reads __bf.IORead (acquire) after.

// ioCall returns the I/O ordering of a call of fun's callee
// (placement.SyncCall.IO); 0 if it does no I/O, or if the build's package
// syscall announces I/O itself (built.syscallIO).
func (r *fileRewriter) ioCall(fun ast.Expr) placement.IOKind {
	if r.p.syscallIO {
		return 0
	}
	fun = ast.Unparen(fun)
	var fn *types.Func
	switch f := fun.(type) {
	case *ast.Ident:
		fn, _ = r.info.Uses[f].(*types.Func)
	case *ast.SelectorExpr:
		if sel := r.info.Selections[f]; sel != nil {
			if sel.Kind() != types.MethodVal {
				return 0
			}
			fn, _ = sel.Obj().(*types.Func)
		} else {
			fn, _ = r.info.Uses[f.Sel].(*types.Func)
		}
	}
	c, _ := placement.SyncCallOf(fn)
	return c.IO
}

// ioWrap adds the I/O hooks of kind to a call being rendered from subs
// (the callee's substitution first, then one per argument, in args). A
// write releases right before the call: through IOW around the last
// argument whose evaluation can be wrapped (so that the reads the
// arguments do are released too), else around the function value. A read
// acquires after the call, around its results.
func (r *fileRewriter) ioWrap(e *ast.CallExpr, kind placement.IOKind, fun sub, args []sub) string {
	if kind == placement.IORead {
		if text, ok := r.readInto(e, fun, args); ok {
			return "__bf.IOR2(" + text + ")"
		}
	}
	if kind&placement.IOWrite != 0 {
		wrapped := false
		for i := len(e.Args) - 1; i >= 0; i-- {
			if r.ioWrappable(e.Args[i]) {
				args[i].text = "__bf.IOW(" + r.g() + ", " + args[i].text + ")"
				wrapped = true
				break
			}
		}
		if !wrapped {
			text := fun.text
			if fun.lo != e.Fun.Pos() || fun.hi != e.Fun.End() {
				// fun replaces only the receiver: render the method value.
				text = r.spliceNode(e.Fun, fun)
			}
			fun = sub{e.Fun.Pos(), e.Fun.End(), "__bf.IOW(" + r.g() + ", " + text + ")"}
		}
	}
	text := r.spliceNode(e, append([]sub{fun}, args...)...)
	if kind&placement.IORead != 0 {
		switch n := r.resultCount(e); n {
		case 1:
			text = "__bf.IOR(" + r.g() + ", " + text + ")"
		case 2:
			text = "__bf.IOR2(" + text + ")"
		case 3:
			text = "__bf.IOR3(" + text + ")"
		default:
			r.note(e.Pos(), "I/O read with %d results: not ordered after writes", n)
		}
	}
	return text
}

// resultCount is the number of results of a call.
func (r *fileRewriter) resultCount(e *ast.CallExpr) int {
	t := r.info.Types[e].Type
	if t == nil {
		return -1
	}
	if tup, ok := t.(*types.Tuple); ok {
		return tup.Len()
	}
	return 1
}

// ioWrappable reports whether the argument a can be passed through the
// generic IOW without changing the call's typing: it has a type of its own
// (not an untyped constant, nil, comparison or shift, which take the
// parameter's type) and is not a generic function or a multi-valued call.
func (r *fileRewriter) ioWrappable(a ast.Expr) bool {
	tv, ok := r.info.Types[a]
	if !ok || tv.Value != nil || tv.IsNil() || tv.IsType() || tv.Type == nil {
		return false
	}
	switch t := tv.Type.(type) {
	case *types.Tuple:
		return false
	case *types.Basic:
		if t.Info()&types.IsUntyped != 0 {
			return false
		}
	case *types.Signature:
		if t.TypeParams().Len() > 0 {
			return false
		}
	}
	switch x := ast.Unparen(a).(type) {
	case *ast.BinaryExpr:
		switch x.Op {
		case token.EQL, token.NEQ, token.LSS, token.LEQ, token.GTR, token.GEQ, token.SHL, token.SHR, token.LAND, token.LOR:
			return false
		}
	case *ast.UnaryExpr:
		if x.Op == token.NOT {
			return false
		}
	case *ast.Ident, *ast.SelectorExpr, *ast.IndexExpr, *ast.IndexListExpr:
		// A generic function instantiated by the parameter's type.
		if id := identOf(x); id != nil {
			if f, ok := r.info.Uses[id].(*types.Func); ok && f.Type().(*types.Signature).TypeParams().Len() > 0 {
				return false
			}
		}
	}
	return true
}

func identOf(e ast.Expr) *ast.Ident {
	switch x := e.(type) {
	case *ast.Ident:
		return x
	case *ast.SelectorExpr:
		return x.Sel
	case *ast.IndexExpr:
		return identOf(x.X)
	case *ast.IndexListExpr:
		return identOf(x.X)
	}
	return nil
}

// deferredIO wraps the text of a call deferred by a go or defer statement
// (its operands already evaluated) in the I/O hooks of kind, run by the
// goroutine state g.
func deferredIO(kind placement.IOKind, g, call string) string {
	var b strings.Builder
	if kind&placement.IOWrite != 0 {
		b.WriteString("__bf.IOWrite(" + g + "); ")
	}
	b.WriteString(call)
	if kind&placement.IORead != 0 {
		b.WriteString("; __bf.IORead(" + g + ")")
	}
	return b.String()
}

// httpHandlerPrologue is added to the prologue of functions with the
// signature of an HTTP handler, func(http.ResponseWriter, *http.Request):
// net/http runs them on goroutines of its own after reading the request
// and writes the response after they return, so the handler acquires at
// entry and releases at exit.
const httpHandlerPrologue = "__bf.IORead(__bfg); defer __bf.IOWrite(__bfg);"

// isHTTPHandler reports whether sig is func(http.ResponseWriter, *http.Request).
func isHTTPHandler(sig *types.Signature) bool {
	if sig == nil || sig.Params().Len() != 2 || sig.Results().Len() != 0 || sig.Variadic() {
		return false
	}
	isNamed := func(t types.Type, name string) bool {
		n, ok := types.Unalias(t).(*types.Named)
		return ok && n.Obj().Pkg() != nil && n.Obj().Pkg().Path() == "net/http" && n.Obj().Name() == name
	}
	p, ok := sig.Params().At(1).Type().(*types.Pointer)
	return ok && isNamed(sig.Params().At(0).Type(), "ResponseWriter") && isNamed(p.Elem(), "Request")
}

// readInto renders a call of a Read or ReadAt method of the io.Reader or
// io.ReaderAt shape, declared outside the instrumented packages or called
// through an interface, as __bf.ReadInto(g, site, x, p) (or ReadAtInto):
// the runtime calls x.Read(p) and checks the write of the bytes it read,
// p[:n], as Go's race runtime does for a read system call, unless the
// method is instrumented (it checks its own writes) or another read of x
// overlapped it. Reads of one receiver are ordered as the reader orders
// them (docs/runtime.md, "Reads into buffers without the standard
// library"), so the receiver is passed itself: an interface, or a pointer
// (an addressable value's address where the method takes a pointer). A
// method promoted from an embedded field, one that takes its receiver by
// value, or one called on a type parameter's value, has no receiver
// known to order its reads by and is left as it is (its write is not
// checked). x and then p are evaluated, in the original order.
//
// Not where the build's package syscall announces I/O (built.syscallIO):
// the standard library and the dependencies are instrumented, so every
// Read method written in Go checks its own writes, and syscall.Read
// checks what the kernel wrote, as under go -race.
func (r *fileRewriter) readInto(e *ast.CallExpr, fun sub, args []sub) (string, bool) {
	if r.p.syscallIO {
		return "", false
	}
	sel, ok := ast.Unparen(e.Fun).(*ast.SelectorExpr)
	if !ok || e.Ellipsis.IsValid() || fun.lo < sel.X.Pos() || fun.hi > sel.X.End() {
		return "", false
	}
	s := r.info.Selections[sel]
	if s == nil || s.Kind() != types.MethodVal {
		return "", false
	}
	fn, ok := s.Obj().(*types.Func)
	if !ok || r.instrumented(fn) {
		return "", false // its body checks its own writes
	}
	sig := fn.Type().(*types.Signature)
	if !isReadMethod(fn) || len(args) != sig.Params().Len() {
		return "", false
	}
	hook := rtName("ReadInto")
	if fn.Name() == "ReadAt" {
		hook = "ReadAtInto"
	}
	recv := r.spliceNode(sel.X, fun)
	xt := r.typeOf(sel.X)
	switch {
	case len(s.Index()) > 1 || isTypeParam(xt):
		return "", false
	case types.IsInterface(xt), isPointer(xt) && isPointer(sig.Recv().Type()):
	case isPointer(sig.Recv().Type()):
		recv = "&(" + recv + ")"
	default:
		return "", false
	}
	parts := []string{r.g(), r.site(e.Lparen), recv}
	for i, a := range e.Args {
		parts = append(parts, r.spliceNode(a, args[i]))
	}
	return hook.ref() + "(" + strings.Join(parts, ", ") + ")", true
}

// selfReadPrologue is added to the prologue of instrumented methods of
// the shape readInto wraps where it wraps them: such a method checks its
// own writes, which ReadInto, calling it through an interface or from
// another module, must not check again after its unlocks.
const selfReadPrologue = "__bf.SelfRead(__bfg);"

// isReadMethod reports whether fn is a Read or ReadAt method of the
// io.Reader or io.ReaderAt shape.
func isReadMethod(fn *types.Func) bool {
	sig := fn.Type().(*types.Signature)
	switch {
	case sig.Recv() == nil:
		return false
	case fn.Name() == "Read":
		return isReadSig(sig, 1)
	case fn.Name() == "ReadAt":
		return isReadSig(sig, 2) && types.Identical(sig.Params().At(1).Type(), types.Typ[types.Int64])
	}
	return false
}

// isReadSig reports whether sig is func([]byte[, ...]) (int, error) with
// nparams parameters.
func isReadSig(sig *types.Signature, nparams int) bool {
	if sig.Params().Len() != nparams || sig.Results().Len() != 2 || sig.Variadic() {
		return false
	}
	sl, ok := sig.Params().At(0).Type().(*types.Slice)
	if !ok || !types.Identical(sl.Elem(), types.Typ[types.Byte]) {
		return false
	}
	return types.Identical(sig.Results().At(0).Type(), types.Typ[types.Int]) &&
		types.Identical(sig.Results().At(1).Type(), types.Universe.Lookup("error").Type())
}

// instrumented reports whether fn belongs to the main module, whose
// packages bigfoot instruments (a method there checks its own accesses).
func (r *fileRewriter) instrumented(fn *types.Func) bool {
	m := r.p.pkg.Module
	if fn.Pkg() == nil || m == nil {
		return false
	}
	path := fn.Pkg().Path()
	return path == m.Path || strings.HasPrefix(path, m.Path+"/") || strings.HasPrefix(path, m.Path+"_test")
}
