package instrument

import (
	"go/ast"
	"go/types"
	"strconv"

	"github.com/bigfoot-go/bigfoot/placement"
)

// Rendering field groups (-mode=bigfoot; placement.Group).
//
// Placement decides each field group: its struct and fields (consecutive,
// no padding between), the access whose check checks the group (its
// anchor) and the accesses left out for it (its members). The anchor's
// wrapper then checks the whole group:
//
//	(*__bf.RG(__bfg, &s.radius, __bfu.Offsetof(s.radius), __bfu.Offsetof(s.centre),
//		__bfu.Offsetof(s.radius)+__bfu.Sizeof(s.radius), S))
//
// with offsets from unsafe.Offsetof (never evaluated; exact for the build's
// target), and the members' wrappers are left out (announced with __bf.A
// in counting and verifying builds). The offsets are written with the
// anchor's operand, so the anchor must be a selector of a field of the
// group's struct, not promoted through an embedded field; a group whose
// anchor is not is refused. The anchor's site entry lists the group's
// accesses (groupCoverage), so that a race on a field of the group is
// reported at the access of that field, not at the anchor.

// groupUnrenderable says why the group g cannot be rendered at its
// anchor ("" if it can).
func (f *fileRedcard) groupUnrenderable(g *placement.Group) string {
	anchor := fromPlan(g.Anchor)
	if why := f.unrenderable(anchor); why != "" {
		return "the anchor: " + why
	}
	if g.Elem != nil {
		ix, ok := f.wrapped[anchor.pos].(*ast.IndexExpr)
		if !ok {
			return "the anchor is not an index expression"
		}
		if v := f.info.Types[ix.Index].Value; v == nil || v.String() != strconv.Itoa(anchorIndex(g)) {
			return "the anchor's index is not the constant placement names"
		}
		return ""
	}
	sel, ok := f.wrapped[anchor.pos].(*ast.SelectorExpr)
	if !ok {
		return "the anchor is not a selector"
	}
	if s := f.info.Selections[sel]; s == nil || s.Kind() != types.FieldVal || len(s.Index()) != 1 || !types.Identical(derefStruct(s.Recv()), g.Struct) {
		return "the anchor's field is promoted or of another struct"
	}
	return ""
}

// anchorIndex is the field or element index of the group's anchor.
func anchorIndex(g *placement.Group) int {
	for _, a := range g.Accesses {
		if a.Site == g.Anchor {
			return a.Field
		}
	}
	return -1
}

// derefStruct is the struct type of t or *t, or nil.
func derefStruct(t types.Type) *types.Struct {
	if p, ok := t.Underlying().(*types.Pointer); ok {
		t = p.Elem()
	}
	st, _ := t.Underlying().(*types.Struct)
	return st
}

// testHookGroupAlone, if set and true, makes groupWrap render no group,
// as a form of the anchor's check that renders it alone would: a test
// of withdrawUnrendered.
var testHookGroupAlone func() bool

// groupWrap returns the group check of the anchor e (a selector, or an
// element at a constant index, whose in-place wrapper of kind write it
// replaces), rendered around inner, or "" if e anchors no group.
func (r *fileRewriter) groupWrap(e ast.Expr, inner string, write bool) string {
	if r.rc == nil || r.rc.groups == nil {
		return ""
	}
	pos := ssaPos(e)
	g := r.rc.groups[siteKey{pos, write}]
	if g == nil || testHookGroupAlone != nil && testHookGroupAlone() {
		return ""
	}
	var anchor, lo, hi, fp string
	u := ast.Unparen(e)
	switch x := u.(type) {
	case *ast.SelectorExpr:
		if g.Struct == nil {
			return ""
		}
		first, last := g.Struct.Field(g.Fields[0]).Name(), g.Struct.Field(g.Fields[len(g.Fields)-1]).Name()
		op := "(" + r.text(x.X) + ")"
		off := func(name string) string { return "__bfu.Offsetof(" + op + "." + name + ")" }
		anchor, lo, hi = off(x.Sel.Name), off(first), off(last)+"+__bfu.Sizeof("+op+"."+last+")"
		fp = r.groupFootprint(x, write)
	case *ast.IndexExpr:
		if g.Elem == nil {
			return ""
		}
		// Offsets from element 0, in elements of the anchor's size.
		size := "__bfu.Sizeof(" + r.text(x) + ")"
		off := func(i int) string { return strconv.Itoa(i) + "*" + size }
		anchor, lo, hi = off(anchorIndex(g)), off(g.Fields[0]), off(g.Fields[len(g.Fields)-1]+1)
	default:
		return ""
	}
	r.rc.pkg.sites.Render(placement.EntryGroup, planKey(siteKey{pos, write}))
	r.usesUnsafe = true
	fn, state := rtName("RG"), r.g()
	if write {
		fn = "WG"
	}
	if fp != "" {
		fn, state = "FG", fp
	}
	r.coverage = siteCoverage{u.Pos(), r.rc.groupCoverage(g)}
	call := fn.ref() + "(" + state + ", &" + inner + ", " + anchor + ", " + lo + ", " + hi + ", " + r.site(u.Pos()) + ")"
	if write {
		return "*" + call
	}
	return "(*" + call + ")"
}
