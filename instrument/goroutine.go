package instrument

import (
	"go/ast"
	"go/token"
	"go/types"
	"strings"

	"github.com/bigfoot-go/bigfoot/placement"
)

// send renders a send statement ch <- v as __bf.Chan(ch).Send(__bfg, v),
// a runtime helper that runs the runtime's Send and SendPost hooks
// around the send.
// A call is a simple statement, so this works in any statement position.
func (r *fileRewriter) send(s *ast.SendStmt) string {
	if r.fn == nil {
		return r.text(s)
	}
	gap := r.splice(s.Chan.End(), s.Value.Pos())
	gap = strings.Replace(gap, "<-", "", 1)
	return r.spliceNode(s,
		sub{s.Chan.Pos(), s.Chan.Pos(), "__bf.Chan("},
		subOf(s.Chan, r.expr(s.Chan, mValue)),
		sub{s.Chan.End(), s.Value.Pos(), ").Send(" + r.g() + "," + gap},
		subOf(s.Value, r.expr(s.Value, mValue)),
		sub{s.Value.End(), s.Value.End(), ")"})
}

// recvExpr renders a receive <-c as a call of __bf.Recv (or __bf.Recv2 in a
// comma-ok assignment), which runs RecvPre and RecvPost around it.
func (r *fileRewriter) recvExpr(e *ast.UnaryExpr, commaOK bool) string {
	if r.fn == nil {
		return r.spliceNode(e, subOf(e.X, r.expr(e.X, mValue)))
	}
	helper := "__bf.Recv("
	if commaOK {
		helper = "__bf.Recv2("
	}
	text := r.spliceNode(e, sub{e.OpPos, e.X.Pos(), helper + r.g() + ", "}, subOf(e.X, r.expr(e.X, mValue)), sub{e.End(), e.End(), ")"})
	if t := r.timerOf(e.X); t != nil && !commaOK {
		text = "__bf.TimerAcquire(" + r.text(t) + ", " + text + ")"
	}
	return text
}

// hoister collects temporaries evaluated, in order, before a go or defer
// statement or a select.
type hoister struct {
	r   *fileRewriter
	pre strings.Builder
	// at is the go or defer keyword of the statement whose call the
	// hoister evaluates: where go/ssa's Go or Defer is (NoPos in a
	// select statement)
	at token.Pos
}

// value returns text naming e's value at this point of the evaluation:
// a temporary holding it, or e itself when evaluating it later is the same
// (constants, nil, function literals, untyped values).
func (h *hoister) value(e ast.Expr, param types.Type) string {
	r := h.r
	tv := r.info.Types[e]
	if tv.Value != nil || tv.IsNil() || tv.IsType() {
		return r.text(e)
	}
	if b, ok := tv.Type.(*types.Basic); ok && b.Info()&types.IsUntyped != 0 {
		// An untyped boolean (a comparison) takes the parameter's type:
		// hoist it only where its default type, bool, is assignable.
		if b.Kind() == types.UntypedBool && param != nil && types.AssignableTo(types.Typ[types.Bool], param) {
			return h.bind(r.expr(e, mValue), 1)
		}
		return r.expr(e, mValue)
	}
	if _, ok := ast.Unparen(e).(*ast.FuncLit); ok {
		return r.expr(e, mValue)
	}
	return h.bind(r.expr(e, mValue), 1)
}

// bind declares n temporaries holding the values of text.
func (h *hoister) bind(text string, n int) string {
	names := make([]string, n)
	for i := range names {
		names[i] = h.r.newTemp()
	}
	list := strings.Join(names, ", ")
	h.pre.WriteString(list + " := " + text + "; ")
	return list
}

// args hoists the arguments of call and returns the argument list text.
func (h *hoister) args(call *ast.CallExpr) string {
	if len(call.Args) == 1 {
		if t, ok := h.r.typeOf(call.Args[0]).(*types.Tuple); ok && t.Len() > 1 {
			return h.bind(h.r.expr(call.Args[0], mValue), t.Len())
		}
	}
	var params *types.Tuple
	variadic := false
	if sig, ok := placement.CoreType(h.r.typeOf(call.Fun)).(*types.Signature); ok {
		params, variadic = sig.Params(), sig.Variadic()
	}
	var out []string
	for i, a := range call.Args {
		var pt types.Type
		if params != nil && params.Len() > 0 {
			switch {
			case variadic && i >= params.Len()-1 && !call.Ellipsis.IsValid():
				if sl, ok := params.At(params.Len() - 1).Type().(*types.Slice); ok {
					pt = sl.Elem()
				}
			case i < params.Len():
				pt = params.At(i).Type()
			}
		}
		out = append(out, h.value(a, pt))
	}
	s := strings.Join(out, ", ")
	if call.Ellipsis.IsValid() {
		s += "..."
	}
	return s
}

// goStmt renders `go f(x)`. Where the runtime starts and ends goroutines'
// states (Config.RuntimeHooks, detector/gohook.go), as
//
//	{ t1 := x; __bfg.ForkNext(site); go f(t1) }
//
// so that f is the goroutine's entry, as in the plain program, and no frame
// of bigfoot's is in the goroutine's stacks. Otherwise the goroutine runs a
// function of the runtime (plainGoCall) or a function literal that installs
// and ends its state:
//
//	{ t1 := x; c := __bfg.Fork(site); go __bf.Go1(c, f, t1) }
//	{ t1 := x; c := __bfg.Fork(site); go func() { __bfg := __bf.Start(c); defer __bfg.Exit(); f(t1) }() }
//
// The function value, receiver and arguments are evaluated by the parent,
// in order, as the go statement does.
func (r *fileRewriter) goStmt(s *ast.GoStmt) stmtOut {
	if r.fn == nil {
		return stmtOut{text: r.text(s)}
	}
	h := &hoister{r: r, at: s.Go}
	if r.p.runtimeHooks {
		return r.goStmtHooked(h, s)
	}
	if n, ok := r.plainGoCall(s.Call); ok {
		// go f(a, b) -> go __bf.Go2(c, f, a, b): no wrapper function
		// literal, so the closures of the function keep the names the
		// compiler gives them in the uninstrumented program (reports
		// name main.main.func1, not main.main.func1.1).
		f := r.deferredFunc(h, s.Call)
		args := h.args(s.Call)
		c := r.newTemp()
		h.pre.WriteString(c + " := " + r.g() + ".Fork(" + r.site(s.Pos()) + "); ")
		parts := []string{c, f}
		if args != "" {
			parts = append(parts, args)
		}
		text := "go " + goHooks[n].ref() + "(" + strings.Join(parts, ", ") + ")"
		return stmtOut{pre: h.pre.String(), preDecl: true, text: padLines(r.text(s), text)}
	}
	inner := r.deferredCall(h, s.Call, true)
	if k := r.ioCall(s.Call.Fun); k != 0 {
		inner = deferredIO(k, "__bfg", inner)
	}
	if r.cgoCallee(s.Call.Fun) {
		inner = cgoDeferred("__bfg", inner)
	}
	c := r.newTemp()
	h.pre.WriteString(c + " := " + r.g() + ".Fork(" + r.site(s.Pos()) + "); ")
	text := "go func() { __bfg := __bf.Start(" + c + "); defer __bfg.Exit(); " + inner + " }()"
	return stmtOut{pre: h.pre.String(), preDecl: true, text: padLines(r.text(s), text)}
}

// goStmtHooked renders a go statement whose goroutine the runtime starts
// and ends (goStmt). A call that runs a hook of the new goroutine (close, a
// hooked function, I/O, a C sync object) is made in a function literal that
// gets the goroutine's state from Cur.
func (r *fileRewriter) goStmtHooked(h *hoister, s *ast.GoStmt) stmtOut {
	inner := r.deferredCall(h, s.Call, true)
	if k := r.ioCall(s.Call.Fun); k != 0 {
		inner = deferredIO(k, "__bfg", inner)
	}
	if r.cgoCallee(s.Call.Fun) {
		inner = cgoDeferred("__bfg", inner)
	}
	h.pre.WriteString(r.g() + ".ForkNext(" + r.site(s.Pos()) + "); ")
	text := "go " + inner
	if r.goCallHooked(s.Call) {
		text = "go func() { __bfg := __bf.Cur(); " + inner + " }()"
	}
	return stmtOut{pre: h.pre.String(), preDecl: true, text: padLines(r.text(s), text)}
}

// goCallHooked reports whether the call of a go statement runs a hook with
// the new goroutine's state (deferredCall's __bfg).
func (r *fileRewriter) goCallHooked(call *ast.CallExpr) bool {
	if b := r.builtinName(call.Fun); b != "" {
		return b == "close" && len(call.Args) == 1
	}
	if hk, ok := r.resolveHook(call.Fun); ok {
		return !noG[hk.name]
	}
	return r.ioCall(call.Fun) != 0 || r.cgoCallee(call.Fun)
}

// deferredCall hoists what a go or defer statement evaluates at once and
// returns the text of the call to run later, in a goroutine whose state is
// named __bfg (goroutine) or in the current function (defer).
func (r *fileRewriter) deferredCall(h *hoister, call *ast.CallExpr, newG bool) string {
	if b := r.builtinName(call.Fun); b != "" {
		args := h.args(call)
		if b == "close" && len(call.Args) == 1 {
			return "close(__bf.Close(" + r.gFor(newG) + ", " + args + "))"
		}
		if b == "delete" || b == "clear" || b == "copy" {
			r.note(call.Pos(), "%s in go/defer statement: not checked", b)
		}
		return r.text(call.Fun) + "(" + args + ")"
	}
	if hk, ok := r.resolveHook(call.Fun); ok {
		var parts []string
		if !noG[hk.name] {
			parts = append(parts, r.gFor(newG))
		}
		if hk.sel != nil {
			recv := r.hookRecv(hk)
			if hk.name == "Run" {
				recv += ".Run"
			}
			parts = append(parts, h.bind(recv, 1))
		} else {
			r.keepImport(hk.fn, call.Fun)
		}
		if a := h.args(call); a != "" {
			parts = append(parts, a)
		}
		if hk.site {
			parts = append(parts, r.site(call.Pos()))
		}
		return hk.name.ref() + "(" + strings.Join(parts, ", ") + ")"
	}
	return r.deferredFunc(h, call) + "(" + h.args(call) + ")"
}

// goHooks are the hooks that start a goroutine running a function of n
// parameters (plainGoCall).
var goHooks = [...]rtName{"Go", "Go1", "Go2", "Go3"}

// plainGoCall reports whether the call of a go statement can run through
// __bf.Go, Go1, Go2 or Go3, and its number of arguments: a call of a
// function value or declared function (not a builtin, a hooked or an I/O
// function) with at most three parameters, no results, not variadic and
// not implicitly instantiated, whose arguments have the parameters' types.
func (r *fileRewriter) plainGoCall(call *ast.CallExpr) (int, bool) {
	if r.builtinName(call.Fun) != "" || r.ioCall(call.Fun) != 0 || call.Ellipsis.IsValid() {
		return 0, false
	}
	if _, ok := r.resolveHook(call.Fun); ok {
		return 0, false
	}
	sig, ok := r.typeOf(call.Fun).(*types.Signature)
	if !ok || sig.Results().Len() > 0 || sig.Variadic() || sig.Params().Len() >= len(goHooks) || sig.Params().Len() != len(call.Args) {
		return 0, false
	}
	switch fn := ast.Unparen(call.Fun).(type) {
	case *ast.Ident:
		if _, generic := r.info.Instances[fn]; generic {
			return 0, false
		}
	case *ast.SelectorExpr:
		if _, generic := r.info.Instances[fn.Sel]; generic {
			return 0, false
		}
	}
	for i, a := range call.Args {
		// Hoisted arguments keep their own type: Go1..Go3 infer their
		// parameter types from f and the arguments alike, so each must
		// be the parameter's type already (or an untyped constant or
		// nil, which is not hoisted and converts; a typed constant keeps
		// its own type).
		tv := r.info.Types[a]
		if tv.Value != nil && isUntyped(tv.Type) || tv.IsNil() {
			continue
		}
		if !types.Identical(tv.Type, sig.Params().At(i).Type()) {
			return 0, false
		}
	}
	return len(call.Args), true
}

// deferredFunc returns the text of the function a go or defer statement
// calls, hoisting what must be evaluated at once.
func (r *fileRewriter) deferredFunc(h *hoister, call *ast.CallExpr) string {
	fun := ast.Unparen(call.Fun)
	var f string
	switch fn := fun.(type) {
	case *ast.FuncLit:
		f = r.expr(fn, mValue)
	case *ast.Ident, *ast.IndexExpr, *ast.IndexListExpr:
		if r.isFuncName(fn) {
			f = r.text(fn)
		}
	case *ast.SelectorExpr:
		if sel := r.info.Selections[fn]; sel == nil && r.isFuncName(fn) {
			f = r.text(fn) // pkg.F
		} else if sel != nil && sel.Kind() == types.MethodExpr {
			f = r.text(fn)
		} else if sel != nil && sel.Kind() == types.MethodVal {
			f = h.bind(r.spliceNode(fn, subOf(fn.X, r.methodRecv(fn, sel, h.at))), 1)
		}
	}
	if f == "" {
		f = h.bind(r.expr(call.Fun, mValue), 1)
	}
	return f
}

// gFor is the goroutine state a deferred call uses: the new goroutine's
// for a go statement, the current function's for a defer.
func (r *fileRewriter) gFor(newG bool) string {
	if newG {
		return "__bfg"
	}
	return r.g()
}

// isFuncName reports whether e names a declared function (possibly
// instantiated): evaluating it has no effect.
func (r *fileRewriter) isFuncName(e ast.Expr) bool {
	switch e := e.(type) {
	case *ast.IndexExpr:
		return r.isFuncName(e.X)
	case *ast.IndexListExpr:
		return r.isFuncName(e.X)
	case *ast.SelectorExpr:
		_, ok := r.info.Uses[e.Sel].(*types.Func)
		return ok && r.info.Selections[e] == nil
	case *ast.Ident:
		_, ok := r.info.Uses[e].(*types.Func)
		return ok
	}
	return false
}

// deferStmt renders a defer statement. Hooks whose call is the deferred
// call (defer mu.Unlock() -> defer __bf.Unlock(__bfg, &mu)) stay in place;
// builtins whose check wraps an argument (close) are deferred in a closure
// so that the hook runs when the builtin does.
func (r *fileRewriter) deferStmt(s *ast.DeferStmt) stmtOut {
	if r.fn == nil {
		return stmtOut{text: r.text(s)}
	}
	if b := r.builtinName(s.Call.Fun); b == "close" {
		h := &hoister{r: r, at: s.Defer}
		inner := r.deferredCall(h, s.Call, false)
		return stmtOut{pre: h.pre.String(), preDecl: true, text: padLines(r.text(s), "defer func() { "+inner+" }()")}
	}
	if k := r.ioCall(s.Call.Fun); k != 0 {
		// The I/O hooks run when the deferred call does.
		h := &hoister{r: r, at: s.Defer}
		inner := deferredIO(k, r.g(), r.deferredCall(h, s.Call, false))
		return stmtOut{pre: h.pre.String(), preDecl: true, text: padLines(r.text(s), "defer func() { "+inner+" }()")}
	}
	if r.cgoCallee(s.Call.Fun) {
		// The C sync object's hooks run when the deferred call does.
		h := &hoister{r: r, at: s.Defer}
		inner := cgoDeferred(r.g(), r.deferredCall(h, s.Call, false))
		return stmtOut{pre: h.pre.String(), preDecl: true, text: padLines(r.text(s), "defer func() { "+inner+" }()")}
	}
	r.deferred = s
	text := r.spliceNode(s, subOf(s.Call, r.expr(s.Call, mValue)))
	r.deferred = nil
	return stmtOut{text: text}
}

// callAt is where go/ssa puts the call e: its parenthesis, or the defer
// keyword of the statement that defers it (deferStmt).
func (r *fileRewriter) callAt(e *ast.CallExpr) token.Pos {
	if r.deferred != nil && r.deferred.Call == e {
		return r.deferred.Defer
	}
	return e.Lparen
}

// commCase is one case of a select.
type commCase struct {
	cc   *ast.CommClause
	ch   ast.Expr // channel operand (nil: default)
	val  ast.Expr // sent value
	recv *ast.UnaryExpr
	as   *ast.AssignStmt
}

// selectStmt renders a select. The channel operands (and sent values) are
// evaluated once on entering the select; when they are not all plain
// variables they are hoisted into temporaries, in source order, which is
// the order the select evaluates them in. SelectPre sees every channel,
// with its case's direction, before the select; SelectPost the chosen one
// first thing in its case.
func (r *fileRewriter) selectStmt(s *ast.SelectStmt) stmtOut {
	if r.fn == nil {
		return stmtOut{text: r.text(s)}
	}
	if !r.universe(s.Pos(), "cap", "true", "false", "nil") {
		r.note(s.Pos(), "select not instrumented: cap, true, false or nil is redeclared")
		return stmtOut{text: r.text(s)}
	}
	var cases []commCase
	redeclared := map[string]bool{}
	for _, st := range s.Body.List {
		cc := st.(*ast.CommClause)
		c := commCase{cc: cc}
		switch comm := cc.Comm.(type) {
		case *ast.SendStmt:
			c.ch, c.val = comm.Chan, comm.Value
		case *ast.ExprStmt:
			c.recv = ast.Unparen(comm.X).(*ast.UnaryExpr)
			c.ch = c.recv.X
		case *ast.AssignStmt:
			c.as = comm
			c.recv = ast.Unparen(comm.Rhs[0]).(*ast.UnaryExpr)
			c.ch = c.recv.X
			if comm.Tok == token.DEFINE {
				for _, l := range comm.Lhs {
					redeclared[l.(*ast.Ident).Name] = true
				}
			}
		}
		cases = append(cases, c)
	}
	// The sent values are evaluated before SelectPre, as the select
	// evaluates them before it communicates: a send's release must cover
	// the reads that computed its value.
	needTemps := false
	for _, c := range cases {
		if c.ch != nil && !r.plainOperand(c.ch, redeclared) {
			needTemps = true
		}
		if c.val != nil && r.info.Types[c.val].Value == nil && !r.info.Types[c.val].IsNil() {
			needTemps = true
		}
	}
	h := &hoister{r: r}
	chans := make([]string, len(cases)) // channel text for the hooks
	chOps := make([]string, len(cases)) // channel text in the case
	vals := make([]string, len(cases))  // sent value text
	for i, c := range cases {
		if c.ch == nil {
			continue
		}
		if needTemps {
			chans[i] = h.bind(r.expr(c.ch, mValue), 1)
			chOps[i] = chans[i]
			if c.val != nil {
				vals[i] = h.value(c.val, elemType(r.typeOf(c.ch)))
			}
		} else {
			chans[i] = r.text(c.ch)
			chOps[i] = r.expr(c.ch, mValue)
			if c.val != nil {
				vals[i] = r.expr(c.val, mValue)
			}
		}
	}
	var all []string
	var dirs strings.Builder // 'r' or 's' per channel in all
	for i, ch := range chans {
		if ch != "" {
			all = append(all, ch)
			if cases[i].recv != nil {
				dirs.WriteByte('r')
			} else {
				dirs.WriteByte('s')
			}
		}
	}
	pre := h.pre.String()
	if len(all) > 0 {
		pre += "__bf.SelectPre(" + r.g() + ", \"" + dirs.String() + "\", " + strings.Join(all, ", ") + "); "
	}
	var subs []sub
	for i, c := range cases {
		cc := c.cc
		var cs []sub
		var hookText strings.Builder
		if c.ch != nil {
			hookText.WriteString("__bf.SelectPost(" + r.g() + ", " + chans[i] + ", cap(" + chans[i] + "), " + boolText(c.recv != nil) + "); ")
			if t := r.timerOf(c.ch); t != nil && c.recv != nil {
				hookText.WriteString("__bf.TimerAcquire(" + r.text(t) + ", 0); ")
			}
		} else if len(all) > 0 {
			// default: retract what SelectPre announced.
			hookText.WriteString("__bf.SelectPost(" + r.g() + ", nil, 0, false); ")
		}
		switch {
		case c.val != nil:
			cs = append(cs, subOf(c.ch, chOps[i]), subOf(c.val, vals[i]))
		case c.as == nil && c.recv != nil:
			cs = append(cs, subOf(c.ch, chOps[i]))
		case c.as != nil:
			cs = append(cs, r.selectAssign(c, chOps[i], &hookText)...)
		}
		at := cc.Colon + 1
		cs = append(cs, sub{at, at, " " + hookText.String()})
		cs = append(cs, r.stmtList(cc.Body)...)
		subs = append(subs, subOf(cc, r.spliceNode(cc, cs...)))
	}
	text := r.spliceNode(s, subOf(s.Body, r.spliceNode(s.Body, subs...)))
	return stmtOut{pre: pre, preDecl: needTemps, text: text}
}

// selectAssign renders the communication of a receive case with an
// assignment. A shared target of `=` is assigned after SelectPost, from a
// temporary, so that its write check follows the receive's acquire.
func (r *fileRewriter) selectAssign(c commCase, chOp string, hookText *strings.Builder) []sub {
	as := c.as
	recv := sub{c.recv.X.Pos(), c.recv.X.End(), chOp}
	if as.Tok == token.DEFINE {
		for _, l := range as.Lhs {
			id := l.(*ast.Ident)
			if v := r.varOf(id); v != nil && r.sharedVar(v) {
				hookText.WriteString("__bf.W(" + r.g() + ", &" + id.Name + ", " + r.checkSite(id, true) + "); ")
			}
		}
		return []sub{recv}
	}
	needs := false
	for _, l := range as.Lhs {
		if r.sharedLoc(l) || r.isMapIndex(l) {
			needs = true
		}
	}
	if !needs {
		var subs []sub
		for _, l := range as.Lhs {
			t, _ := r.lvalue(l, checkBefore, false, nil)
			subs = append(subs, subOf(l, t))
		}
		return append(subs, recv)
	}
	temps := make([]string, len(as.Lhs))
	lhs := make([]string, len(as.Lhs))
	for i, l := range as.Lhs {
		temps[i] = r.newTemp()
		lhs[i], _ = r.lvalue(l, checkBefore, false, nil)
	}
	hookText.WriteString(strings.Join(lhs, ", ") + " = " + strings.Join(temps, ", ") + "; ")
	// Replace "lhs =" by "temps :=".
	return []sub{{as.Lhs[0].Pos(), as.TokPos + 1, strings.Join(temps, ", ") + " :="}, recv}
}

func (r *fileRewriter) isMapIndex(e ast.Expr) bool {
	ix, ok := ast.Unparen(e).(*ast.IndexExpr)
	if !ok {
		return false
	}
	_, isMap := placement.CoreType(r.typeOf(ix.X)).(*types.Map)
	return isMap
}

// plainOperand reports whether e is a variable or a field path of one
// without calls, not redeclared by a case: it may be evaluated again for
// the hooks with the same result.
func (r *fileRewriter) plainOperand(e ast.Expr, redeclared map[string]bool) bool {
	switch e := ast.Unparen(e).(type) {
	case *ast.Ident:
		return !redeclared[e.Name] && r.varOf(e) != nil
	case *ast.SelectorExpr:
		if sel := r.info.Selections[e]; sel == nil {
			_, ok := r.info.Uses[e.Sel].(*types.Var)
			return ok
		} else if sel.Kind() != types.FieldVal {
			return false
		}
		return r.plainOperand(e.X, redeclared)
	}
	return false
}

func boolText(b bool) string {
	if b {
		return "true"
	}
	return "false"
}

// elemType is the element type of a channel type, or nil.
func elemType(t types.Type) types.Type {
	if c, ok := placement.CoreType(t).(*types.Chan); ok {
		return c.Elem()
	}
	return nil
}

// isUntyped reports whether t is the type of an untyped constant.
func isUntyped(t types.Type) bool {
	b, ok := t.(*types.Basic)
	return ok && b.Info()&types.IsUntyped != 0
}
