package placement

import (
	"fmt"
	"go/types"
	"slices"
	"sort"

	"golang.org/x/tools/go/ssa"
)

// Field groups (docs/placement.md, "The site plan").
//
// BigFoot coalesces the checks of several fields of one object into one
// check of a field group, placed anywhere between the accesses and the
// next synchronization (Rhodes' thesis §3.4: "p.x, p.y, p.z need one
// check"). The BigFoot plan of a function proposes the groups: every
// placed check whose paths are several fields of one base lists the
// accesses it covers. The site plan keeps a group only where one check
// made at the group's last access of its kind (its anchor) is exact:
//
//   - the members are loads and stores of direct fields of one struct
//     (of a type that mentions no type parameter: the offsets are
//     constants) through the same address computation, all in one basic
//     block (not the recover block);
//   - a write group holds only fields written in that block (a write
//     check is legitimate only for written memory, §3.5); a read group
//     holds fields only read there;
//   - the group's fields are consecutive in the struct with no padding
//     between them (ContiguousRuns, for the target's gc layout), so the
//     one byte range [first field, end of last field) is exactly their
//     bytes, and each is accessed by a member;
//   - no instruction strictly between the first and the last member may
//     acquire or release, panic or fail to return (SpanUnsafe): if the
//     first member runs, the anchor runs, with the same vector clock, so
//     the check neither misses an access (not even after a recovered
//     panic or runtime.Goexit) nor checks one that did not happen;
//   - the anchor has one access, is not dropped, is in a sync-free
//     statement and anchors no other group;
//   - each member left out for the group is not dropped already, has one
//     access, is in a sync-free statement, anchors no group, and is not
//     the anchor of a drop of a site outside the group. Members that
//     fail this keep their own check or their drop (the group still
//     covers their field: they ran).

// Element groups: the same rule for the elements of one array or slice
// at constant indices (the shape of encoding/binary's `_ = b[7]; return
// uint64(b[0]) | ... | uint64(b[7])<<56` and of its Put side). Their
// members are loads and stores through element addresses x[k] of one SSA
// value x (a slice, or a pointer to an array) with constant k; the
// indices of a group are consecutive, so its bytes are exactly those of
// the elements (elements have no padding between them). An element
// address of a slice may panic (index out of range), so SpanUnsafe lets
// one lie in the span only where an element address of the same slice at
// a constant index at least as large ran before it in the block (the
// bounds-check hint `_ = b[7]`, or the larger index accessed first);
// then, as for fields, the first member running means the anchor runs.
// The site plan proposes these groups from the SSA itself
// (addElementCandidates): each is one check over adjacent elements, as
// BigFoot's plan coalesces them into one index range (§3.4).

// A Group is a field group's check, made at its anchor, or an element
// group's.
type Group struct {
	Write bool
	// Struct is a field group's struct, Elem an element group's element
	// type (the other is nil).
	Struct *types.Struct
	Elem   types.Type
	// Fields are the group's fields (consecutive, no padding between),
	// or its elements' indices (consecutive).
	Fields []int
	// Anchor is the access whose check checks the group; Members are
	// the accesses left out for it.
	Anchor  SiteKey
	Members []SiteKey
	// Accesses are every access of the group's fields in the span, in
	// execution order, with the field each accesses.
	Accesses []GroupAccess
}

// A GroupAccess is one access of a field of a group.
type GroupAccess struct {
	Site  SiteKey
	Field int
}

// Span is the group's bytes, [lo, hi), from the start of the struct or
// from the array's element 0 (the target's layout).
func (g *Group) Span() (lo, hi int64) {
	if g.Elem != nil {
		size := TargetSizes().Sizeof(g.Elem)
		return int64(g.Fields[0]) * size, int64(g.Fields[len(g.Fields)-1]+1) * size
	}
	vars := make([]*types.Var, g.Struct.NumFields())
	for i := range vars {
		vars[i] = g.Struct.Field(i)
	}
	sizes := TargetSizes()
	offs := sizes.Offsetsof(vars)
	last := g.Fields[len(g.Fields)-1]
	return offs[g.Fields[0]], offs[last] + sizes.Sizeof(vars[last].Type())
}

// Offset returns the offset of field or element i of the group from
// the start of the struct or from element 0, and its size.
func (g *Group) Offset(i int) (off, size int64) {
	sizes := TargetSizes()
	if g.Elem != nil {
		size := sizes.Sizeof(g.Elem)
		return int64(i) * size, size
	}
	vars := make([]*types.Var, g.Struct.NumFields())
	for j := range vars {
		vars[j] = g.Struct.Field(j)
	}
	return sizes.Offsetsof(vars)[i], sizes.Sizeof(vars[i].Type())
}

func (g *Group) String() string {
	lo, hi := g.Span()
	if g.Elem != nil {
		return fmt.Sprintf("[%d..%d] [%d,%d)", g.Fields[0], g.Fields[len(g.Fields)-1], lo, hi)
	}
	return fmt.Sprintf("%s..%s [%d,%d)", g.Struct.Field(g.Fields[0]).Name(), g.Struct.Field(g.Fields[len(g.Fields)-1]).Name(), lo, hi)
}

// mayGroup reports whether fn loads or stores two different fields through
// one address computation in one block: only then can its BigFoot plan
// propose a group the site plan keeps, so only then is the (costlier)
// BigFoot analysis run.
func mayGroup(fn *ssa.Function) bool {
	for _, b := range fn.Blocks {
		fields := map[string]int{} // base -> a field accessed through it
		for _, in := range b.Instrs {
			fa, ok := AddrOf(in).(*ssa.FieldAddr)
			if !ok {
				continue
			}
			k := AddrKey(fa.X)
			if f, ok := fields[k]; ok && f != fa.Field {
				return true
			}
			fields[k] = fa.Field
		}
	}
	return false
}

// addGroupCandidates records the field groups a BigFoot plan proposes,
// and the structs they group.
func (s *siteFacts) addGroupCandidates(plan *Plan) {
	seen := map[string]bool{} // a group deferred to several exits is one candidate
	for _, c := range plan.Checks {
		if c.Why&FieldGroup == 0 || len(c.Covers) < 2 {
			continue
		}
		key := fmt.Sprint(c.Write)
		for _, a := range c.Covers {
			key += fmt.Sprintf(" %d", a.ID)
		}
		if !seen[key] {
			seen[key] = true
			s.cands = append(s.cands, c.Covers)
			for _, a := range c.Covers {
				if fa, ok := AddrOf(a.Instr).(*ssa.FieldAddr); ok && groupableBase(fa) {
					s.structs[fa.X.Type().Underlying().(*types.Pointer).Elem().Underlying().(*types.Struct)] = true
				}
			}
		}
	}
}

// addElementCandidates records, as candidate groups, the accesses of
// each block of fn through element addresses of one array or slice at
// two or more constant indices (accs are fn's accesses).
func (s *siteFacts) addElementCandidates(accs []*Access) {
	type key struct {
		b    *ssa.BasicBlock
		base string
	}
	parts := map[key][]*Access{}
	var order []key
	for _, a := range accs {
		ia, ok := AddrOf(a.Instr).(*ssa.IndexAddr)
		if !ok || elementType(ia) == nil {
			continue
		}
		if _, ok := constIndex(ia.Index); !ok {
			continue
		}
		k := key{a.Instr.Block(), AddrKey(ia.X)}
		if parts[k] == nil {
			order = append(order, k)
		}
		parts[k] = append(parts[k], a)
	}
	for _, k := range order {
		idx := map[int64]bool{}
		for _, a := range parts[k] {
			n, _ := constIndex(AddrOf(a.Instr).(*ssa.IndexAddr).Index)
			idx[n] = true
		}
		if len(idx) >= 2 {
			s.cands = append(s.cands, parts[k])
		}
	}
}

// elementType is the element type of the array or slice whose element
// ia addresses, if an element group may hold it: a type that mentions
// no type parameter and has a size (its offsets are constants).
func elementType(ia *ssa.IndexAddr) types.Type {
	var elem types.Type
	switch t := ia.X.Type().Underlying().(type) {
	case *types.Slice:
		elem = t.Elem()
	case *types.Pointer:
		at, ok := t.Elem().Underlying().(*types.Array)
		if !ok {
			return nil
		}
		elem = at.Elem()
	default:
		return nil
	}
	if MentionsTypeParam(elem) || TargetSizes().Sizeof(elem) == 0 {
		return nil
	}
	return elem
}

// groupMember is one access of a candidate group.
type groupMember struct {
	acc   *Access
	field int // field index in the struct, or element index
	index int // instruction index in the block
	key   SiteKey
}

// groupSlot returns the base of the access a for grouping (its address
// computation), and the field or element it accesses: a direct field of
// a struct (st) or an element at a constant index (elem); ok is false
// if a cannot be in a group.
func groupSlot(a *Access) (base string, slot int, st *types.Struct, elem types.Type, ok bool) {
	switch addr := AddrOf(a.Instr).(type) {
	case *ssa.FieldAddr:
		if !groupableBase(addr) {
			return "", 0, nil, nil, false
		}
		st := addr.X.Type().Underlying().(*types.Pointer).Elem().Underlying().(*types.Struct)
		return "." + AddrKey(addr.X), addr.Field, st, nil, true
	case *ssa.IndexAddr:
		k, isConst := constIndex(addr.Index)
		elem := elementType(addr)
		if !isConst || elem == nil || k > maxBoundIndex {
			return "", 0, nil, nil, false
		}
		return "[]" + AddrKey(addr.X), int(k), nil, elem, true
	}
	return "", 0, nil, nil, false
}

// decideGroups decides the field groups of the candidates; used maps the
// anchor of each drop to the sites it drops.
func (p *SitePlan) decideGroups(f *Facts, used map[SiteKey][]SiteKey) {
	s := &p.facts
	taken := map[SiteKey]bool{} // members and anchors of groups already decided
	for _, covers := range s.cands {
		type baseKey struct {
			block *ssa.BasicBlock
			base  string
		}
		parts := map[baseKey][]groupMember{}
		var order []baseKey
		type layout struct { // of a base: its struct, or its element type
			st   *types.Struct
			elem types.Type
		}
		layouts := map[baseKey]layout{}
		seen := map[*Access]bool{}
		for _, a := range covers {
			if seen[a] || !a.Pos.IsValid() {
				continue
			}
			seen[a] = true
			base, slot, st, elem, ok := groupSlot(a)
			if !ok {
				continue
			}
			k := SiteKey{a.Pos, a.Write}
			if l := p.loops[k]; elem != nil && l != nil && l.Refused == "" {
				continue // an element with a static range has it
			}
			b := a.Instr.Block()
			if b == b.Parent().Recover {
				continue
			}
			bk := baseKey{b, base}
			if _, ok := parts[bk]; !ok {
				order = append(order, bk)
				layouts[bk] = layout{st, elem}
			}
			parts[bk] = append(parts[bk], groupMember{acc: a, field: slot, index: IndexIn(b.Instrs, a.Instr), key: k})
		}
		for _, k := range order {
			ms := parts[k]
			written := map[int]bool{}
			for _, m := range ms {
				if m.acc.Write {
					written[m.field] = true
				}
			}
			for _, write := range []bool{true, false} {
				var fields []int
				var kind []groupMember
				for _, m := range ms {
					if written[m.field] == write {
						kind = append(kind, m)
						if !slices.Contains(fields, m.field) {
							fields = append(fields, m.field)
						}
					}
				}
				sort.Ints(fields)
				st, elem := layouts[k].st, layouts[k].elem
				runs := f.ContiguousRuns(st, fields)
				if elem != nil {
					runs = consecutiveRuns(fields)
				}
				for _, run := range runs {
					var rm []groupMember
					for _, m := range kind {
						if slices.Contains(run, m.field) {
							rm = append(rm, m)
						}
					}
					if g := p.verifyGroup(f, k.block, st, elem, run, rm, write, taken, used); g != nil {
						p.groupAt[g.Anchor] = g
						taken[g.Anchor] = true
						for _, mk := range g.Members {
							p.memberOf[mk] = g
							taken[mk] = true
						}
					}
				}
			}
		}
	}
}

// verifyGroup returns the group of the fields run (consecutive, no
// padding) of st made of the members ms in block b, or nil if one check
// at its anchor would not be exact (see the comment at the top of this
// file).
func (p *SitePlan) verifyGroup(f *Facts, b *ssa.BasicBlock, st *types.Struct, elem types.Type, run []int, ms []groupMember, write bool, taken map[SiteKey]bool, used map[SiteKey][]SiteKey) *Group {
	if len(run) < 2 || len(ms) < 2 {
		return nil
	}
	s := &p.facts
	one := func(k SiteKey) bool { return len(s.acc[k]) == 1 }
	sort.Slice(ms, func(i, j int) bool { return ms[i].index < ms[j].index })
	// The anchor: the last member of the group's kind that keeps its
	// check. Members after it are checked by it or by their own RedCard
	// anchor.
	ai := -1
	for i := len(ms) - 1; i >= 0; i-- {
		k := ms[i].key
		if ms[i].acc.Write == write && one(k) && p.drops[k] == nil && !taken[k] && s.syncFree[k] {
			ai = i
			break
		}
	}
	if ai < 0 {
		return nil
	}
	// Every field of the run must be accessed (of the group's kind) by a
	// member: the check is legitimate only for accessed memory.
	for _, fi := range run {
		if !slices.ContainsFunc(ms, func(m groupMember) bool { return m.field == fi }) {
			return nil
		}
	}
	lo, hi := ms[0].index, ms[len(ms)-1].index
	if lo < 0 || hi < 0 || f.SpanUnsafe(b, lo, hi) != "" {
		return nil
	}
	anchor := ms[ai].key
	g := &Group{Write: write, Struct: st, Elem: elem, Fields: run, Anchor: anchor}
	for _, m := range ms {
		g.Accesses = append(g.Accesses, GroupAccess{m.key, m.field})
	}
	for i, m := range ms {
		if i == ai || m.key == anchor || taken[m.key] {
			continue
		}
		if p.drops[m.key] != nil {
			continue // left out already: the check its drop names covers it
		}
		if !one(m.key) || !s.syncFree[m.key] || p.groupAt[m.key] != nil {
			continue // keeps its own check
		}
		// Every site dropped for m's check must be in the group, whose
		// check covers the same field within the same
		// synchronization-free span.
		if !slices.ContainsFunc(used[m.key], func(j SiteKey) bool {
			return !slices.ContainsFunc(ms, func(m groupMember) bool { return m.key == j })
		}) {
			g.Members = append(g.Members, m.key)
		}
	}
	if len(g.Members) == 0 {
		return nil
	}
	return g
}

// consecutiveRuns splits the sorted element indices into runs of two or
// more consecutive indices.
func consecutiveRuns(idx []int) [][]int {
	var out [][]int
	for i := 0; i < len(idx); {
		j := i + 1
		for j < len(idx) && idx[j] == idx[j-1]+1 {
			j++
		}
		if j-i >= 2 {
			out = append(out, idx[i:j:j])
		}
		i = j
	}
	return out
}

// groupableBase reports whether fa is a field of a struct type that
// mentions no type parameter (unsafe.Offsetof must be a constant).
func groupableBase(fa *ssa.FieldAddr) bool {
	pt, ok := fa.X.Type().Underlying().(*types.Pointer)
	if !ok {
		return false
	}
	_, ok = pt.Elem().Underlying().(*types.Struct)
	return ok && !MentionsTypeParam(pt.Elem())
}

// MentionsTypeParam reports whether the type t mentions a type
// parameter (its size and layout are then not constants).
func MentionsTypeParam(t types.Type) bool { return mentionsTypeParam(t, map[types.Type]bool{}) }

func mentionsTypeParam(t types.Type, seen map[types.Type]bool) bool {
	if seen[t] {
		return false
	}
	seen[t] = true
	switch t := types.Unalias(t).(type) {
	case *types.TypeParam:
		return true
	case *types.Named:
		if t.TypeArgs().Len() > 0 || t.TypeParams().Len() > 0 {
			return true
		}
		return mentionsTypeParam(t.Underlying(), seen)
	case *types.Pointer:
		return mentionsTypeParam(t.Elem(), seen)
	case *types.Slice:
		return mentionsTypeParam(t.Elem(), seen)
	case *types.Array:
		return mentionsTypeParam(t.Elem(), seen)
	case *types.Map:
		return mentionsTypeParam(t.Key(), seen) || mentionsTypeParam(t.Elem(), seen)
	case *types.Chan:
		return mentionsTypeParam(t.Elem(), seen)
	case *types.Struct:
		for i := 0; i < t.NumFields(); i++ {
			if mentionsTypeParam(t.Field(i).Type(), seen) {
				return true
			}
		}
	}
	return false
}
