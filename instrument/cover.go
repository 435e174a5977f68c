package instrument

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"strings"

	"github.com/bigfoot-go/bigfoot/placement"
)

// Callee checks moved into callers (-mode=bigfoot; placement.Cover).
//
// A function whose access summary says that every call reads (or writes)
// some bytes of the pointee of one of its pointer parameters, and that is
// otherwise harmless, gets a specialized copy, F__bfnc, in which those
// accesses are not checked (announced with __bf.A in counting and
// verifying builds). A call of F in a loop of the same package calls the
// copy instead, and the caller records the covered bytes as a pending
// static range on a footprint of its own (detector.OpenRange and Next,
// docs/api.md) through a helper emitted in the file:
//
//	for j := 0; j < rounds; j++ {           for j := 0; j < rounds; j++ {
//		l, r = r, l^round(r, &k[j])   →      l, r = r, l^round__bfnc(r, __bfCov_…(__bfF2_0, &__bfC2_0, &k[j], __bfu.Pointer(k), 0, 4))
//	}                                       }
//
// The helper opens a range at the argument's element and extends it by
// one element when the next call's argument is the next element of the
// same array (the base argument: the array, for an argument &x[i]; the
// pointer itself otherwise, so that the range never spans two objects),
// so a loop over an array makes one pending range that the runtime checks
// at the goroutine's next synchronization, the function's return or the
// range's next reopening, exactly as a static loop range. A nil argument
// records nothing (the callee then panics at its first dereference,
// before any covered access). The record is made as the argument is
// evaluated, so the arguments after it must be free of calls: nothing
// between the record and the callee's accesses may synchronize.
//
// Other callers (another package, a func value, a call outside a loop)
// call F itself, which keeps every check.

// coverSuffix names the specialized copy of a function.
const coverSuffix = placement.CoverSuffix

// computeCovers maps placement's covered calls onto positions: the access
// summaries of the functions with a copy, by the position of their name.
// The site plan says which calls are covered (SitePlan.CoveredCall).
func (rc *redcardPkg) computeCovers() {
	rc.covers = map[token.Pos]*placement.Cover{}
	for fn, c := range rc.dec.Covers {
		rc.covers[fn.Pos()] = c
	}
}

// coverOf returns the access summary of the function obj, if it has one
// and a copy.
func (r *fileRewriter) coverOf(obj *types.Func) *placement.Cover {
	if r.rc == nil || r.rc.pkg.covers == nil || obj == nil || obj.Pkg() != r.p.pkg.Types {
		return nil
	}
	return r.rc.pkg.covers[obj.Pos()]
}

// coveredCall renders the call e that placement's plan covers
// (SitePlan.CoveredCall: in a loop statement, its arguments after the
// covered one free of calls) as a call of its callee's specialized copy
// with the covered argument recorded, or reports false, writing the
// refusal and why into the plan: the call then keeps calling the checked
// original.
func (r *fileRewriter) coveredCall(e *ast.CallExpr, args []sub) (string, bool) {
	if r.rc == nil || !r.sitePlan().CoveredCall(e.Lparen) {
		return "", false
	}
	key := placement.SiteKey{Pos: e.Lparen}
	refuse := func(why string) (string, bool) {
		r.callOutcome(key, why)
		if r.rc.drop != nil { // pass 2 only
			r.note(e.Lparen, "covered call not rendered: %s", why)
		}
		return "", false
	}
	switch {
	case !r.p.staticRanges():
		return refuse("no static ranges in this package")
	case r.fn == nil || r.fn.fp == nil:
		return refuse("its function has no footprints")
	case r.fn.fp.loops == 0:
		return refuse("not rendered in a loop statement of its function")
	case r.fn.fp.inReturn:
		return refuse("in a return statement")
	}
	id, ok := ast.Unparen(e.Fun).(*ast.Ident)
	if !ok {
		return refuse("the callee is not named by an identifier")
	}
	obj, ok := r.info.Uses[id].(*types.Func)
	c := r.coverOf(obj)
	if !ok || c == nil || c.Param >= len(e.Args) {
		return refuse("the callee has no copy here")
	}
	if !r.universe(id.Pos(), "nil") {
		return refuse("nil is redeclared")
	}
	for _, a := range e.Args[c.Param+1:] {
		if !r.callFree(a) {
			return refuse("an argument after the covered one has a call expression")
		}
	}
	arg := e.Args[c.Param]
	base := r.coverBase(arg)
	if base == "" {
		return refuse("no array base to re-evaluate for the argument")
	}
	text := args[c.Param].text
	for _, s := range c.Spans {
		fp, state := r.coverFootprint(e.Lparen, r.coverSite(e.Lparen, obj, c, s, arg), s)
		text = fmt.Sprintf("%s(%s, &%s, %s, %s, %d, %d)", r.coverHelper(), fp, state, text, base, s.Off, s.Size)
	}
	r.usesUnsafe = true
	args[c.Param].text = text
	r.callOutcome(key, "")
	f := sub{id.Pos(), id.End(), id.Name + coverSuffix}
	return r.spliceNode(e, append([]sub{f}, args...)...), true
}

// coverBase returns the expression naming the array the argument arg
// points into, for an argument &x[i] or a variable p of `p := &x[i]` in
// the innermost loop's body (elementAlias): __bfu.Pointer(x) for x a
// pointer to an array, the slice's data pointer for a slice x; for any
// other local variable p, p itself (then the range never extends). x is
// evaluated again for it, so it must be a local variable, or fields of
// one, that the loop does not assign. "" if there is no such base.
func (r *fileRewriter) coverBase(arg ast.Expr) string {
	switch a := ast.Unparen(arg).(type) {
	case *ast.Ident:
		v := r.varOf(a)
		if v == nil || r.sharedVar(v) {
			return ""
		}
		if body := r.innermostLoopBody(); body != nil {
			for k, st := range body.List {
				if p, ix := r.elementAlias(st, body, k); p != nil && p == v {
					if b := r.arrayBase(ix.X, body); b != "" {
						return b
					}
				}
			}
		}
		return "__bfu.Pointer(" + a.Name + ")"
	case *ast.UnaryExpr:
		ix, ok := ast.Unparen(a.X).(*ast.IndexExpr)
		if a.Op != token.AND || !ok {
			return ""
		}
		return r.arrayBase(ix.X, r.innermostLoopBody())
	}
	return ""
}

// arrayBase returns the address of the array x (a slice, or a pointer to
// an array) designates, evaluated again: x must be a local variable that
// is not shared, or a path of fields from one, that body neither assigns
// nor declares (no assignment in body has a target ending in the same
// field).
func (r *fileRewriter) arrayBase(x ast.Expr, body *ast.BlockStmt) string {
	if body == nil || !r.callFree(x) {
		return ""
	}
	root := ast.Unparen(x)
	var fields []string
	for {
		sel, ok := root.(*ast.SelectorExpr)
		if !ok {
			break
		}
		if s := r.info.Selections[sel]; s == nil || s.Kind() != types.FieldVal {
			return ""
		}
		fields = append(fields, sel.Sel.Name)
		root = ast.Unparen(sel.X)
	}
	id, ok := root.(*ast.Ident)
	if !ok {
		return ""
	}
	v := r.varOf(id)
	if v == nil || r.sharedVar(v) || r.assignedIn(body, v) || declaresName(body, id.Name) || assignsField(body, fields) {
		return ""
	}
	text := r.text(x)
	switch t := placement.CoreType(r.typeOf(x)).(type) {
	case *types.Slice:
		return "__bfu.Pointer(__bfu.SliceData(" + text + "))"
	case *types.Pointer:
		if _, ok := placement.CoreType(t.Elem()).(*types.Array); ok {
			return "__bfu.Pointer(" + text + ")"
		}
	}
	return ""
}

// assignsField reports whether body assigns (or takes the address of) a
// target with a selector named as one of fields (conservatively, by name).
func assignsField(body ast.Node, fields []string) bool {
	if len(fields) == 0 {
		return false
	}
	found := false
	target := func(e ast.Expr) {
		for {
			switch x := ast.Unparen(e).(type) {
			case *ast.SelectorExpr:
				for _, f := range fields {
					found = found || x.Sel.Name == f
				}
				e = x.X
			case *ast.IndexExpr:
				e = x.X
			case *ast.StarExpr:
				e = x.X
			default:
				return
			}
		}
	}
	ast.Inspect(body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.AssignStmt:
			for _, l := range n.Lhs {
				target(l)
			}
		case *ast.IncDecStmt:
			target(n.X)
		case *ast.UnaryExpr:
			// &x.f lets the pointer assign x.f; &x.f[i] only the
			// element.
			if _, ok := ast.Unparen(n.X).(*ast.SelectorExpr); ok && n.Op == token.AND {
				target(n.X)
			}
		}
		return !found
	})
	return found
}

// innermostLoopBody is the body of the innermost loop being rendered.
func (r *fileRewriter) innermostLoopBody() *ast.BlockStmt {
	fp := r.fn.fp
	if len(fp.loopStmt) == 0 {
		return nil
	}
	switch s := fp.loopStmt[len(fp.loopStmt)-1].(type) {
	case *ast.ForStmt:
		return s.Body
	case *ast.RangeStmt:
		return s.Body
	}
	return nil
}

// coverSite returns the site a race found in span s of the covered call
// at lparen of callee is reported at: the call, whose entry lists the
// callee's accesses of an element (elemCoverage) for a report to name
// the one that raced; without them, the callee's first access of the
// span's kind when it is in this file, else the call.
func (r *fileRewriter) coverSite(lparen token.Pos, callee *types.Func, c *placement.Cover, s placement.Span, arg ast.Expr) string {
	if cov := r.elemCoverage(callee, c, arg); cov != "" {
		r.coverage = siteCoverage{lparen, cov}
		return r.site(lparen)
	}
	for _, cs := range c.Sites {
		if cs.Write == s.Write && cs.Pos >= token.Pos(r.tf.Base()) && int(cs.Pos) <= r.tf.Base()+r.tf.Size() {
			p := r.tf.Position(cs.Pos)
			r.sites = append(r.sites, fmt.Sprintf("%d:%d:%s", p.Line, p.Column, callee.Name()))
			return fmt.Sprintf("%s+%d", r.siteVar, len(r.sites)-1)
		}
	}
	return r.site(lparen)
}

// coverFootprint returns the footprint and state variables of the covered
// call at lparen for span s, allocating them (with the given site) in the
// function's prologue.
func (r *fileRewriter) coverFootprint(lparen token.Pos, site string, s placement.Span) (fp, state string) {
	fn := r.fn
	key := fmt.Sprintf("cover:%d/%d/%v", lparen, s.Off, s.Write)
	if v, ok := fn.fp.bySite[key]; ok {
		return v, strings.Replace(v, "__bfF", "__bfC", 1)
	}
	v := fmt.Sprintf("__bfF%d_%d", fn.fp.id, len(fn.fp.decls))
	fn.fp.decls = append(fn.fp.decls, fmt.Sprintf("__bfg.Footprint(%s, %v)", site, s.Write))
	fn.fp.bySite[key] = v
	state = strings.Replace(v, "__bfF", "__bfC", 1)
	fn.fp.states = append(fn.fp.states, state)
	fn.fp.stateType = r.coverHelper() + "State"
	r.fn.uses++
	return v, state
}

// coverHelper returns the name of the file's cover helper, emitting it
// once.
func (r *fileRewriter) coverHelper() string {
	name := "__bfCov_" + strings.TrimPrefix(r.siteVar, "__bfS_")
	if !r.coverEmitted {
		r.coverEmitted = true
		r.trailer.WriteString(fmt.Sprintf(coverHelperText, name))
	}
	return name
}

// coverHelperText is the helper (%[1]s its name) and its state type: it
// records the off..off+size bytes of *p, an element of the array at base,
// in f's static range, extending the range when p is the element after
// the last one recorded in the same array.
const coverHelperText = `type %[1]sState struct { base __bfu.Pointer; next uintptr }
func %[1]s[T interface{}](f *__bf.Footprint, s *%[1]sState, p *T, base __bfu.Pointer, off, size uintptr) *T {
	if p == nil { return p }
	a := uintptr(__bfu.Pointer(p))
	if a == s.next && base == s.base && f.Next > 0 { f.Next++; s.next = a + __bfu.Sizeof(*p); return p }
	__bf.OpenRange(f, __bfu.Slice(p, 1), 0, 1, 0, 1, off, size)
	f.Next = 1
	s.base, s.next = base, a+__bfu.Sizeof(*p)
	return p
}
`

// renderCopies appends to the file's trailer the specialized copy of each
// function of the file with an access summary: its body rendered again
// with the covered accesses unchecked, under a //line directive so that
// positions (panics, stacks) stay those of the original.
func (r *fileRewriter) renderCopies() {
	if r.rc == nil || len(r.rc.pkg.covers) == 0 && len(r.rc.pkg.upCopies) == 0 || !r.p.staticRanges() {
		return
	}
	if r.rc.drop == nil {
		r.rc.drop = map[siteKey]bool{}
	}
	for _, d := range r.file.Decls {
		d, ok := d.(*ast.FuncDecl)
		if !ok || d.Body == nil || d.Type.TypeParams != nil || skipDirective(d) != "" {
			continue
		}
		r.renderUpCopies(d)
		if d.Recv != nil {
			continue
		}
		obj, _ := r.info.Defs[d.Name].(*types.Func)
		c := r.coverOf(obj)
		if c == nil || d.Name.Name == "main" || d.Name.Name == "init" {
			continue
		}
		r.nocheck = map[siteKey]bool{}
		for _, s := range c.Sites {
			r.nocheck[siteKey{s.Pos, s.Write}] = true
		}
		subs := r.funcDecl(d)
		r.nocheck = nil
		subs = append([]sub{{d.Name.Pos(), d.Name.End(), d.Name.Name + coverSuffix}}, subs...)
		p := r.tf.Position(d.Pos())
		fmt.Fprintf(&r.trailer, "//line %s:%d:%d\n%s\n", r.tf.Name(), p.Line, p.Column, r.splice(d.Pos(), d.End(), subs...))
	}
}
