package instrument

import (
	"go/ast"
	"go/token"
	"strings"
)

// Loop variables (docs/instrument.md, "Loop variables"). Which variables a
// loop has depends on the language version of its file
// (types.Info.FileVersions: the go line of go.mod, or a //go:build
// constraint):
//
//   - Go 1.22 and later: each iteration of a three-clause loop has its own
//     variables, initialized by copying the previous iteration's, which
//     reads them. forStmt checks that read through a hidden LoopVar
//     declared in the init statement. A range loop's variables are new in
//     each iteration and only written: nothing to check.
//   - Before Go 1.22: a loop has one variable for the whole loop. The post
//     statement of a three-clause loop writes it (checked like any
//     statement); the range clause writes it at each iteration, checked by
//     rangeWrites at the start of the body.

// forStmt renders a three-clause for loop.
func (r *fileRewriter) forStmt(s *ast.ForStmt) stmtOut {
	vars := r.copiedLoopVars(s)
	if len(vars) == 0 && r.p.staticRanges() && r.fn != nil && r.fn.fp != nil {
		// Static ranges need an induction variable no other goroutine
		// sees; a loop with copied shared variables keeps footprints.
		if lp := r.planLoop(s); lp != nil {
			return r.rangeFor(s, lp)
		}
	} else if r.p.staticRanges() {
		r.refuseLoop(s.Pos(), "its variables are shared, or its function has no footprints")
	}
	init, pre := r.forInit(s.Init)
	r.enterLoop(s)
	cond, post, body := r.exprSub(s.Cond), r.forPost(s.Post), r.block(s.Body)
	r.leaveLoop()
	if len(vars) == 0 {
		return stmtOut{pre: pre, preDecl: pre != "", text: r.spliceNode(s, init, cond, post, subOf(s.Body, body))}
	}
	hidden := make([]string, len(vars))
	var start strings.Builder
	for i, id := range vars {
		hidden[i] = r.newTemp()
		if s.Cond != nil {
			start.WriteString(hidden[i] + " = __bf.LoopOf(&" + id.Name + "); ")
		} else {
			start.WriteString(hidden[i] + " = __bf.LoopNext(" + r.g() + ", " + hidden[i] + ", &" + id.Name + ", " + r.checkSite(id, false) + "); ")
		}
	}
	// i, j := a, b  becomes  i, j, __bft1 := a, b, (__bf.LoopVar{}). The
	// left side of a definition is identifiers, never rewritten, so the
	// first := of the rendered init is its own.
	def := strings.Index(init.text, ":=")
	init.text = strings.TrimRight(init.text[:def], " ") + ", " + strings.Join(hidden, ", ") + " " + init.text[def:] + strings.Repeat(", (__bf.LoopVar{})", len(vars))
	if s.Cond != nil {
		var checks strings.Builder
		for i, id := range vars {
			checks.WriteString(hidden[i] + ".Copied(" + r.g() + ", " + r.checkSite(id, false) + ") && ")
		}
		cond = subOf(s.Cond, checks.String()+"("+cond.text+")")
	}
	body = "{ " + start.String() + body[1:]
	return stmtOut{text: r.spliceNode(s, init, cond, post, subOf(s.Body, body))}
}

// copiedLoopVars returns the variables of a three-clause loop that each
// iteration copies into the next and that other goroutines may access:
// the shared variables its init statement defines, in a file of Go 1.22 or
// later, with as many values as variables on the right (a tuple-valued
// init gets no LoopVar: its definition cannot take one more).
func (r *fileRewriter) copiedLoopVars(s *ast.ForStmt) []*ast.Ident {
	as, ok := s.Init.(*ast.AssignStmt)
	if r.fn == nil || !ok || as.Tok != token.DEFINE || len(as.Lhs) != len(as.Rhs) || !r.goVersionAtLeast(s.Pos(), "go1.22") {
		return nil
	}
	var vars []*ast.Ident
	for _, l := range as.Lhs {
		id, ok := l.(*ast.Ident)
		if !ok || id.Name == "_" {
			continue
		}
		if v := r.varOf(id); v != nil && r.sharedVar(v) {
			vars = append(vars, id)
		}
	}
	return vars
}

// rangeWrites returns the checks of the writes the range clause of s makes
// at each iteration to the loop's shared variables, in a file older than
// Go 1.22, where a range loop has one variable for the whole loop ("" in
// later versions, whose variables are new in each iteration).
func (r *fileRewriter) rangeWrites(s *ast.RangeStmt) string {
	var b strings.Builder
	for _, id := range r.rangeSharedVars(s) {
		b.WriteString("__bf.W(" + r.g() + ", &" + id.Name + ", " + r.checkSite(id, true) + "); ")
	}
	return b.String()
}

// rangeSharedVars returns the variables of the range loop s that the range
// clause writes at each iteration and that other goroutines may access:
// its shared variables in a file older than Go 1.22.
func (r *fileRewriter) rangeSharedVars(s *ast.RangeStmt) []*ast.Ident {
	if r.fn == nil || s.Tok != token.DEFINE || r.goVersionAtLeast(s.Pos(), "go1.22") {
		return nil
	}
	var vars []*ast.Ident
	for _, e := range []ast.Expr{s.Key, s.Value} {
		if id, ok := e.(*ast.Ident); ok && id.Name != "_" {
			if v := r.varOf(id); v != nil && r.sharedVar(v) {
				vars = append(vars, id)
			}
		}
	}
	return vars
}
