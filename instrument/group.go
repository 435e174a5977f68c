package instrument

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"os"
	"sort"

	"golang.org/x/tools/go/ssa"

	"github.com/bigfoot-go/bigfoot/placement"
)

// Field-group emission (-mode=bigfoot).
//
// BigFoot coalesces the checks of several fields of one object into one
// check of a field group, placed anywhere between the accesses and the
// next synchronization (Rhodes' thesis §3.4: "p.x, p.y, p.z
// need one check"). The BigFoot plan of a function proposes the groups:
// every placed check whose paths are several fields of one base lists
// the accesses it covers. The instrumenter emits a group only where it can
// prove, independently of the plan, that one check made at the group's
// last access (its anchor) is exact:
//
//   - the members are loads and stores of direct fields of one struct
//     through the same address computation (same pointer register, same
//     field steps), all in one basic block (not the recover block);
//   - a write group holds only fields written in that block (a write
//     check is legitimate only for written memory, §3.5); a read group
//     holds fields only read there;
//   - the group's fields are consecutive in the struct with no padding
//     between them (for the target's gc layout), so the one byte range
//     [first field, end of last field) is exactly their bytes;
//   - no instruction strictly between the first and the last member may
//     acquire or release (kill sets; HTTP handler calls count as both),
//     nor panic (refinedPanics), nor fail to return (a call counts only if
//     its callee is loop-free, non-recursive and itself panic- and
//     sync-free: placement.Facts.Simple). So if the first member runs, the anchor
//     runs, with the same vector clock: the check neither misses an
//     access (not even after a recovered panic or runtime.Goexit) nor
//     checks one that did not happen;
//   - each member other than the anchor maps one-to-one to its in-place
//     wrapper, lies in a synchronization-free statement (the redcard
//     rule: Go may reorder a load with the calls of its statement), and is
//     not the anchor a RedCard cover relies on. Members that fail this
//     keep their own check (the group still covers their field: they ran);
//   - the anchor is the last member of the group's kind (for a write
//     group, the last write), maps one-to-one, is emitted (not dropped as
//     redundant), and lies in a synchronization-free statement.
//
// The anchor's wrapper then checks the whole group:
//
//	(*__bf.RG(__bfg, &s.radius, __bfu.Offsetof(s.radius), __bfu.Offsetof(s.centre),
//		__bfu.Offsetof(s.radius)+__bfu.Sizeof(s.radius), S))
//
// with offsets from unsafe.Offsetof (never evaluated; exact for the build's
// target), and the other members' wrappers are left out (announced with
// __bf.A in counting and verifying builds). The anchor's site entry lists
// the group's accesses (groupCoverage), so that a race on a field of the
// group is reported at the access of that field, not at the anchor.

// fieldGroup is a group to emit at its anchor.
type fieldGroup struct {
	write       bool
	first, last string // the first and last field of the group, by name
	members     []siteKey
	anchor      siteKey
	st          *types.Struct
	run         []int    // the group's fields
	accesses    []member // every access of the group's fields, in execution order
}

// groupDebug prints the groups proposed and why they were not emitted.
var groupDebug = os.Getenv("BIGFOOT_GROUPDEBUG") != ""

// collectGroups records the field groups of a BigFoot plan.
func (rc *redcardPkg) collectGroups(plan *placement.Plan) {
	seen := map[string]bool{} // a group deferred to several exits is one candidate
	for _, c := range plan.Checks {
		if c.Why&placement.FieldGroup == 0 || len(c.Covers) < 2 {
			continue
		}
		key := fmt.Sprint(c.Write)
		for _, a := range c.Covers {
			key += fmt.Sprintf(" %d", a.ID)
		}
		if !seen[key] {
			seen[key] = true
			rc.groupCands = append(rc.groupCands, c.Covers)
			for _, a := range c.Covers {
				if fa, ok := placement.AddrOf(a.Instr).(*ssa.FieldAddr); ok && groupableBase(fa) {
					if rc.groupStructs == nil {
						rc.groupStructs = map[string]bool{}
					}
					rc.groupStructs[structID(derefStruct(fa.X.Type()))] = true
				}
			}
		}
	}
}

// mayGroup reports whether fn loads or stores two different fields through
// one address computation in one block: only then can its BigFoot plan
// propose a group the emitter could prove, so only then is the (costlier)
// BigFoot analysis run at build time.
func mayGroup(fn *ssa.Function) bool {
	for _, b := range fn.Blocks {
		fields := map[string]int{} // base -> a field accessed through it
		for _, in := range b.Instrs {
			fa, ok := placement.AddrOf(in).(*ssa.FieldAddr)
			if !ok {
				continue
			}
			k := placement.AddrKey(fa.X)
			if f, ok := fields[k]; ok && f != fa.Field {
				return true
			}
			fields[k] = fa.Field
		}
	}
	return false
}

// member is one access of a candidate group.
type member struct {
	acc   *placement.Access
	field int // field index in the struct
	index int // instruction index in the block
	key   siteKey
}

// planGroups computes, for one file, the groups to emit and the wrappers
// they make redundant; it adds to f.drop and f.groups. It runs after the
// RedCard drop set is known (f.usedAnchors).
func (f *fileRedcard) planGroups() {
	f.groups = map[siteKey]*fieldGroup{}
	taken := map[siteKey]bool{} // members and anchors of groups already planned
	for _, covers := range f.pkg.groupCands {
		// Split by block and base address.
		type baseKey struct {
			block *ssa.BasicBlock
			base  string
		}
		parts := map[baseKey][]member{}
		var order []baseKey
		seen := map[*placement.Access]bool{}
		for _, a := range covers {
			if seen[a] || !a.Pos.IsValid() || !f.inFile(a.Pos) {
				continue
			}
			seen[a] = true
			fa, ok := placement.AddrOf(a.Instr).(*ssa.FieldAddr)
			if !ok || !groupableBase(fa) {
				continue
			}
			b := a.Instr.Block()
			if b == b.Parent().Recover {
				continue
			}
			k := baseKey{b, placement.AddrKey(fa.X)}
			if _, ok := parts[k]; !ok {
				order = append(order, k)
			}
			parts[k] = append(parts[k], member{acc: a, field: fa.Field, index: placement.IndexIn(b.Instrs, a.Instr), key: siteKey{a.Pos, a.Write}})
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
				var kind []member
				for _, m := range ms {
					if written[m.field] == write {
						kind = append(kind, m)
						if !containsInt(fields, m.field) {
							fields = append(fields, m.field)
						}
					}
				}
				sort.Ints(fields)
				st := structOf(kind)
				for _, run := range f.pkg.facts.ContiguousRuns(st, fields) {
					var rm []member
					for _, m := range kind {
						if containsInt(run, m.field) {
							rm = append(rm, m)
						}
					}
					if g := f.verifyGroup(k.block, st, run, rm, write, taken); g != nil {
						f.groups[g.anchor] = g
						taken[g.anchor] = true
						for _, mk := range g.members {
							f.drop[mk] = true
							taken[mk] = true
						}
					}
				}
			}
		}
	}
}

// verifyGroup returns the group of the fields run (consecutive, no
// padding) of st made of the members ms in block b, or nil if it cannot
// be emitted exactly (see the comment at the top of this file).
func (f *fileRedcard) verifyGroup(b *ssa.BasicBlock, st *types.Struct, run []int, ms []member, write bool, taken map[siteKey]bool) *fieldGroup {
	if len(run) < 2 || len(ms) < 2 {
		return nil
	}
	sort.Slice(ms, func(i, j int) bool { return ms[i].index < ms[j].index })
	debug := func(why string) *fieldGroup {
		if groupDebug {
			fmt.Fprintf(os.Stderr, "groupdebug: %v: group %s of %d members not emitted: %s\n",
				f.pkg.fset.Position(ms[len(ms)-1].acc.Pos), st.Field(run[0]).Name()+".."+st.Field(run[len(run)-1]).Name(), len(ms), why)
		}
		return nil
	}
	// The anchor: the last member of the group's kind whose wrapper is
	// emitted (not left out as redundant), one-to-one, in a sync-free
	// statement. Members after it are checked by it or by their own
	// RedCard anchor.
	ai := -1
	for i := len(ms) - 1; i >= 0; i-- {
		k := ms[i].key
		if ms[i].acc.Write == write && f.oneToOne(k) && !f.drop[k] && !taken[k] && inSyncFreeUnit(f.units, k.pos) {
			ai = i
			break
		}
	}
	if ai < 0 {
		if groupDebug {
			for _, m := range ms {
				fmt.Fprintf(os.Stderr, "groupdebug:   member %v write=%v emitted=%d ssa=%d dropped=%v syncfree=%v\n", f.pkg.fset.Position(m.key.pos), m.acc.Write, f.emitted[m.key], len(f.pkg.ssaAcc[m.key]), f.drop[m.key], inSyncFreeUnit(f.units, m.key.pos))
			}
		}
		return debug("no member of its kind is emitted one-to-one in a sync-free statement")
	}
	anchor := ms[ai]
	// The anchor's selector names its field directly (not promoted through
	// an embedded field), on an operand of the group's struct type: the
	// offsets are written as unsafe.Offsetof((x).f) with the anchor's x.
	sel := f.selectors[anchor.key.pos]
	if sel == nil {
		return debug("anchor is not a selector")
	}
	if s := f.info.Selections[sel]; s == nil || s.Kind() != types.FieldVal || len(s.Index()) != 1 || !types.Identical(derefStruct(s.Recv()), st) {
		return debug("anchor's field is promoted or of another struct")
	}
	// Every field of the run must be accessed (of the group's kind) by a
	// member: the check is legitimate only for accessed memory.
	for _, fi := range run {
		found := false
		for _, m := range ms {
			found = found || m.field == fi
		}
		if !found {
			return debug("a field of the run is not accessed")
		}
	}
	lo, hi := ms[0].index, ms[len(ms)-1].index
	if lo < 0 || hi < 0 {
		return debug("member not found in its block")
	}
	if why := f.pkg.facts.SpanUnsafe(b, lo, hi); why != "" {
		return debug(why)
	}
	g := &fieldGroup{write: write, first: st.Field(run[0]).Name(), last: st.Field(run[len(run)-1]).Name(), anchor: anchor.key,
		st: st, run: run, accesses: ms}
	for i, m := range ms {
		if i == ai || m.key == anchor.key || taken[m.key] {
			continue
		}
		if !f.oneToOne(m.key) || !inSyncFreeUnit(f.units, m.key.pos) || f.groups[m.key] != nil {
			continue // keeps its own check
		}
		if !f.justifiedWithin(m.key, ms) {
			continue // a RedCard drop elsewhere relies on its check
		}
		g.members = append(g.members, m.key)
	}
	if len(g.members) == 0 {
		return debug("no member besides the anchor can be left out")
	}
	return g
}

// justifiedWithin reports whether every wrapper left out because the
// check at k covers it is a member of the group ms (so the group check,
// which covers the same field within the same synchronization-free span,
// covers it too).
func (f *fileRedcard) justifiedWithin(k siteKey, ms []member) bool {
	for _, j := range f.usedAnchors[k] {
		found := false
		for _, m := range ms {
			found = found || m.key == j
		}
		if !found {
			return false
		}
	}
	return true
}

// derefStruct is the struct type of t or *t, or nil.
func derefStruct(t types.Type) *types.Struct {
	if p, ok := t.Underlying().(*types.Pointer); ok {
		t = p.Elem()
	}
	st, _ := t.Underlying().(*types.Struct)
	return st
}

// structOf is the struct type the members' fields belong to.
func structOf(ms []member) *types.Struct {
	if len(ms) == 0 {
		return nil
	}
	fa := placement.AddrOf(ms[0].acc.Instr).(*ssa.FieldAddr)
	st, _ := fa.X.Type().Underlying().(*types.Pointer).Elem().Underlying().(*types.Struct)
	return st
}

// groupableBase reports whether fa is a field of a struct type that
// mentions no type parameter (unsafe.Offsetof must be a constant).
func groupableBase(fa *ssa.FieldAddr) bool {
	pt, ok := fa.X.Type().Underlying().(*types.Pointer)
	if !ok {
		return false
	}
	_, ok = pt.Elem().Underlying().(*types.Struct)
	return ok && !mentionsTypeParam(pt.Elem(), map[types.Type]bool{})
}

func mentionsTypeParam(t types.Type, seen map[types.Type]bool) bool {
	if seen[t] {
		return false
	}
	seen[t] = true
	switch t := t.(type) {
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
	case *types.Signature, *types.Interface, *types.Basic:
	}
	return false
}

func containsInt(xs []int, x int) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// inFile reports whether pos is in the file being rendered.
func (f *fileRedcard) inFile(pos token.Pos) bool {
	return f.file != nil && f.file.Pos() <= pos && pos <= f.file.End()
}

// groupWrap returns the group check of the anchor e (a selector whose
// in-place wrapper of kind write it replaces), rendered around inner, or
// "" if e anchors no group.
func (r *fileRewriter) groupWrap(e ast.Expr, inner string, write bool) string {
	if r.rc == nil || r.rc.groups == nil {
		return ""
	}
	sel, ok := ast.Unparen(e).(*ast.SelectorExpr)
	if !ok {
		return ""
	}
	g := r.rc.groups[siteKey{sel.Sel.Pos(), write}]
	if g == nil {
		return ""
	}
	r.usesUnsafe = true
	x := "(" + r.text(sel.X) + ")"
	off := func(name string) string { return "__bfu.Offsetof(" + x + "." + name + ")" }
	fn, state := rtName("RG"), r.g()
	if write {
		fn = "WG"
	}
	if fp := r.groupFootprint(sel, g, write); fp != "" {
		fn, state = "FG", fp
	}
	r.coverage = siteCoverage{sel.Pos(), r.rc.groupCoverage(g)}
	call := fn.ref() + "(" + state + ", &" + inner + ", " + off(sel.Sel.Name) + ", " + off(g.first) + ", " +
		off(g.last) + "+__bfu.Sizeof(" + x + "." + g.last + "), " + r.site(sel.Pos()) + ")"
	if write {
		return "*" + call
	}
	return "(*" + call + ")"
}
