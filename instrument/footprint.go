package instrument

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"strings"

	"github.com/bigfoot-go/bigfoot/placement"
)

// Deferred checks (-mode=slimstate and -mode=bigfoot).
//
// An access whose check is deferred records its address in a footprint
// (detector.Footprint) instead of being checked in place:
//
//	x := a[i]    becomes   x := (*__bf.F(__bfF0, &a[i]))
//	a[i].f = v   becomes   *__bf.F(__bfF1, &a[i].f) = v
//
// (__bf.FM for a footprint whose sites the plan says log their changes,
// placement.Footprint.LogsSites.)
//
// The function allocates one footprint per array operand, field path and
// kind in its prologue (__bfF0, __bfF1 := __bfg.FootprintFrame(site,
// false, &__bfg), __bfg.Footprint(site, true), the site of the first such
// access; the first with its frame's address) and
// pops them before each return and at the end of its body
// (__bfg.PopFootprints(__bfF0)). The footprint merges the addresses it
// records into one strided range, checked in one operation when the
// pattern breaks, before the goroutine's next synchronization, at the pop,
// or when the goroutine ends (docs/api.md, "Footprints"). The runtime, not
// the emitted code, commits at synchronization, so a check is never
// deferred past one however the function leaves or loops: a panic leaves
// the footprint pending until the goroutine's next synchronization or end.
//
// Which accesses are deferred, and which share a footprint, is the site
// plan's decision (placement.SitePlan.FootprintOf, placement/footprints.go):
// element accesses in the loops of their function, one footprint per
// operand, field path and index progression (SlimState's dynamic
// footprints, Rhodes' thesis §3.5.2), each range statement's element read,
// and in -mode=bigfoot loop-invariant fields. The instrumenter renders
// each site as a record, and refuses, in the plan, a site in a return
// statement (the pop precedes the results' evaluation), one it renders
// as its static range, and, once the file is done, one it checks
// otherwise or not at all. In -mode=bigfoot, the in-place checks are
// RedCard's (redcard.go), and the plan's field groups whose object is
// loop-invariant or an element the loop computes record into a
// footprint too (groupFootprint).

// fpCtx is the footprint state of one function being rendered.
type fpCtx struct {
	id       int               // unique in the file: names the pop placeholder
	loops    int               // enclosing for/range loops of the function
	loopStmt []ast.Stmt        // those loops, innermost last
	inReturn bool              // rendering a return statement's results
	decls    []string          // the footprints' initializers, in order
	bySite   map[string]string // "plan:ID" (the plan's footprint ID) -> footprint variable
	plans    []*loopPlan       // static ranges of the enclosing for loops (looprange.go)
	ranges   map[string]bool   // footprint variables holding a static range
	// changing: footprint variables recorded with FM, whose sites the
	// index does not tell apart (placement.Footprint.LogsSites)
	changing map[string]bool
	// loads: the reads of static ranges that store the range's extent
	// themselves, by position
	loads map[token.Pos]rangeLoad
	// rangeReads counts, per static range, the reads of the statement
	// being rendered that store the extent themselves and the others
	rangeReads map[string][2]int
	// fsites are the sites of each footprint's records (F), for the
	// site table's "l" entries (fSiteCoverage)
	fsites map[string][]fSite
	// states: the cover helper's state variables (cover.go), of type
	// stateType
	states    []string
	stateType string
}

// deferredFootprint returns the footprint variable that records the access
// e of kind write, or "" if e is checked in place. forced marks the
// element read of a range statement, which the plan keys by the
// statement's value variable. The plan decides which accesses share a
// footprint (placement.SitePlan.FootprintOf); the instrumenter renders a
// site of one as a record, except in a return statement (the pop
// precedes the results' evaluation), which it refuses, and a site it
// renders as its static range.
func (r *fileRewriter) deferredFootprint(e ast.Expr, write, forced bool) string {
	fn := r.fn
	if fn == nil || fn.fp == nil || fn.fp.loops == 0 {
		return ""
	}
	k := placement.SiteKey{Pos: ssaPos(e), Write: write}
	if forced {
		k = placement.SiteKey{Pos: e.Pos()}
	}
	sp := r.p.footprints
	f := sp.FootprintOf(k)
	if v := r.rangeFootprint(e, write); v != "" {
		if f != nil {
			r.footprintOutcome(k, "rendered as its static range")
		}
		return v
	}
	if f == nil {
		return ""
	}
	if fn.fp.inReturn {
		r.footprintOutcome(k, "in a return statement: the footprints are popped before the results")
		return ""
	}
	r.footprintOutcome(k, "")
	key := fmt.Sprintf("plan:%d", f.ID)
	if v, ok := fn.fp.bySite[key]; ok {
		return v
	}
	v := fmt.Sprintf("__bfF%d_%d", fn.fp.id, len(fn.fp.decls))
	fn.fp.decls = append(fn.fp.decls, fmt.Sprintf("__bfg.Footprint(%s, %v)", r.site(e.Pos()), write))
	fn.fp.bySite[key] = v
	fn.fp.changing[v] = f.LogsSites()
	r.fn.uses++
	return v
}

// footprintOutcome notes that the footprint site k is rendered as a
// record (why == "") or why not, for the plan once the file's emitted
// rendering is done (flushFootprintOutcomes): a site rendered anywhere
// is rendered.
func (r *fileRewriter) footprintOutcome(k placement.SiteKey, why string) {
	if r.fpOut == nil {
		r.fpOut = map[placement.SiteKey]string{}
	}
	if old, ok := r.fpOut[k]; !ok || old != "" && why == "" {
		r.fpOut[k] = why
	}
}

// flushFootprintOutcomes writes the outcomes of the emitted rendering's
// footprint sites into the plan.
func (r *fileRewriter) flushFootprintOutcomes() {
	for k, why := range r.fpOut {
		if why == "" {
			r.p.footprints.Render(placement.EntryFootprint, k)
		} else {
			r.p.footprints.Refuse(placement.EntryFootprint, k, why)
		}
	}
}

// groupFootprint returns the footprint variable that records the field
// group of the anchor sel of kind write, or "" if the group is checked in
// place: the plan's group footprint of the anchor (FootprintGroup), made
// when the group's object is invariant in the loop or an element the loop
// computes (moldyn's pi.x, pi.y, pi.z and pj.x, ... of pj := &ps[j]).
func (r *fileRewriter) groupFootprint(sel *ast.SelectorExpr, write bool) string {
	k := placement.SiteKey{Pos: sel.Sel.Pos(), Write: write}
	f := r.p.footprints.FootprintOf(k)
	switch {
	case f == nil || f.Kind != placement.FootprintGroup:
		return ""
	case r.unrenderable() != "":
		r.footprintOutcome(k, r.unrenderable())
		return ""
	}
	r.footprintOutcome(k, "")
	return r.footprintVar(f, sel.Pos(), write)
}

// unrenderable returns why no footprint site can be rendered as a record
// where the rewriter is, or "": outside a loop statement of the function
// being rendered, or in a return statement, whose results are evaluated
// after the pop.
func (r *fileRewriter) unrenderable() string {
	switch fn := r.fn; {
	case fn == nil || fn.fp == nil || fn.fp.loops == 0:
		return "not rendered in a loop statement of its function"
	case fn.fp.inReturn:
		return "in a return statement: the footprints are popped before the results"
	}
	return ""
}

// appendFootprint returns the footprint variable that records the writes
// of the elements the append call e adds, or "" if they are checked in
// place: the plan's append footprint of e (FootprintAppend), rendered as
// detector.AppendF or AppendPostF in a loop statement of its function,
// outside a return statement, for a call without a spread argument, in a
// package outside the standard library (whose shim has no AppendF).
func (r *fileRewriter) appendFootprint(e *ast.CallExpr) string {
	k := placement.SiteKey{Pos: e.Lparen, Write: true}
	f := r.p.footprints.FootprintOf(k)
	switch {
	case f == nil || f.Kind != placement.FootprintAppend:
		return ""
	case r.p.std:
		r.footprintOutcome(k, "the standard library's appends are checked in place")
		return ""
	case e.Ellipsis.IsValid():
		r.footprintOutcome(k, "a spread argument: checked in place")
		return ""
	case r.unrenderable() != "":
		r.footprintOutcome(k, r.unrenderable())
		return ""
	}
	r.footprintOutcome(k, "")
	return r.footprintVar(f, e.Pos(), true)
}

// refuseAppendFootprint records why the append call e, which the plan
// gives a footprint, is rendered without it.
func (r *fileRewriter) refuseAppendFootprint(e *ast.CallExpr, why string) {
	k := placement.SiteKey{Pos: e.Lparen, Write: true}
	if f := r.p.footprints.FootprintOf(k); f != nil && f.Kind == placement.FootprintAppend {
		r.footprintOutcome(k, why)
	}
}

// footprintVar returns the variable of the plan's footprint f in the
// function being rendered, declaring it, with the site at pos and kind
// write, at its first use.
func (r *fileRewriter) footprintVar(f *placement.Footprint, pos token.Pos, write bool) string {
	fn := r.fn
	key := fmt.Sprintf("plan:%d", f.ID)
	if v, ok := fn.fp.bySite[key]; ok {
		return v
	}
	v := fmt.Sprintf("__bfF%d_%d", fn.fp.id, len(fn.fp.decls))
	fn.fp.decls = append(fn.fp.decls, fmt.Sprintf("__bfg.Footprint(%s, %v)", r.site(pos), write))
	fn.fp.bySite[key] = v
	fn.uses++
	return v
}

// elementAccess reports whether e is an element of a slice or array
// (a[i]) or a field of one (a[i].f, a[i].f.g): the accesses whose
// addresses advance by a stride in a loop.
func (r *fileRewriter) elementAccess(e ast.Expr) bool {
	for {
		switch x := ast.Unparen(e).(type) {
		case *ast.IndexExpr:
			switch placement.CoreType(r.typeOf(x.X)).(type) {
			case *types.Slice, *types.Array:
				return true
			case *types.Pointer:
				return true // pointer to array
			}
			return false
		case *ast.SelectorExpr:
			sel := r.info.Selections[x]
			if sel == nil || sel.Kind() != types.FieldVal || sel.Indirect() {
				return false
			}
			e = x.X
		default:
			return false
		}
	}
}

// A rangeLoad is a read of a static range that stores the range's extent
// itself: with the hook (detector.Load or LoadGrow) and the extent to
// store.
type rangeLoad struct {
	hook   rtName
	extent string
}

// wrapDeferred renders the in-place footprint record of the rendered
// addressable expression inner, e's.
func (r *fileRewriter) wrapDeferred(e ast.Expr, fp, inner string, write bool) string {
	pos := e.Pos()
	if r.fn.fp.ranges[fp] {
		// A static range: the loop stores its extent (looprange.go),
		// after the statement or, for a read that something after it
		// may panic, at the read.
		n := r.fn.fp.rangeReads[fp]
		defer func() { r.fn.fp.rangeReads[fp] = n }()
		if ld, ok := r.fn.fp.loads[pos]; ok && !write {
			n[0]++
			addr := "&" + inner
			if r.p.recordElided {
				addr = "__bf.A(" + r.g() + ", &" + inner + ", false, " + r.site(pos) + ")"
			}
			r.fn.uses++
			return ld.hook.ref() + "(" + fp + ", " + addr + ", " + ld.extent + ")"
		}
		n[1]++
		return r.elidedAt(pos, inner, write)
	}
	call := r.record(fp) + fp + ", &" + inner + ", " + r.site(pos) + ")"
	r.fn.fp.fsites[fp] = append(r.fn.fp.fsites[fp], fSite{len(r.sites) - 1, e, write})
	if write {
		return "*" + call
	}
	return "(*" + call + ")"
}

// record returns the call that records an access in the footprint
// variable fp, up to its first argument: FM where the footprint's sites
// share elements, else F.
func (r *fileRewriter) record(fp string) string {
	if r.fn.fp.changing[fp] {
		return "__bf.FM("
	}
	return "__bf.F("
}

// popPlaceholder is replaced, once the function is rendered, by the pop of
// its footprints (or by nothing).
func popPlaceholder(id int) string { return fmt.Sprintf("\x00bfpop%d\x00", id) }

// finishFootprints substitutes the pop placeholders of fn in its rendered
// body and returns the prologue statements that allocate its footprints.
// A function with results ends in a terminating statement, so only one
// without results gets a pop at the end of its body.
func finishFootprints(fn *funcCtx, body string, hasResults bool) (string, []string) {
	if fn.fp == nil {
		return body, nil
	}
	ph := popPlaceholder(fn.fp.id)
	if len(fn.fp.decls) == 0 {
		return strings.ReplaceAll(body, ph, ""), nil
	}
	names := make([]string, len(fn.fp.decls))
	for i := range names {
		names[i] = fmt.Sprintf("__bfF%d_%d", fn.fp.id, i)
	}
	pop := "__bfg.PopFootprints(" + names[0] + "); "
	body = strings.ReplaceAll(body, ph, pop)
	if !hasResults {
		// The end of the body: before its closing brace.
		body = body[:len(body)-1] + "; " + strings.TrimSuffix(pop, " ") + " }"
	}
	// The first is pushed by FootprintFrame, with the frame's address:
	// footprints left by frames a recovered panic unwound are popped.
	decls := append([]string{frameFootprint(fn.fp.decls[0])}, fn.fp.decls[1:]...)
	decl := strings.Join(names, ", ") + " := " + strings.Join(decls, ", ") + ";"
	if len(fn.fp.states) > 0 {
		decl += " var " + strings.Join(fn.fp.states, ", ") + " " + fn.fp.stateType + ";"
	}
	return body, []string{decl}
}

// frameFootprint renders the footprint declaration decl,
// __bfg.Footprint(site, write), as the first of its function's:
// __bfg.FootprintFrame(site, write, &__bfg).
func frameFootprint(decl string) string {
	return "__bfg.FootprintFrame(" + strings.TrimSuffix(strings.TrimPrefix(decl, "__bfg.Footprint("), ")") + ", &__bfg)"
}

// newFpCtx returns the footprint state of a function about to be
// rendered, or nil in modes that defer no check.
func (r *fileRewriter) newFpCtx() *fpCtx {
	if !r.p.mode.Footprints() {
		return nil
	}
	r.fpIDs++
	return &fpCtx{id: r.fpIDs, bySite: map[string]string{}, ranges: map[string]bool{}, loads: map[token.Pos]rangeLoad{}, rangeReads: map[string][2]int{}, fsites: map[string][]fSite{}, changing: map[string]bool{}}
}

// enterLoop and leaveLoop bracket the rendering of a loop's condition,
// post statement and body.
func (r *fileRewriter) enterLoop(s ast.Stmt) {
	if r.fn != nil && r.fn.fp != nil {
		r.fn.fp.loops++
		r.fn.fp.loopStmt = append(r.fn.fp.loopStmt, s)
	}
}

func (r *fileRewriter) leaveLoop() {
	if r.fn != nil && r.fn.fp != nil {
		r.fn.fp.loops--
		r.fn.fp.loopStmt = r.fn.fp.loopStmt[:len(r.fn.fp.loopStmt)-1]
	}
}

// elided renders an access whose check the plans made redundant: the
// access itself, or, in builds that count or verify accesses, the access
// announced with __bf.A (an identity function otherwise).
func (r *fileRewriter) elided(e ast.Expr, inner string, write bool) string {
	if (r.unpublished(e, write) || r.notShared(e, write)) && !r.p.recordSafe {
		return inner // no check to verify it against: counted only
	}
	return r.elidedAt(e.Pos(), inner, write)
}

// elidedAt is elided for the access at pos.
func (r *fileRewriter) elidedAt(pos token.Pos, inner string, write bool) string {
	if !r.p.recordElided {
		return inner
	}
	a := "__bf.A(" + r.g() + ", &" + inner + ", " + fmt.Sprint(write) + ", " + r.site(pos) + ")"
	if write {
		return "*" + a
	}
	return "(*" + a + ")"
}
