package instrument

import (
	"fmt"
	"go/ast"
	"go/constant"
	"go/token"
	"go/types"
	"hash/fnv"
	"strings"

	"github.com/bigfoot-go/bigfoot/placement"
)

// shortHash names a file's site table: a short hash of its base name,
// unique within a package in practice (and checked by the compiler: two
// files with colliding names would fail to build, which the tests guard).
func shortHash(base string) string {
	h := fnv.New32a()
	h.Write([]byte(base))
	return fmt.Sprintf("%08x", h.Sum32())
}

// A siteCoverage is what the check whose site is allocated next at pos
// covers besides its own access, as its site table entry says it after a
// tab (detector/exact.go): a report of a race the check finds names the
// covered access that raced, not the check. Nothing of it is evaluated
// when the check is made.
type siteCoverage struct {
	pos  token.Pos
	text string
}

// planReadsBefore records, for each write check that lets a read of the
// same location be left out (used: anchor -> the sites it lets drop),
// the first such read that runs before it in its block (placement's
// Drop.Before). A race between that read and an earlier write of another
// goroutine is the one go -race reports first; the write check finds it
// and names the read ("r" entries).
func (f *fileRedcard) planReadsBefore(used map[siteKey][]siteKey) {
	f.readBefore = map[siteKey]token.Pos{}
	for ak, ks := range used {
		first := -1
		for _, k := range ks {
			if i := f.pkg.sites.Drop(planKey(k)).Before; i >= 0 && (first < 0 || i < first) {
				first = i
				f.readBefore[ak] = k.pos
			}
		}
	}
}

// groupCoverage is the "g" entry of a group's check: the identity of
// the struct (of the element type, for an element group), the group's
// first byte and each access of a field or element of the group, in
// execution order, with its offset and size from the target's layout
// (the build's unsafe.Offsetof and Sizeof), from the struct's start or
// from element 0.
func (f *fileRedcard) groupCoverage(g *placement.Group) string {
	var id string
	if g.Elem != nil {
		id = elementsID(g.Elem)
	} else {
		id = structID(g.Struct)
	}
	lo, _ := g.Span()
	var b strings.Builder
	fmt.Fprintf(&b, "g%s %d", id, lo)
	for _, m := range g.Accesses {
		p := f.pkg.fset.Position(m.Site.Pos)
		kind := "r"
		if m.Site.Write {
			kind = "w"
		}
		off, size := g.Offset(m.Field)
		fmt.Fprintf(&b, " %d:%d:%d:%d:%s", off, size, p.Line, p.Column, kind)
	}
	return b.String()
}

// elementsID identifies the elements of arrays and slices of elem in
// "g" entries: a hash of "[]" and its type.
func elementsID(elem types.Type) string {
	h := fnv.New32a()
	h.Write([]byte("[]" + types.TypeString(elem, nil)))
	return fmt.Sprintf("%08x", h.Sum32())
}

// structID identifies a struct type in "g" and "f" entries: a hash of
// its type.
func structID(st *types.Struct) string {
	h := fnv.New32a()
	h.Write([]byte(types.TypeString(st, nil)))
	return fmt.Sprintf("%08x", h.Sum32())
}

// fieldCoverage is the "f" entry of the check of e, if e selects a
// field of at most a word, directly, of a struct whose fields the
// package's plans group: the struct's identity and the field's offset.
// With it a report finds the struct's start from the racing address,
// and so the member of an earlier group check that raced.
func (r *fileRewriter) fieldCoverage(e ast.Expr) string {
	sel, ok := ast.Unparen(e).(*ast.SelectorExpr)
	if !ok || r.rc == nil || len(r.rc.pkg.groupStructs) == 0 {
		return ""
	}
	s := r.info.Selections[sel]
	if s == nil || s.Kind() != types.FieldVal || len(s.Index()) != 1 {
		return ""
	}
	st := derefStruct(s.Recv())
	if st == nil || !r.rc.pkg.groupStructs[structID(st)] {
		return ""
	}
	sizes := placement.TargetSizes()
	var fields []*types.Var
	for i := 0; i < st.NumFields(); i++ {
		fields = append(fields, st.Field(i))
	}
	i := s.Index()[0]
	if sizes.Sizeof(fields[i].Type()) > 8 {
		return "" // the racing address may be past the field's first word
	}
	return fmt.Sprintf("f%s %d", structID(st), sizes.Offsetsof(fields)[i])
}

// coverRMW adds to the coverage of the write check of e, the target of a
// read-modify-write (x op= v, x++), the read of e it makes first: one
// write check stands for both, and a race with an earlier write is, as
// go -race reports it, the read's.
func (r *fileRewriter) coverRMW(e ast.Expr) {
	if !r.rmw {
		return
	}
	pos := ssaPos(e)
	if !pos.IsValid() {
		pos = e.Pos()
	}
	p := r.tf.Position(pos)
	item := fmt.Sprintf("r%d:%d", p.Line, p.Column)
	if r.coverage.pos == e.Pos() && r.coverage.text != "" {
		r.coverage.text += "\t" + item
		return
	}
	r.coverage = siteCoverage{e.Pos(), item}
}

// markCopy adds "c" to the coverage of the site allocated next at pos,
// a call of the copy builtin: go -race reports its accesses with a first
// frame in runtime.slicecopy, which a report prints too
// (detector/copyframe.go).
func (r *fileRewriter) markCopy(pos token.Pos) {
	if r.coverage.pos == pos && r.coverage.text != "" {
		r.coverage.text += "\tc"
		return
	}
	r.coverage = siteCoverage{pos, "c"}
}

// loopCoverage is the "l" entry of the footprint of merged range rs, e
// one of its accesses: the index coefficient, the element size, the
// first site's constant index term and each site's index from the
// first's, with its position and kind. A report finds the racing
// element's index from the range's first element and names the site
// whose index it is ("" if rs merges no sites or counts the elements of
// nested arrays flat).
func (r *fileRewriter) loopCoverage(rs *rangeSite, e ast.Expr) string {
	elem := r.elemSize(e)
	if len(rs.members) < 2 || rs.ptr != "" || elem <= 0 {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "l%d %d %d", max(rs.c, -rs.c), elem, rs.delta)
	for _, m := range rs.members {
		p := r.tf.Position(m.pos)
		kind := "r"
		if m.write {
			kind = "w"
		}
		fmt.Fprintf(&b, " %d:%d:%d:%s", m.delta-rs.delta, p.Line, p.Column, kind)
	}
	return b.String()
}

// elemSize returns the size of the elements of the array or slice that
// the access e goes through (s[i], s[i].f), or 0, also when the element
// type mentions a type parameter: its size is the instantiation's (and
// go/types' Sizeof asserts it is never asked for one).
func (r *fileRewriter) elemSize(e ast.Expr) int64 {
	for {
		switch x := ast.Unparen(e).(type) {
		case *ast.SelectorExpr:
			e = x.X
		case *ast.IndexExpr:
			t := r.info.TypeOf(x.X)
			if t == nil {
				return 0
			}
			if p, ok := t.Underlying().(*types.Pointer); ok {
				t = p.Elem()
			}
			var elem types.Type
			switch u := t.Underlying().(type) {
			case *types.Slice:
				elem = u.Elem()
			case *types.Array:
				elem = u.Elem()
			}
			if elem == nil || placement.MentionsTypeParam(elem) {
				return 0
			}
			return placement.TargetSizes().Sizeof(elem)
		default:
			return 0
		}
	}
}

// elemCoverage is the "e" entry of the footprint of a covered call of
// callee, a function of this package whose pointer argument arg the
// caller's loop passes element by element: the element's size, the
// callee's name, each of its accesses of the element (offset, size,
// position, kind) and its file. A report finds the racing element's
// start from the range's and names the callee's access of the racing
// field, in the callee, as go -race does ("" if arg is no pointer or the
// callee is a method or another package's).
func (r *fileRewriter) elemCoverage(callee *types.Func, c *placement.Cover, arg ast.Expr) string {
	sig, _ := callee.Type().(*types.Signature)
	t, _ := r.info.TypeOf(arg).(*types.Pointer)
	if sig == nil || sig.Recv() != nil || t == nil || callee.Pkg() != r.p.pkg.Types || len(c.Sites) == 0 {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "e%d %s", placement.TargetSizes().Sizeof(t.Elem()), callee.Name())
	file := ""
	for _, cs := range c.Sites {
		p := r.p.pkg.Fset.Position(cs.Pos)
		kind := "r"
		if cs.Write {
			kind = "w"
		}
		fmt.Fprintf(&b, " %d:%d:%d:%d:%s", cs.Off, cs.Size, p.Line, p.Column, kind)
		file = p.Filename
	}
	return b.String() + "|" + file
}

// An fSite is a record of a footprint (F): its site's index in the
// file's table, the access and its kind.
type fSite struct {
	site  int
	e     ast.Expr
	write bool
}

// fSiteCoverage adds "l" entries to the sites of the records of each
// footprint of fn whose accesses are a[c·v+δ] for one variable v, one
// c > 1 and several δ modulo c (a[2*i], a[2*i+1]): a race found when the
// footprint is checked is at the site of its range's first element
// (begin), and the racing element's index from it names the site that
// accessed it. Each site's entry counts from the site itself.
func (r *fileRewriter) fSiteCoverage(fn *funcCtx) {
	if fn.fp == nil {
		return
	}
	for _, fs := range fn.fp.fsites {
		c, deltas, residues := int64(0), make([]int64, len(fs)), map[int64]bool{}
		for i, s := range fs {
			k, d, ok := r.progression(s.e)
			if !ok || k < 2 || c != 0 && k != c {
				c = 0
				break
			}
			c, deltas[i] = k, d
			residues[(d%k+k)%k] = true
		}
		if c == 0 || len(residues) < 2 {
			continue // every element is every site's: nothing to tell
		}
		elem := r.elemSize(fs[0].e)
		if elem <= 0 {
			continue
		}
		for i, s := range fs {
			var b strings.Builder
			fmt.Fprintf(&b, "\tl%d %d %d", c, elem, deltas[i])
			for j, m := range fs {
				p := r.tf.Position(m.e.Pos())
				kind := "r"
				if m.write {
					kind = "w"
				}
				fmt.Fprintf(&b, " %d:%d:%d:%s", deltas[j]-deltas[i], p.Line, p.Column, kind)
			}
			r.sites[s.site] += b.String()
		}
	}
}

// progression returns c and δ of the index of e, an element access
// a[c·v+δ] or a[c·v+δ].f (v a variable, c and δ constants), if it is one.
func (r *fileRewriter) progression(e ast.Expr) (c, delta int64, ok bool) {
	for {
		switch x := ast.Unparen(e).(type) {
		case *ast.SelectorExpr:
			e = x.X
			continue
		case *ast.IndexExpr:
			e = x.Index
		default:
			return 0, 0, false
		}
		break
	}
	constOf := func(x ast.Expr) (int64, bool) {
		tv, ok := r.info.Types[x]
		if !ok || tv.Value == nil {
			return 0, false
		}
		return constant.Int64Val(constant.ToInt(tv.Value))
	}
	for {
		b, ok := ast.Unparen(e).(*ast.BinaryExpr)
		if !ok || b.Op != token.ADD && b.Op != token.SUB {
			break
		}
		if k, ok := constOf(b.Y); ok {
			if b.Op == token.SUB {
				k = -k
			}
			delta, e = delta+k, b.X
		} else if k, ok := constOf(b.X); ok && b.Op == token.ADD {
			delta, e = delta+k, b.Y
		} else {
			return 0, 0, false
		}
	}
	isVar := func(x ast.Expr) bool {
		id, ok := ast.Unparen(x).(*ast.Ident)
		_, v := r.info.Uses[id].(*types.Var)
		return ok && v
	}
	switch x := ast.Unparen(e).(type) {
	case *ast.Ident:
		return 1, delta, isVar(x)
	case *ast.BinaryExpr:
		if x.Op != token.MUL {
			return 0, 0, false
		}
		if k, ok := constOf(x.X); ok && isVar(x.Y) {
			return k, delta, true
		}
		if k, ok := constOf(x.Y); ok && isVar(x.X) {
			return k, delta, true
		}
	}
	return 0, 0, false
}
