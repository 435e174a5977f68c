package instrument

import (
	"go/ast"
	"go/token"
	"go/types"
	"strings"

	"github.com/bigfoot-go/bigfoot/placement"
)

// stmtOut is a rendered statement with the statements that must run right
// before and after it. pre and post are only produced for statements in a
// statement list; pre ends and post starts with a separator.
type stmtOut struct {
	pre     string
	preDecl bool // pre declares temporaries: wrap the whole in a block
	text    string
	post    string
	block   bool // text is a block, in place of a simple statement (splitTuple)
}

func (r *fileRewriter) block(b *ast.BlockStmt) string {
	return r.spliceNode(b, r.stmtList(b.List)...)
}

func (r *fileRewriter) stmtList(list []ast.Stmt) []sub {
	subs := make([]sub, 0, len(list))
	for _, s := range list {
		subs = append(subs, subOf(s, r.compose(s, r.stmt(s, true))))
	}
	return subs
}

// compose joins a statement of a list with its pre and post statements.
// Temporaries are scoped in a block (so that no goto jumps over their
// declaration) unless the statement itself declares variables.
func (r *fileRewriter) compose(s ast.Stmt, o stmtOut) string {
	if o.pre == "" && o.post == "" {
		return o.text
	}
	if o.preDecl && !declares(s) {
		return "{ " + o.pre + o.text + o.post + " }"
	}
	return o.pre + o.text + o.post
}

func declares(s ast.Stmt) bool {
	switch s := s.(type) {
	case *ast.AssignStmt:
		return s.Tok == token.DEFINE
	case *ast.DeclStmt:
		return true
	case *ast.LabeledStmt:
		return declares(s.Stmt)
	}
	return false
}

// init renders the init statement of an if or switch statement. An init
// whose hooks need a statement list (the check of a write that follows a
// right-hand side that may synchronize, as in if _, z.err = z.read(); ...;
// a shared variable's declaration; a cgo call's hooks) moves before the
// statement: it is returned as pre, with its hooks, and the init's place
// (up to the condition or tag) becomes empty. The caller then renders the
// statement in a block of its own, which scopes the init's variables as
// the statement did. (Rendered in place, the write went unchecked in
// every mode.)
func (r *fileRewriter) init(s ast.Stmt) (sub, string) {
	if s == nil {
		return sub{}, ""
	}
	o := r.stmt(s, true)
	if o.pre == "" && o.post == "" && !o.block {
		return subOf(s, o.text), ""
	}
	semi := r.off(s.End())
	for semi < len(r.src) && r.src[semi] != ';' {
		semi++
	}
	return sub{s.Pos(), r.tf.Pos(semi + 1), ""}, o.pre + o.text + o.post + "; "
}

// elseBranch renders an if statement's else branch (nil: none): a block,
// or an if statement, in a block of its own if its init moved (init).
func (r *fileRewriter) elseBranch(s ast.Stmt) sub {
	if s == nil {
		return sub{}
	}
	o := r.stmt(s, false)
	if o.pre != "" {
		return subOf(s, "{ "+o.pre+o.text+o.post+" }")
	}
	return subOf(s, o.text)
}

// A for statement's init and post statements take one simple statement,
// with no room for the checks lvalue emits after it. Only a write whose
// right-hand side may synchronize needs that room, as in
// for p.cur = p.next(); ...: its check must follow the call, where go -race
// makes it, and in place it would precede the call. So does a C call that
// must stay as written (cgoHooked), for the release before it and the
// acquire after it. Anything else is checked in place.

// syncedWrite reports whether s assigns the result of a right-hand side
// that may synchronize to a target it has to check after the statement.
func (r *fileRewriter) syncedWrite(s ast.Stmt) bool {
	as, ok := s.(*ast.AssignStmt)
	return ok && as.Tok != token.DEFINE && r.fn != nil && r.assignOrder(as) == checkAfterSync
}

// forInit renders the init statement of a for statement. A synced write
// (syncedWrite) or a statement with a C call's hooks (cgoHooked) moves
// before the loop with its checks and hooks, as an if statement's init does
// (init), and leaves the init empty. A definition cannot leave the loop:
// each iteration of a Go 1.22 loop has its own copy of the variables it
// declares. It runs before the loop, defining variables of the same names,
// and the init copies them into the loop's: for p, _ := C.f(x); ... becomes
// p, _ := C.f(x); hooks; for p := p; .... Each name on the right is the
// outer variable, as the init's scope starts after it.
func (r *fileRewriter) forInit(s ast.Stmt) (sub, string) {
	if s == nil {
		return sub{}, ""
	}
	if !r.syncedWrite(s) && !r.cgoHooked(s) {
		return subOf(s, r.stmt(s, false).text), ""
	}
	o := r.stmt(s, true)
	if o.pre == "" && o.post == "" && !o.block {
		return subOf(s, o.text), ""
	}
	moved := o.pre + o.text + o.post + "; "
	as, ok := s.(*ast.AssignStmt)
	if !ok || as.Tok != token.DEFINE {
		return subOf(s, ""), moved
	}
	var names []string
	for _, l := range as.Lhs {
		if id := l.(*ast.Ident); id.Name != "_" {
			names = append(names, id.Name)
		}
	}
	copies := strings.Join(names, ", ")
	return subOf(s, copies+" := "+copies), moved
}

// forPost renders the post statement of a for statement. A synced write
// (syncedWrite) or a statement with a C call's hooks (cgoHooked) runs in a
// function literal called in its place,
// func() { stmt; checks }(), the one statement list a post statement can
// hold (moving it to the end of the body would need every continue
// rewritten). The literal reads and writes the variables of the iteration
// that the post statement starts, as the statement did; what its calls
// see of the stack has one frame more.
func (r *fileRewriter) forPost(s ast.Stmt) sub {
	if s == nil {
		return sub{}
	}
	if !r.syncedWrite(s) && !r.cgoHooked(s) {
		return subOf(s, r.stmt(s, false).text)
	}
	o := r.stmt(s, true)
	if o.pre == "" && o.post == "" && !o.block {
		return subOf(s, o.text)
	}
	return subOf(s, "func() { "+o.pre+o.text+o.post+" }()")
}

func (r *fileRewriter) stmt(s ast.Stmt, list bool) stmtOut {
	r.cgoRelease, r.cgoAcquire = false, false // set by a C call in s (cgoCall)
	switch s := s.(type) {
	case *ast.ExprStmt:
		text := r.spliceNode(s, subOf(s.X, r.expr(s.X, mValue)))
		pre, post := r.cgoHooks(s.Pos(), list)
		return stmtOut{pre: pre, text: text, post: post}
	case *ast.SendStmt:
		return stmtOut{text: r.send(s)}
	case *ast.IncDecStmt:
		r.rmw = true
		text, _ := r.lvalue(s.X, checkBefore, false, nil)
		r.rmw = false
		return stmtOut{text: r.spliceNode(s, subOf(s.X, text))}
	case *ast.AssignStmt:
		return r.assign(s, list)
	case *ast.GoStmt:
		return r.goStmt(s)
	case *ast.DeferStmt:
		return r.deferStmt(s)
	case *ast.ReturnStmt:
		var subs []sub
		if r.fn != nil && r.fn.fp != nil {
			r.fn.fp.inReturn = true
		}
		for _, e := range s.Results {
			subs = append(subs, subOf(e, r.expr(e, mValue)))
		}
		var pre strings.Builder
		if r.fn != nil && r.fn.fp != nil {
			r.fn.fp.inReturn = false
			pre.WriteString(popPlaceholder(r.fn.fp.id))
		}
		if len(s.Results) == 0 && list && r.fn != nil {
			// A bare return reads the named results.
			for _, id := range r.fn.results {
				if v := r.varOf(id); v != nil && r.sharedVar(v) {
					pre.WriteString("__bf.R(" + r.g() + ", &" + id.Name + ", " + r.checkSiteAt(s.Pos(), false) + "); ")
				}
			}
		}
		text := r.spliceNode(s, subs...)
		if len(s.Results) > 0 && list && r.fn != nil {
			text = r.resultWrites(s, text)
		}
		return stmtOut{pre: pre.String(), text: text}
	case *ast.BlockStmt:
		return stmtOut{text: r.block(s)}
	case *ast.IfStmt:
		els := r.elseBranch(s.Else)
		init, pre := r.init(s.Init)
		return stmtOut{pre: pre, preDecl: pre != "", text: r.spliceNode(s, init, r.exprSub(s.Cond), subOf(s.Body, r.block(s.Body)), els)}
	case *ast.ForStmt:
		return r.forStmt(s)
	case *ast.RangeStmt:
		return r.rangeStmt(s)
	case *ast.SwitchStmt:
		init, pre := r.init(s.Init)
		return stmtOut{pre: pre, preDecl: pre != "", text: r.spliceNode(s, init, r.exprSub(s.Tag), subOf(s.Body, r.clauses(s.Body)))}
	case *ast.TypeSwitchStmt:
		var assign sub
		ast.Inspect(s.Assign, func(n ast.Node) bool {
			if ta, ok := n.(*ast.TypeAssertExpr); ok {
				assign = subOf(ta.X, r.expr(ta.X, mValue))
				return false
			}
			return true
		})
		init, pre := r.init(s.Init)
		return stmtOut{pre: pre, preDecl: pre != "", text: r.spliceNode(s, init, assign, subOf(s.Body, r.clauses(s.Body)))}
	case *ast.SelectStmt:
		return r.selectStmt(s)
	case *ast.LabeledStmt:
		return r.labeled(s, list)
	case *ast.DeclStmt:
		return r.declStmt(s, list)
	}
	return stmtOut{text: r.text(s)}
}

// clauses renders the case clauses of a switch body.
func (r *fileRewriter) clauses(body *ast.BlockStmt) string {
	var subs []sub
	for _, c := range body.List {
		cc, ok := c.(*ast.CaseClause)
		if !ok {
			continue
		}
		var cs []sub
		for _, e := range cc.List {
			cs = append(cs, subOf(e, r.expr(e, mValue)))
		}
		cs = append(cs, r.stmtList(cc.Body)...)
		subs = append(subs, subOf(cc, r.spliceNode(cc, cs...)))
	}
	return r.spliceNode(body, subs...)
}

func (r *fileRewriter) labeled(s *ast.LabeledStmt, list bool) stmtOut {
	o := r.stmt(s.Stmt, list)
	label := r.splice(s.Pos(), s.Stmt.Pos())
	if o.pre == "" {
		return stmtOut{text: label + o.text, post: o.post}
	}
	if r.fn != nil && r.fn.gotos[s.Label.Name] {
		// A goto may not jump into a block: keep the label outside.
		if o.preDecl {
			return stmtOut{text: label + "{ " + o.pre + o.text + o.post + " }"}
		}
		return stmtOut{text: label + o.pre + o.text, post: o.post}
	}
	// break/continue need the label on the statement itself.
	return stmtOut{pre: o.pre, preDecl: o.preDecl, text: label + o.text, post: o.post}
}

// checkOrder says where lvalue checks a write.
type checkOrder int

const (
	// checkBefore: in place, before the right-hand side (nothing between
	// the check and the store may panic or synchronize).
	checkBefore checkOrder = iota
	// checkAfter: after the statement where possible, else in place.
	checkAfter
	// checkAfterSync: after the statement, the right-hand side may
	// synchronize; where that is impossible the write is not checked.
	checkAfterSync
)

// lvalue renders the target of an assignment. When the check must follow
// the right-hand side (ord, assignorder.go), it is emitted after the
// statement (post), which is possible only in a statement list and when
// the target's address is call-free and not changed by the assignment
// itself.
func (r *fileRewriter) lvalue(e ast.Expr, ord checkOrder, list bool, assigned map[types.Object]bool) (text, post string) {
	if id, ok := e.(*ast.Ident); ok && id.Name == "_" {
		return "_", ""
	}
	if r.fn == nil {
		return r.expr(e, mAddr), ""
	}
	u := ast.Unparen(e)
	if ix, ok := u.(*ast.IndexExpr); ok {
		if _, isMap := placement.CoreType(r.typeOf(ix.X)).(*types.Map); isMap {
			x := r.expr(ix.X, mValue)
			idx := r.expr(ix.Index, mValue)
			if r.localAt(ix.Lbrack, true) {
				// A fresh map: no check.
			} else if ord != checkBefore && list && r.callFree(ix.X) && !r.mentions(ix.X, assigned) {
				r.noteCheck(ix.Lbrack, true)
				post = "; __bf.MapWrite(" + r.g() + ", " + r.hoistedText(ix.X) + ", " + r.site(ix.Pos()) + ")"
			} else if ord != checkAfterSync {
				r.noteCheck(ix.Lbrack, true)
				x = "__bf.MapWrite(" + r.g() + ", " + x + ", " + r.site(ix.Pos()) + ")"
			} else {
				r.note(e.Pos(), "map write not checked: right-hand side may synchronize")
			}
			return r.splice(e.Pos(), e.End(), subOf(ix.X, x), subOf(ix.Index, idx)), post
		}
	}
	inner := r.expr(e, mAddr)
	if !r.sharedLoc(e) {
		return inner, ""
	}
	_, isID := u.(*ast.Ident)
	if ord == checkBefore || ord == checkAfter && !(list && r.callFree(e) && (isID || !r.mentions(e, assigned))) {
		if r.dropCheck(e, true) {
			return r.elided(e, inner, true), ""
		}
		r.coverRMW(e)
		if gw := r.groupWrap(e, inner, true); gw != "" {
			return gw, ""
		}
		if fp := r.deferredFootprint(e, true, false); fp != "" {
			if r.fn.fp.ranges[fp] && r.p.recordElided && list && r.callFree(e) && (isID || !r.mentions(e, assigned)) {
				// A static range's write is announced once made,
				// after the statement: a right-hand side that
				// panics prevents it.
				return inner, "; __bf.A(" + r.g() + ", &" + paren(e, r.text(e)) + ", true, " + r.site(e.Pos()) + ")"
			}
			return r.wrapDeferred(e, fp, inner, true), ""
		}
		return r.wrapWrite(e, inner), ""
	}
	if list && r.callFree(e) && (isID || !r.mentions(e, assigned)) {
		if r.fn.fp != nil && r.fn.fp.loops > 0 && r.rangeFootprint(e, true) != "" {
			// A static range: the write follows the right-hand side, and
			// the loop stores the range's extent after the statement.
			if r.p.recordElided {
				return inner, "; __bf.A(" + r.g() + ", &" + paren(e, r.hoistedText(e)) + ", true, " + r.site(e.Pos()) + ")"
			}
			return inner, ""
		}
		if r.dropCheck(e, true) {
			if r.p.recordElided && (r.p.recordSafe || !r.unpublished(e, true)) {
				return inner, "; __bf.A(" + r.g() + ", &" + paren(e, r.hoistedText(e)) + ", true, " + r.site(e.Pos()) + ")"
			}
			return inner, ""
		}
		r.coverRMW(e)
		// The group's check follows the statement's stores, which
		// follow its right-hand side, synchronizing or not: placement
		// put the check after them (the members it leaves out, in this
		// statement or before it, are dropped however it is rendered).
		if gw := r.groupWrap(e, r.hoistedText(e), true); gw != "" {
			return inner, "; " + gw[1:]
		}
		if fp := r.deferredFootprint(e, true, false); fp != "" && !r.fn.fp.ranges[fp] {
			// Recorded right after the write, with nothing between: the
			// footprint's commit, at the goroutine's next
			// synchronization, covers it however the right-hand side
			// synchronized before.
			return inner, "; " + r.record(fp) + fp + ", &" + paren(e, r.hoistedText(e)) + ", " + r.site(e.Pos()) + ")"
		}
		return inner, "; __bf.W(" + r.g() + ", &" + paren(e, r.hoistedText(e)) + ", " + r.checkSite(e, true) + ")"
	}
	r.note(e.Pos(), "write not checked: right-hand side may synchronize")
	return inner, ""
}

func (r *fileRewriter) assign(s *ast.AssignStmt, list bool) stmtOut {
	if o, ok := r.appendInPlace(s, list); ok {
		return o
	}
	ord := checkBefore
	if s.Tok != token.DEFINE && r.fn != nil {
		ord = r.assignOrder(s)
		if ord != checkBefore && list && r.splits(s) {
			if o, ok := r.splitTuple(s, ord); ok {
				return o
			}
		}
	}
	var subs []sub
	var post strings.Builder
	// Right-hand side: a single receive assigned to two values is a
	// comma-ok receive.
	commaOK := len(s.Lhs) == 2 && len(s.Rhs) == 1
	for _, e := range s.Rhs {
		if u, ok := ast.Unparen(e).(*ast.UnaryExpr); ok && u.Op == token.ARROW && commaOK {
			subs = append(subs, subOf(e, r.recvExpr(u, true)))
			continue
		}
		subs = append(subs, subOf(e, r.expr(e, mValue)))
	}
	cgoPre, cgoPost := r.cgoHooks(s.Pos(), list)
	post.WriteString(cgoPost)
	var lhs []sub
	hoist := "" // the target's calls, evaluated first (hoistCalls)
	if s.Tok == token.DEFINE {
		for _, e := range s.Lhs {
			id, ok := e.(*ast.Ident)
			if !ok || r.fn == nil {
				continue
			}
			if v := r.varOf(id); v != nil && r.sharedVar(v) && list {
				post.WriteString(r.declWrite(id))
			}
		}
	} else {
		assigned := map[types.Object]bool{}
		for _, e := range s.Lhs {
			if id, ok := e.(*ast.Ident); ok {
				if obj := r.info.ObjectOf(id); obj != nil {
					assigned[obj] = true
				}
			}
		}
		for _, e := range s.Lhs {
			if ord != checkBefore && list && r.fn != nil && !r.callFree(e) {
				// Left to right, before the right-hand side.
				if h, ok := r.hoistCalls(e); ok {
					hoist += h
				}
			}
		}
		r.rmw = s.Tok != token.ASSIGN // x op= v
		for _, e := range s.Lhs {
			text, p := r.lvalue(e, ord, list, assigned)
			lhs = append(lhs, subOf(e, text))
			post.WriteString(p)
		}
		r.rmw = false
		r.unhoist()
	}
	if hoist != "" {
		return stmtOut{pre: hoist + cgoPre, preDecl: true, text: r.spliceNode(s, append(lhs, subs...)...), post: post.String()}
	}
	return stmtOut{pre: cgoPre, text: r.spliceNode(s, append(lhs, subs...)...), post: post.String()}
}

func (r *fileRewriter) declStmt(s *ast.DeclStmt, list bool) stmtOut {
	gd, ok := s.Decl.(*ast.GenDecl)
	if !ok || gd.Tok != token.VAR {
		return stmtOut{text: r.text(s)}
	}
	var subs []sub
	var pre, post strings.Builder
	for _, spec := range gd.Specs {
		vs, ok := spec.(*ast.ValueSpec)
		if !ok {
			continue
		}
		commaOK := len(vs.Names) == 2 && len(vs.Values) == 1
		for _, e := range vs.Values {
			if u, ok := ast.Unparen(e).(*ast.UnaryExpr); ok && u.Op == token.ARROW && commaOK {
				subs = append(subs, subOf(e, r.recvExpr(u, true)))
				continue
			}
			subs = append(subs, subOf(e, r.expr(e, mValue)))
		}
		p, q := r.cgoHooks(vs.Pos(), list)
		pre.WriteString(p)
		post.WriteString(q)
		if len(vs.Values) == 0 {
			// var x T: the zero value is not a write (go -race's
			// allocation resets the shadow, it does not write it), and
			// a check here would cost the function its inlining, and a
			// caller of a constructor returning &x the stack
			// allocation of x ("What emitted code may do to escape
			// analysis" in docs/instrument.md).
			continue
		}
		for _, id := range vs.Names {
			if v := r.varOf(id); v != nil && r.sharedVar(v) && list && r.fn != nil {
				post.WriteString(r.declWrite(id))
			}
		}
	}
	return stmtOut{pre: pre.String(), text: r.spliceNode(s, subs...), post: post.String()}
}

// declWrite renders, after a statement that declares the shared variable
// id with a value, the check of that initializing write: none where
// placement found the variable unpublished there (placement.Unpublished:
// nothing but this goroutine can have its address yet), which keeps &id
// out of the function, so its inlining and the escape of id are the plain
// build's ("What emitted code may do to escape analysis" in
// docs/instrument.md); counting builds announce it.
func (r *fileRewriter) declWrite(id *ast.Ident) string {
	if r.rc != nil && r.rc.drop == nil {
		r.rc.record(id, true) // pass 1: one wrapper for the site's store
	} else if r.unpublished(id, true) {
		if r.p.recordSafe {
			return "; __bf.A(" + r.g() + ", &" + id.Name + ", true, " + r.site(id.Pos()) + ")"
		}
		return ""
	}
	return "; __bf.W(" + r.g() + ", &" + id.Name + ", " + r.checkSite(id, true) + ")"
}

// rangeStmt renders a range loop. Channels become a loop of instrumented
// receives; slices and pointers to arrays whose elements the loop reads
// become a counting loop that checks each element as it is read; maps are
// one read of the map.
func (r *fileRewriter) rangeStmt(s *ast.RangeStmt) stmtOut {
	if r.fn == nil {
		return stmtOut{text: r.text(s)}
	}
	xt := r.typeOf(s.X)
	if r.p.staticRanges() && r.fn.fp != nil && len(r.rangeSharedVars(s)) == 0 {
		if lp := r.planRange(s); lp != nil {
			return r.rangeIndices(s, lp)
		}
	} else if r.p.staticRanges() {
		r.refuseLoop(s.Pos(), "its variables are shared, or its function has no footprints")
	}
	r.enterLoop(s)
	body := r.block(s.Body)
	r.leaveLoop()
	writes := r.rangeWrites(s)
	if _, isChan := placement.CoreType(xt).(*types.Chan); isChan && writes != "" {
		return r.rangeChanShared(s, writes, body)
	}
	if writes != "" {
		body = "{ " + writes + body[1:]
	}
	plain := func(x string) stmtOut {
		var kv []sub
		if s.Tok == token.ASSIGN {
			for _, e := range []ast.Expr{s.Key, s.Value} {
				if e != nil {
					t, _ := r.lvalue(e, checkBefore, false, nil)
					kv = append(kv, subOf(e, t))
				}
			}
		}
		return stmtOut{text: r.spliceNode(s, append(kv, subOf(s.X, x), subOf(s.Body, body))...)}
	}
	perIter := r.goVersionAtLeast(s.Pos(), "go1.22")
	switch u := placement.CoreType(xt).(type) {
	case *types.Chan:
		if s.Tok == token.ASSIGN {
			return r.rangeChanAssign(s, body)
		}
		c := r.newTemp()
		ok := r.newTemp()
		key := "_"
		var decl strings.Builder
		if s.Key != nil {
			key = r.text(s.Key)
		}
		if key != "_" {
			decl.WriteString("_ = " + key + "; ")
			if id, isID := s.Key.(*ast.Ident); isID {
				if v := r.varOf(id); v != nil && r.sharedVar(v) {
					decl.WriteString("__bf.W(" + r.g() + ", &" + key + ", " + r.checkSite(s.Key, true) + "); ")
				}
			}
		}
		if t := r.timerOf(s.X); t != nil {
			decl.WriteString("__bf.TimerAcquire(" + r.text(t) + ", 0); ")
		}
		head := "for " + c + " := " + r.expr(s.X, mValue) + "; ; { " + key + ", " + ok + " := __bf.Recv2(" + r.g() + ", " + c + "); if !" + ok + " { break }; " + decl.String()
		return stmtOut{text: padLines(r.text(s), head+body+" }")}
	case *types.Map:
		x := r.expr(s.X, mValue)
		if !r.localAt(s.For, false) {
			r.noteCheck(s.For, false)
			x = "__bf.MapRead(" + r.g() + ", " + x + ", " + r.site(s.X.Pos()) + ")"
		}
		return plain(x)
	case *types.Slice, *types.Pointer, *types.Array:
		if p, ok := u.(*types.Pointer); ok {
			if _, isArr := placement.CoreType(p.Elem()).(*types.Array); !isArr {
				return plain(r.expr(s.X, mValue))
			}
		}
		_, isArray := u.(*types.Array)
		if s.Value == nil || isBlank(s.Value) {
			if isArray && s.Value == nil && r.callFree(s.X) {
				return plain(r.text(s.X)) // len is constant: x is not evaluated
			}
			return plain(r.expr(s.X, mValue))
		}
		if !perIter || s.Tok != token.DEFINE || !r.universe(s.Pos(), "len") {
			return plain(r.expr(s.X, mValue))
		}
		i, x := r.newTemp(), r.newTemp()
		elem := x + "[" + i + "]"
		if !isArray {
			r.enterLoop(s)
			fp := r.deferredFootprint(s.Value, false, true)
			r.leaveLoop()
			if fp != "" {
				elem = r.wrapDeferred(s.Value, fp, elem, false)
			} else {
				elem = r.wrapRead(s.Value, elem)
			}
		}
		var decl strings.Builder
		key := "_"
		if s.Key != nil && !isBlank(s.Key) {
			key = r.text(s.Key)
		}
		val := r.text(s.Value)
		decl.WriteString(key + ", " + val + " := " + i + ", " + elem + "; ")
		for _, n := range []string{key, val} {
			if n != "_" {
				decl.WriteString("_ = " + n + "; ")
			}
		}
		for _, e := range []ast.Expr{s.Key, s.Value} {
			if id, ok := e.(*ast.Ident); ok && !isBlank(id) {
				if v := r.varOf(id); v != nil && r.sharedVar(v) {
					decl.WriteString("__bf.W(" + r.g() + ", &" + id.Name + ", " + r.checkSite(id, true) + "); ")
				}
			}
		}
		head := "for " + i + ", " + x + " := 0, " + r.expr(s.X, mValue) + "; " + i + " < len(" + x + "); " + i + "++ { " + decl.String()
		return stmtOut{text: padLines(r.text(s), head+body+" }")}
	}
	return plain(r.expr(s.X, mValue))
}

// rangeChanAssign renders `for k = range ch`. (`for k := range ch` is
// rendered with a variable per iteration whatever the Go version: that
// differs from Go < 1.22 only for closures that capture k.)
func (r *fileRewriter) rangeChanAssign(s *ast.RangeStmt, body string) stmtOut {
	c, v, ok := r.newTemp(), r.newTemp(), r.newTemp()
	var assign string
	if s.Key != nil && !isBlank(s.Key) {
		t, _ := r.lvalue(s.Key, checkBefore, false, nil)
		assign = t + " = " + v + "; "
	}
	head := "for " + c + " := " + r.expr(s.X, mValue) + "; ; { " + v + ", " + ok + " := __bf.Recv2(" + r.g() + ", " + c + "); if !" + ok + " { break }; _ = " + v + "; " + assign
	return stmtOut{text: padLines(r.text(s), head+body+" }")}
}

// rangeChanShared renders `for k := range ch` in a file older than Go
// 1.22 whose k is shared: k is one variable for the whole loop, declared
// in the loop's init, and each received value is assigned to it (writes is
// the check of that assignment).
func (r *fileRewriter) rangeChanShared(s *ast.RangeStmt, writes, body string) stmtOut {
	c, v, ok := r.newTemp(), r.newTemp(), r.newTemp()
	key := r.text(s.Key)
	head := "for " + c + ", " + key + " := __bf.ChanVar(" + r.expr(s.X, mValue) + "); ; { " + v + ", " + ok + " := __bf.Recv2(" + r.g() + ", " + c + "); if !" + ok + " { break }; " + key + " = " + v + "; " + writes
	return stmtOut{text: padLines(r.text(s), head+body[1:])}
}

func isBlank(e ast.Expr) bool {
	id, ok := e.(*ast.Ident)
	return ok && id.Name == "_"
}

// goVersionAtLeast reports whether the file's Go version is at least v.
func (r *fileRewriter) goVersionAtLeast(pos token.Pos, v string) bool {
	fv := r.info.FileVersions[r.file]
	if fv == "" {
		return true
	}
	return versionAtLeast(fv, v)
}

// versionAtLeast compares "go1.N[.M]" versions.
func versionAtLeast(have, want string) bool {
	minor := func(s string) int {
		s = strings.TrimPrefix(s, "go1.")
		n := 0
		for _, c := range s {
			if c < '0' || c > '9' {
				break
			}
			n = n*10 + int(c-'0')
		}
		return n
	}
	return minor(have) >= minor(want)
}

// padLines appends newlines to out until it has as many as orig, so that a
// rewrite never moves the lines that follow.
func padLines(orig, out string) string {
	for n := strings.Count(orig, "\n") - strings.Count(out, "\n"); n > 0; n-- {
		out += "\n"
	}
	return out
}
