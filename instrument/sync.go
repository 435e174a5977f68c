package instrument

import (
	"go/ast"
	"go/token"
	"go/types"
	"strings"

	"github.com/bigfoot-go/bigfoot/placement"
)

// onceHooks are the hooks of Once.Do and the Once functions, which a
// build whose package sync orders Once's callers itself does without
// (Config.SyncOnce).
var onceHooks = map[rtName]bool{"OnceDo": true, "OnceFunc": true, "OnceValue": true, "OnceValues": true}

// passFn marks hooks that take the hooked function itself after the
// goroutine state, so that the runtime does not import its package
// (testing/synctest is not in every toolchain the runtime supports).
var passFn = map[rtName]bool{"SynctestTest": true, "SynctestWait": true}

var noG = map[rtName]bool{"Exit": true, "GC": true, "FreeOSMemory": true}

// keepUsed names, per package, a non-generic exported function or variable
// that keeps an import used when the rewrite removes its last use.
var keepUsed = map[string]string{
	"sync/atomic":   "AddInt32",
	"sync":          "NewCond",
	"runtime":       "GOOS",
	"os":            "Exit",
	"time":          "Now",
	"context":       "Background",
	"runtime/debug": "SetGCPercent",
}

// hook is a resolved call of a synchronization function or method.
type hook struct {
	name  rtName            // the runtime's function
	sel   *ast.SelectorExpr // the method selector, nil for functions
	ptr   bool              // receiver is passed by address (not an interface value)
	site  bool              // the hook takes a site after the arguments
	outer bool              // pass a pointer to the selector's operand itself (see resolveHook)
	fn    *types.Func
}

// resolveHook resolves the callee fun of a call (or a method value) to its
// runtime hook.
func (r *fileRewriter) resolveHook(fun ast.Expr) (hook, bool) {
	fun = ast.Unparen(fun)
	var id *ast.Ident
	switch f := fun.(type) {
	case *ast.Ident:
		id = f
	case *ast.SelectorExpr:
		if sel := r.info.Selections[f]; sel != nil {
			if sel.Kind() != types.MethodVal {
				return hook{}, false
			}
			fn, ok := sel.Obj().(*types.Func)
			if !ok || fn.Pkg() == nil || fn.Pkg() == r.p.pkg.Types {
				return hook{}, false
			}
			name := syncHook(fn) // a method of a named type, or none
			if name == "" || r.p.syncOnce && onceHooks[name] {
				return hook{}, false
			}
			if !r.spellablePath(r.typeOf(f.X), sel.Index()) {
				// The receiver is reached through an unexported embedded
				// field of another package: it cannot be named here. Lock
				// and Unlock go through sync.Locker on the outer value,
				// which the runtime keys by the outer address.
				if name == "Lock" || name == "Unlock" || name == "RWLock" || name == "RWUnlock" {
					locker := rtName("LockerLock")
					if strings.HasSuffix(string(name), "Unlock") {
						locker = "LockerUnlock"
					}
					if isPointer(r.typeOf(f.X)) || r.addressable(f.X) {
						r.note(f.Pos(), "%s through an unexported embedded field: synchronizes on the outer value", fn.FullName())
						return hook{name: locker, sel: f, outer: true, fn: fn}, true
					}
				}
				r.note(f.Pos(), "%s through an unexported embedded field: not hooked", fn.FullName())
				return hook{}, false
			}
			isIface := types.IsInterface(fn.Type().(*types.Signature).Recv().Type())
			return hook{name: name, sel: f, ptr: !isIface && name != "Run", site: name == "WaitGroupGo", fn: fn}, true
		}
		id = f.Sel
	default:
		return hook{}, false
	}
	fn, ok := r.info.Uses[id].(*types.Func)
	if !ok || fn.Pkg() == nil || fn.Pkg() == r.p.pkg.Types || fn.Type().(*types.Signature).Recv() != nil {
		// A package's calls of its own functions (context's WithTimeout
		// calling WithDeadline) are its implementation: the hooks model
		// them at the calls of other packages.
		return hook{}, false
	}
	if name := syncHook(fn); name != "" && !(r.p.syncOnce && onceHooks[name]) {
		return hook{name: name, fn: fn}, true
	}
	return hook{}, false
}

// isRaceFunc reports whether fun is runtime.RaceXxx, which exists only in
// race builds: the type checker reports it undefined, or, where the
// driver loads with the tag race (driver/racetag.go), finds it in the
// runtime's race.go, which the go command does not compile for bigfoot.
func (r *fileRewriter) isRaceFunc(fun ast.Expr) (*ast.SelectorExpr, bool) {
	sel, ok := ast.Unparen(fun).(*ast.SelectorExpr)
	if !ok || !strings.HasPrefix(sel.Sel.Name, "Race") {
		return nil, false
	}
	x, ok := sel.X.(*ast.Ident)
	if !ok {
		return nil, false
	}
	pn, ok := r.info.Uses[x].(*types.PkgName)
	return sel, ok && pn.Imported().Path() == "runtime"
}

// keepImport makes sure the import of fn's package stays used after a call
// of fn was replaced by a hook.
func (r *fileRewriter) keepImport(fn *types.Func, fun ast.Expr) {
	sym, ok := keepUsed[fn.Pkg().Path()]
	if !ok {
		return
	}
	var ref string
	switch f := ast.Unparen(fun).(type) {
	case *ast.Ident: // dot import
		ref = sym
	case *ast.SelectorExpr:
		x, ok := f.X.(*ast.Ident)
		if !ok {
			return
		}
		ref = x.Name + "." + sym
	}
	line := "var _ = " + ref + "\n"
	if !strings.Contains(r.trailer.String(), line) {
		r.trailer.WriteString(line)
	}
}

// hookRecv renders the receiver of a hooked method: a pointer to the
// (possibly embedded) receiver, or the interface value.
func (r *fileRewriter) hookRecv(h hook) string {
	sel := h.sel
	if h.outer {
		if isPointer(r.typeOf(sel.X)) {
			return r.expr(sel.X, mValue)
		}
		return "&" + paren(sel.X, r.expr(sel.X, mAddr))
	}
	selection := r.info.Selections[sel]
	xt := r.typeOf(sel.X)
	x := paren(sel.X, r.operand(sel.X))
	cur := xt
	idx := selection.Index()
	for _, i := range idx[:len(idx)-1] {
		t := placement.CoreType(cur)
		if p, ok := t.(*types.Pointer); ok {
			t = placement.CoreType(p.Elem())
		}
		st, ok := t.(*types.Struct)
		if !ok {
			break
		}
		f := st.Field(i)
		x += "." + f.Name()
		cur = f.Type()
	}
	if !h.ptr || isPointer(cur) {
		return x
	}
	return "&" + x
}

// call renders a call expression.
func (r *fileRewriter) call(e *ast.CallExpr) string {
	args := make([]sub, 0, len(e.Args))
	for _, a := range e.Args {
		args = append(args, subOf(a, r.expr(a, mValue)))
	}
	if sel, ok := r.isRaceFunc(e.Fun); ok {
		// runtime.RaceXxx becomes __bf.RaceXxx: the runtime has each
		// (TestRuntimeAPI).
		r.keepImport(types.NewFunc(token.NoPos, types.NewPackage("runtime", "runtime"), "GOOS", nil), sel)
		return r.spliceNode(e, append([]sub{{sel.X.Pos(), sel.Sel.Pos(), "__bf."}}, args...)...)
	}
	if r.info.Types[e.Fun].IsType() {
		return r.conversion(e, args)
	}
	if b := r.builtinName(e.Fun); b != "" {
		return r.builtinCall(e, b, args)
	}
	if r.fn != nil && r.cgoCallee(e.Fun) {
		return r.cgoCall(e, args)
	}
	if r.fn != nil {
		if h, ok := r.resolveHook(e.Fun); ok {
			return r.hookCall(e, h, args)
		}
	}
	fun := ast.Unparen(e.Fun)
	if sel, ok := fun.(*ast.SelectorExpr); ok && r.fn != nil {
		if text, ok := r.errgroupCall(e, sel, args); ok {
			return text
		}
		if text, ok := r.timerCall(e, sel, args); ok {
			return text
		}
	}
	if sel, ok := fun.(*ast.SelectorExpr); ok && r.fn != nil && r.isMethod(sel, "(*testing.M).Run") {
		g := r.g()
		return r.spliceNode(e, sub{e.Pos(), e.Rparen + 1, "__bf.MRunEnd(" + g + ", __bf.MRunStart(" + g + ", " + r.expr(sel.X, mValue) + ").Run())"})
	}
	if fn := r.calleeFunc(fun); fn != nil && r.fn != nil && fn.Pkg().Path() == "time" && fn.Name() == "Sleep" && len(args) == 1 {
		// In a synctest bubble, sleeping blocks durably (SleepPre).
		args[0].text = "__bf.SleepPre(" + r.g() + ", " + args[0].text + ")"
	}
	if i, ok := r.asyncCallback(fun); ok && i < len(args) && r.fn != nil {
		if fn := r.calleeFunc(fun); fn != nil && fn.Pkg().Path() == "time" && fn.Name() == "AfterFunc" && len(args) == 2 && !e.Ellipsis.IsValid() {
			// The timer's Reset, like its creation, happens before the
			// callback: __bf.AfterFunc keys the callback's clock by the
			// *Timer that TimerRelease releases into.
			r.keepImport(fn, fun)
			return r.spliceNode(e, append([]sub{{e.Pos(), e.Lparen + 1, "__bf.AfterFunc(" + r.g() + ", "}}, args...)...)
		}
		args[i].text = "__bf.Async(" + r.g() + ", " + args[i].text + ")"
	}
	var io placement.IOKind
	if r.fn != nil {
		io = r.ioCall(fun)
	}
	if sel, ok := fun.(*ast.SelectorExpr); ok {
		if s := r.info.Selections[sel]; s != nil && s.Kind() == types.MethodVal {
			recv := subOf(sel.X, r.methodRecv(sel, s, r.callAt(e)))
			if hook := reflectHook(s); hook != "" && r.fn != nil && (hook == "ReflectR" || hook == "ReflectHdr" || r.reflectArgsSyncFree(e.Args)) {
				recv.text = hook.ref() + "(" + r.g() + ", " + r.site(sel.Sel.Pos()) + ", " + recv.text + ")"
			}
			if io != 0 {
				return r.ioWrap(e, io, recv, args)
			}
			if r.fn != nil {
				if text, ok := r.readInto(e, recv, args); ok {
					return text
				}
			}
			if name, ok := r.unpublishedCallee(e, sel.Sel); ok {
				return r.spliceNode(e, append([]sub{recv, {sel.Sel.Pos(), sel.Sel.End(), name}}, args...)...)
			}
			return r.spliceNode(e, append([]sub{recv}, args...)...)
		}
	}
	if r.fn != nil && len(e.Args) == 2 && !e.Ellipsis.IsValid() && r.isReflectFunc(e.Fun, "Copy") {
		return "__bf.ReflectCopy(" + r.g() + ", " + r.site(e.Lparen) + ", " +
			r.spliceNode(e.Args[0], args[0]) + ", " + r.spliceNode(e.Args[1], args[1]) + ")"
	}
	if io == 0 {
		if id, ok := ast.Unparen(e.Fun).(*ast.Ident); ok {
			if name, ok := r.unpublishedCallee(e, id); ok {
				return r.spliceNode(e, append([]sub{{id.Pos(), id.End(), name}}, args...)...)
			}
		}
		if text, ok := r.coveredCall(e, args); ok {
			return text
		}
	}
	f := subOf(e.Fun, r.expr(e.Fun, mValue))
	if io != 0 {
		return r.ioWrap(e, io, f, args)
	}
	return r.spliceNode(e, append([]sub{f}, args...)...)
}

// hookCall renders a call of a synchronization function or method as a
// call of its hook, keeping the original argument text in place.
func (r *fileRewriter) hookCall(e *ast.CallExpr, h hook, args []sub) string {
	var head strings.Builder
	head.WriteString(h.name.ref() + "(")
	sep := ""
	if !noG[h.name] {
		head.WriteString(r.g())
		sep = ", "
	}
	if h.sel != nil {
		recv := r.hookRecv(h)
		if h.name == "Run" {
			recv += ".Run"
		}
		head.WriteString(sep + recv)
		sep = ", "
	} else if passFn[h.name] {
		head.WriteString(sep + r.text(e.Fun))
		sep = ", "
	} else {
		r.keepImport(h.fn, e.Fun)
	}
	if len(e.Args) > 0 {
		head.WriteString(sep)
	}
	subs := append([]sub{{e.Pos(), e.Lparen + 1, head.String()}}, args...)
	if h.site {
		at := e.Rparen
		if len(e.Args) > 0 {
			at = e.Args[len(e.Args)-1].End()
		}
		subs = append(subs, sub{at, at, sep + r.site(e.Pos())})
	}
	return r.spliceNode(e, subs...)
}

// methodRecv renders the receiver x of a method call or value x.m. A
// value receiver is a copy: a read of x (through the pointer, if x is one).
// at is where go/ssa's plan has the copy through a pointer (the call's
// parenthesis, the method value's name; placement.implicitPos), or NoPos
// (a go or defer statement's call).
func (r *fileRewriter) methodRecv(sel *ast.SelectorExpr, s *types.Selection, at token.Pos) string {
	xt := r.typeOf(sel.X)
	fn, _ := s.Obj().(*types.Func)
	if fn == nil || isTypeParam(xt) {
		return r.operand(sel.X)
	}
	recv := fn.Type().(*types.Signature).Recv()
	ptrRecv := recv != nil && isPointer(recv.Type())
	if len(s.Index()) > 1 {
		return r.promotedRecv(sel, s, ptrRecv, at)
	}
	switch {
	case ptrRecv:
		return r.operand(sel.X)
	case isPointer(xt):
		// (*x).m: the method copies *x.
		x := r.expr(sel.X, mValue)
		if r.fn == nil {
			return x
		}
		return r.recvCopy(sel, x, at)
	default:
		return r.expr(sel.X, mValue)
	}
}

// recvCopy renders the copy of the value receiver *x of the method sel
// selects: checked, unless the plan states the copy at at not shared (a
// pointer to a fresh object).
func (r *fileRewriter) recvCopy(sel *ast.SelectorExpr, x string, at token.Pos) string {
	if at.IsValid() && r.localAt(at, false) {
		return x
	}
	r.noteCheck(at, false)
	return "(*__bf.R(" + r.g() + ", " + x + ", " + r.site(sel.Pos()) + "))"
}

// promotedRecv renders the receiver of a method promoted through embedded
// fields as the explicit path to it (x.m -> x.E.m), reading each embedded
// pointer or interface it loads on the way, and the receiver itself if the
// method copies it. A path through an unexported field of another package
// cannot be spelled: it stops before that field, whose own promotion the
// compiler resolves (t.Log with t a struct{ *testing.T } becomes
// R(&t.T).Log, the rest of the path being testing.T's own embedding, not
// instrumented code's), and a value receiver below it is not checked
// (checking the whole value would check bytes the method does not copy).
func (r *fileRewriter) promotedRecv(sel *ast.SelectorExpr, s *types.Selection, ptrRecv bool, at token.Pos) string {
	x := paren(sel.X, r.operand(sel.X))
	cur := r.typeOf(sel.X)
	shared := isPointer(cur) || (r.addressable(sel.X) && r.sharedLoc(sel.X))
	idx := s.Index()
	for _, i := range idx[:len(idx)-1] {
		t := placement.CoreType(cur)
		viaPtr := false
		if p, ok := t.(*types.Pointer); ok {
			t, viaPtr = placement.CoreType(p.Elem()), true
		}
		st, ok := t.(*types.Struct)
		if !ok {
			return x
		}
		f := st.Field(i)
		if !f.Exported() && f.Pkg() != r.p.pkg.Types {
			return x
		}
		loc := x + "." + f.Name()
		shared = shared || viaPtr
		switch placement.CoreType(f.Type()).(type) {
		case *types.Pointer, *types.Interface:
			// The embedded pointer or interface is loaded.
			if shared && r.fn != nil {
				x = r.wrapRead(sel, loc)
			} else {
				x = loc
			}
			shared = true
		default:
			x = loc
		}
		cur = f.Type()
	}
	if ptrRecv || r.fn == nil {
		return x
	}
	switch placement.CoreType(cur).(type) {
	case *types.Pointer:
		return r.recvCopy(sel, x, at)
	case *types.Interface:
		return x
	}
	if shared {
		return r.wrapRead(sel, x)
	}
	return x
}

// methodValue renders a method value x.m (not called). A synchronizing
// method becomes a closure that runs the hook on the goroutine that calls
// it, with the receiver evaluated now.
func (r *fileRewriter) methodValue(e *ast.SelectorExpr, s *types.Selection) string {
	if h, ok := r.resolveHook(e); ok && !h.site && h.name != "Run" {
		sig := h.fn.Type().(*types.Signature)
		helper := ""
		switch {
		case sig.Params().Len() == 0 && sig.Results().Len() == 0:
			helper = "__bf.MV"
		case sig.Params().Len() == 1 && sig.Results().Len() == 0 && !sig.Variadic():
			helper = "__bf.MV1"
		case sig.Params().Len() == 0 && sig.Results().Len() == 1:
			helper = "__bf.MVR"
		case sig.Params().Len() == 1 && sig.Results().Len() == 1 && !sig.Variadic():
			helper = "__bf.MV1R"
		}
		if helper != "" && (h.fn.Type().(*types.Signature).Recv() == nil || !isGenericRecv(h.fn)) {
			return helper + "(" + h.name.ref() + ").Bind(" + r.hookRecv(h) + ")"
		}
		r.note(e.Pos(), "method value %s: synchronization not modeled", h.fn.FullName())
	}
	return r.spliceNode(e, subOf(e.X, r.methodRecv(e, s, e.Sel.Pos())))
}

func isGenericRecv(fn *types.Func) bool {
	recv := fn.Type().(*types.Signature).Recv()
	t := recv.Type()
	if p, ok := t.(*types.Pointer); ok {
		t = p.Elem()
	}
	n, ok := types.Unalias(t).(*types.Named)
	return ok && n.TypeArgs().Len() > 0
}

// conversion renders T(x). Converting a slice to a string reads its
// elements.
func (r *fileRewriter) conversion(e *ast.CallExpr, args []sub) string {
	if len(e.Args) == 1 && r.fn != nil {
		if b, ok := placement.CoreType(r.typeOf(e.Fun)).(*types.Basic); ok && b.Info()&types.IsString != 0 {
			if _, ok := placement.CoreType(r.typeOf(e.Args[0])).(*types.Slice); ok && !r.localAt(e.Lparen, false) {
				r.noteCheck(e.Lparen, false)
				args[0].text = "__bf.ReadAll(" + r.g() + ", " + r.site(e.Pos()) + ", " + args[0].text + ")"
			}
		}
		if isUnsafePointer(placement.CoreType(r.typeOf(e.Fun))) && isHeaderData(e.Args[0], r.info) && args[0].text != r.text(e.Args[0]) {
			args[0].text = "__bf.HeaderData(" + args[0].text + ")"
		}
	}
	return r.spliceNode(e, args...)
}

// isHeaderData reports whether e reads the Data field of a
// reflect.SliceHeader or reflect.StringHeader through a pointer, hdr.Data:
// converted to unsafe.Pointer, the one field read the compiler's
// -d=checkptr does not check (detector.HeaderData).
func isHeaderData(e ast.Expr, info *types.Info) bool {
	x, ok := ast.Unparen(e).(*ast.SelectorExpr)
	if !ok || x.Sel.Name != "Data" {
		return false
	}
	sel := info.Selections[x]
	if sel == nil || sel.Kind() != types.FieldVal || len(sel.Index()) != 1 {
		return false
	}
	ptr, ok := types.Unalias(sel.Recv()).(*types.Pointer)
	if !ok {
		return false
	}
	named, ok := types.Unalias(ptr.Elem()).(*types.Named)
	if !ok || named.Obj().Pkg() == nil || named.Obj().Pkg().Path() != "reflect" {
		return false
	}
	return named.Obj().Name() == "SliceHeader" || named.Obj().Name() == "StringHeader"
}

// builtinCall renders a call of a builtin function.
func (r *fileRewriter) builtinCall(e *ast.CallExpr, name string, args []sub) string {
	if r.fn == nil || len(e.Args) == 0 {
		return r.spliceNode(e, args...)
	}
	argType := func(i int) types.Type { return placement.CoreType(r.typeOf(e.Args[i])) }
	switch name {
	case "len", "cap":
		if _, ok := argType(0).(*types.Map); ok && !r.localAt(e.Lparen, false) {
			r.noteCheck(e.Lparen, false)
			args[0].text = "__bf.MapRead(" + r.g() + ", " + args[0].text + ", " + r.site(e.Pos()) + ")"
		}
	case "delete", "clear":
		if r.localAt(e.Lparen, true) {
			break
		}
		switch argType(0).(type) {
		case *types.Map:
			r.noteCheck(e.Lparen, true)
			args[0].text = "__bf.MapWrite(" + r.g() + ", " + args[0].text + ", " + r.site(e.Pos()) + ")"
		case *types.Slice:
			r.noteCheck(e.Lparen, true)
			args[0].text = "__bf.WriteAll(" + r.g() + ", " + r.site(e.Pos()) + ", " + args[0].text + ")"
		}
	case "close":
		args[0].text = "__bf.Close(" + r.g() + ", " + args[0].text + ")"
	case "copy":
		if len(e.Args) != 2 {
			break
		}
		helper := "__bf.Copy"
		b, ok := argType(1).(*types.Basic)
		fromString := ok && b.Info()&types.IsString != 0
		if r.localAt(e.Lparen, true) && (fromString || r.localAt(e.Lparen, false)) {
			break // a fresh slice from a fresh slice or a string
		}
		// The helper checks both slices: the one not shared is checked
		// with the other.
		r.refuseLocal(e.Lparen, true, "copy checks its destination with its source")
		r.refuseLocal(e.Lparen, false, "copy checks its source with its destination")
		if fromString {
			helper = "__bf.CopyString"
		} else {
			r.noteCheck(e.Lparen, false)
		}
		r.noteCheck(e.Lparen, true)
		r.markCopy(e.Pos())
		return r.splice(e.Pos(), e.End(), append([]sub{{e.Pos(), e.Lparen + 1, helper + "(" + r.g() + ", " + r.site(e.Pos()) + ", "}}, args...)...)
	case "append":
		if len(e.Args) < 2 {
			break
		}
		if e.Ellipsis.IsValid() {
			r.refuseAppendFootprint(e, "a spread argument: checked in place")
			if b, ok := argType(1).(*types.Basic); ok && b.Info()&types.IsString != 0 {
				// append([]byte, string...): strings are immutable; only
				// the new elements are written.
				if _, ok := argType(0).(*types.Slice); !ok {
					break
				}
				r.noteCheck(e.Lparen, true)
				sub0 := sub{e.Pos(), e.Lparen + 1, "__bf.AppendString(" + r.g() + ", " + r.site(e.Pos()) + ", "}
				end := sub{e.Ellipsis, e.Ellipsis + 3, ""}
				return r.spliceNode(e, append(append([]sub{sub0}, args...), end)...)
			}
			if _, ok := argType(1).(*types.Slice); !ok {
				break
			}
			r.noteCheck(e.Lparen, false)
			return r.appendCall(e, args, "AddSlice")
		}
		if _, ok := argType(0).(*types.Slice); !ok {
			break
		}
		if text, ok := r.unpublishedAppend(e, args); ok {
			r.refuseAppendFootprint(e, "unpublished: not checked")
			return text
		}
		if v := r.appendFootprint(e); v != "" {
			return r.methodAppend(e, args, "__bf.AppendF("+v+", "+r.site(e.Pos())+", ", "Add")
		}
		return r.appendCall(e, args, "Add")
	}
	return r.spliceNode(e, args...)
}

// namedFunc returns the function or method of a package that fun names
// (an identifier or a selector), or nil.
func (r *fileRewriter) namedFunc(fun ast.Expr) *types.Func {
	var id *ast.Ident
	switch f := fun.(type) {
	case *ast.Ident:
		id = f
	case *ast.SelectorExpr:
		id = f.Sel
	default:
		return nil
	}
	fn, ok := r.info.Uses[id].(*types.Func)
	if !ok || fn.Pkg() == nil {
		return nil
	}
	return fn
}

// calleeFunc returns the package-level function fun names, or nil.
func (r *fileRewriter) calleeFunc(fun ast.Expr) *types.Func {
	if fn := r.namedFunc(fun); fn != nil && fn.Type().(*types.Signature).Recv() == nil {
		return fn
	}
	return nil
}

// asyncCallback reports the index of the callback argument of a call of
// a function that runs it on a goroutine the library starts
// (placement.SyncCall.Async): it is wrapped in __bf.Async.
func (r *fileRewriter) asyncCallback(fun ast.Expr) (int, bool) {
	c, _ := placement.SyncCallOf(r.namedFunc(fun))
	return c.Arg, c.Async
}

// appendCall renders append(s, xs...) as __bf.Append(g, site, s).Method(xs...):
// the elements are then assigned to the slice's element type, as append
// assigns them. The text between s and the first element keeps its
// layout, minus the comma.
func (r *fileRewriter) appendCall(e *ast.CallExpr, args []sub, method string) string {
	r.noteCheck(e.Lparen, true)
	return r.methodAppend(e, args, "__bf.Append("+r.g()+", "+r.site(e.Pos())+", ", method)
}

// methodAppend renders append(s, xs…) as open s).method(xs…), where open
// is the text of a call that takes the slice: the elements are arguments
// of a method of a type instantiated from s alone, so each is assigned to
// the element type as append's arguments are.
func (r *fileRewriter) methodAppend(e *ast.CallExpr, args []sub, open, method string) string {
	head := sub{e.Pos(), e.Lparen + 1, open}
	gap := r.splice(e.Args[0].End(), e.Args[1].Pos())
	gap = strings.Replace(gap, ",", "", 1)
	mid := sub{e.Args[0].End(), e.Args[1].Pos(), ")." + method + "(" + gap}
	subs := []sub{head, args[0], mid}
	return r.spliceNode(e, append(subs, args[1:]...)...)
}

// isMethod reports whether sel selects the method with the given full name.
func (r *fileRewriter) isMethod(sel *ast.SelectorExpr, fullName string) bool {
	s := r.info.Selections[sel]
	if s == nil || s.Kind() != types.MethodVal {
		return false
	}
	fn, ok := s.Obj().(*types.Func)
	return ok && fn.FullName() == fullName
}

// errgroupCall renders calls of golang.org/x/sync/errgroup.Group's Go,
// TryGo and Wait: the group's goroutines are started by uninstrumented code
// (the module's dependencies are not instrumented), so the instrumenter
// adds the edges go statements and WaitGroup would give: Go happens before
// the function, the function before Wait returns.
func (r *fileRewriter) errgroupCall(e *ast.CallExpr, sel *ast.SelectorExpr, args []sub) (string, bool) {
	const group = "(*golang.org/x/sync/errgroup.Group)."
	isGo := r.isMethod(sel, group+"Go") || r.isMethod(sel, group+"TryGo")
	isWait := r.isMethod(sel, group+"Wait")
	if !isGo && !isWait || !r.plainOperand(sel.X, nil) {
		return "", false
	}
	s := r.info.Selections[sel]
	if len(s.Index()) > 1 {
		return "", false
	}
	key := r.hookRecv(hook{sel: sel, ptr: true})
	if isWait {
		call := r.spliceNode(e, append([]sub{subOf(sel.X, r.methodRecv(sel, s, e.Lparen))}, args...)...)
		return "__bf.GroupWait(" + key + ", " + call + ")", true
	}
	if len(args) != 1 {
		return "", false
	}
	args[0].text = "__bf.GroupFn(" + key + ", " + args[0].text + ")"
	return r.spliceNode(e, append([]sub{subOf(sel.X, r.methodRecv(sel, s, e.Lparen))}, args...)...), true
}

// timerCall renders time.NewTimer, time.NewTicker and the Reset methods so
// that they release into the timer (see timerRecv).
func (r *fileRewriter) timerCall(e *ast.CallExpr, sel *ast.SelectorExpr, args []sub) (string, bool) {
	if r.isMethod(sel, "(*time.Timer).Reset") || r.isMethod(sel, "(*time.Ticker).Reset") {
		if !isPointer(r.typeOf(sel.X)) {
			return "", false
		}
		x := "__bf.TimerRelease(" + r.expr(sel.X, mValue) + ")"
		return r.spliceNode(e, append([]sub{subOf(sel.X, x)}, args...)...), true
	}
	if fn, ok := r.info.Uses[sel.Sel].(*types.Func); ok && fn.Pkg() != nil && fn.Pkg().Path() == "time" &&
		(fn.Name() == "NewTimer" || fn.Name() == "NewTicker") && r.info.Selections[sel] == nil {
		return "__bf.TimerRelease(" + r.spliceNode(e, args...) + ")", true
	}
	return "", false
}

// timerOf returns the timer or ticker x of a channel operand x.C, or nil.
func (r *fileRewriter) timerOf(ch ast.Expr) ast.Expr {
	sel, ok := ast.Unparen(ch).(*ast.SelectorExpr)
	if !ok || sel.Sel.Name != "C" || !r.plainOperand(sel.X, nil) {
		return nil
	}
	p, ok := placement.CoreType(r.typeOf(sel.X)).(*types.Pointer)
	if !ok {
		return nil
	}
	n, ok := types.Unalias(p.Elem()).(*types.Named)
	if !ok || n.Obj().Pkg() == nil || n.Obj().Pkg().Path() != "time" || (n.Obj().Name() != "Timer" && n.Obj().Name() != "Ticker") {
		return nil
	}
	return sel.X
}

// spellablePath reports whether the embedded fields on the path index
// (all but its last element) from a value of type t can be named in this
// package.
func (r *fileRewriter) spellablePath(t types.Type, index []int) bool {
	for _, i := range index[:len(index)-1] {
		u := placement.CoreType(t)
		if p, ok := u.(*types.Pointer); ok {
			u = placement.CoreType(p.Elem())
		}
		st, ok := u.(*types.Struct)
		if !ok {
			return false
		}
		f := st.Field(i)
		if !f.Exported() && f.Pkg() != r.p.pkg.Types {
			return false
		}
		t = f.Type()
	}
	return true
}
