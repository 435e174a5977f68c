package placement

import (
	"fmt"
	"go/types"
	"strings"

	"golang.org/x/tools/go/ssa"

	"github.com/bigfoot-go/bigfoot/mode"
	"github.com/bigfoot-go/bigfoot/placement/entail"
)

// analysis is the state of Analyze for one function.
type analysis struct {
	fn    *ssa.Function
	cfg   Config
	n     *namer
	canon map[ssa.Value]ssa.Value
	en    *entailer

	acc      map[ssa.Instruction][]*Access
	accesses []*Access
	loops    map[*ssa.BasicBlock]*loop
	facts    map[*ssa.BasicBlock][]entail.Fact

	antIn []*set // anticipated at block entry (nil: ⊤)
	hIn   []*set // history at block entry (nil: ⊤, not yet reached)
	hOut  []*set

	eager     map[int]bool   // accesses committed where they happen (refine)
	work      int            // block transfers so far, over all passes
	siteIDs   map[string]int // check sites by point, kind and path
	record    bool
	sites     []*site
	placed    map[int]bool
	redundant map[int][]int // access ID → sites whose check covers it
}

// A site is one (point, kind, path) check before coalescing.
type site struct {
	id    int
	at    Point
	path  Path
	write bool
	guard *guard
	ids   []int // accesses covered
	why   Reason
}

func (a *analysis) siteID(at Point, x *elem) int {
	k := fmt.Sprintf("%v %s %s %s", at, kindName(x.write), x.path.Key(), x.guard)
	id, ok := a.siteIDs[k]
	if !ok {
		id = len(a.sites)
		a.siteIDs[k] = id
		a.sites = append(a.sites, &site{id: id, at: at, path: x.path, write: x.write, guard: x.guard})
	}
	return id
}

// effects returns the synchronization effects of instr.
func (a *analysis) effects(instr ssa.Instruction) Effects {
	return a.cfg.Effects.Instr(instr)
}

// commit places checks of xs at at: it records the sites (in the recording
// pass) and adds the checks p✓ to h.
//
// A new check of a write also covers the unchecked past reads of its path
// (no acquire since them, or they would be checked); in the recording pass
// those reads are credited to it.
func (a *analysis) commit(h *set, xs []*elem, at Point, why Reason) {
	var prev []*elem
	if a.record && len(xs) > 0 {
		prev = a.unchecked(h, a.facts[at.Block])
	}
	defer func() {
		for _, y := range prev {
			c := *y
			c.checked = true
			if !a.en.entails(h, &c, a.facts[at.Block]) {
				continue
			}
			for _, sid := range a.coveringIDs(h, &c, a.facts[at.Block]) {
				a.sites[sid].ids = unionIDs(a.sites[sid].ids, y.ids)
			}
		}
	}()
	for _, x := range xs {
		id := a.siteID(at, x)
		if a.record {
			s := a.sites[id]
			a.placed[id] = true
			s.ids = unionIDs(s.ids, x.ids)
			s.why |= why
		}
		h.add(&elem{path: x.path, write: x.write, checked: true, guard: x.guard, ids: []int{id}})
	}
}

// unchecked returns the past accesses of h that no past check covers:
// {p : p◁ ∈ H, H ⊬ p✓} (Rhodes' thesis §3.3.3).
func (a *analysis) unchecked(h *set, facts []entail.Fact) []*elem {
	var out []*elem
	for _, x := range h.sorted() {
		if x.checked {
			continue
		}
		c := *x
		c.checked = true
		if !a.en.entails(h, &c, facts) {
			out = append(out, x)
		}
	}
	return out
}

func dropAll(h *set) {
	for k := range h.m {
		delete(h.m, k)
	}
}

// transfer runs the rules of Fig. 3.7 over block b from history h (which
// it does not modify) and returns the history at b's end.
func (a *analysis) transfer(b *ssa.BasicBlock, h *set) *set {
	h = h.clone()
	facts := a.facts[b]
	var antAfter []*set
	if a.cfg.Mode.DropsRedundant() {
		antAfter = a.anticipatedAfter(b)
	}
	for i, instr := range b.Instrs {
		if _, ok := instr.(*ssa.Phi); ok {
			continue
		}
		at := Point{Block: b, Index: i}
		why := BeforeSync
		if _, ok := instr.(ssa.CallInstruction); ok {
			why = BeforeCall
		}
		switch eff := a.effects(instr); eff {
		case Both:
			// [Call] with KillSetHistory {_◁, _✓} and an acquire: every
			// unchecked access is checked here.
			a.commit(h, a.unchecked(h, facts), at, why)
			dropAll(h)
		case Acquire:
			// [Acq]: check unchecked past accesses; they stay past
			// accesses, now checked (Rhodes' thesis §3.3.3).
			a.commit(h, a.unchecked(h, facts), at, why)
		case Release:
			// [Rel]: check unchecked past accesses not anticipated after
			// the release, then forget accesses and checks
			// (Rhodes' thesis §3.3.3).
			var xs, owed []*elem
			for _, x := range a.unchecked(h, facts) {
				if antAfter == nil || !a.en.anticipated(antAfter[i], x, facts) {
					xs = append(xs, x)
				} else {
					owed = append(owed, x)
				}
			}
			a.commit(h, xs, at, why)
			dropAll(h)
			for _, x := range owed {
				h.owe(x.path.Shape(), x.ids)
			}
		}
		switch instr.(type) {
		case *ssa.Store, *ssa.Call, *ssa.RunDefers:
			a.invalidate(h, instr, at, facts)
		}
		switch instr.(type) {
		case *ssa.Return:
			a.commit(h, a.unchecked(h, facts), at, BeforeReturn)
		case *ssa.Panic:
			a.commit(h, a.unchecked(h, facts), at, BeforePanic)
		}
		for _, acc := range a.acc[instr] {
			a.access(h, acc, b, i, facts, antAfter[i])
		}
	}
	return h
}

// access applies [Read]/[Write] (Rhodes' thesis §3.3.3) for one
// access: a covering past check makes it redundant; otherwise RedCard checks
// it in place and BigFoot records the past access p◁, extending a strided
// range of the same shape when the new index is adjacent to it.
//
// In RedCard mode a read followed by a write of the same location with no
// acquire in between (an anticipated write, ant) is left to the write's
// check, which covers it and is legitimate for the write: a
// read-modify-write needs one write check (§3.5).
func (a *analysis) access(h *set, acc *Access, b *ssa.BasicBlock, i int, facts []entail.Fact, ant *set) {
	x := &elem{path: acc.Path, write: acc.Write, ids: unionIDs([]int{acc.ID}, h.collect(acc.Path.Shape()))}
	chk := &elem{path: acc.Path, write: acc.Write, checked: true}
	if a.en.entails(h, chk, facts) {
		if a.record {
			for _, id := range x.ids {
				a.redundant[id] = unionIDs(a.redundant[id], a.coveringIDs(h, chk, facts))
			}
		}
		return
	}
	// An access whose own instruction may redirect its extended path (a
	// store to n.next.next when n.next may be n) is checked in place,
	// before the instruction, while the path still designates it.
	selfRedirect := a.invalidates(acc.Instr, acc.Path)
	if a.cfg.Mode == mode.RedCard || selfRedirect {
		if !selfRedirect && !x.write && a.en.anticipated(ant, &elem{path: x.path, write: true}, facts) {
			h.add(x)
			return
		}
		if old, ok := h.m[(&elem{path: x.path}).key()]; ok {
			x.ids = unionIDs(x.ids, old.ids)
			h.remove(old)
		}
		at := Point{Block: b, Index: i}
		if v, ok := acc.Instr.(ssa.Value); ok && mentions(acc.Path, v, a.n) {
			at.Index++ // append's write names its result
		}
		a.commit(h, []*elem{x}, at, AtAccess)
		return
	}
	if a.eager[acc.ID] {
		defer a.commitEager(h, acc, b, i)
	}
	if !x.write {
		w := &elem{path: x.path, write: true}
		if y, ok := h.m[w.key()]; ok {
			y.ids = unionIDs(y.ids, x.ids)
			return
		}
	}
	if y, ok := h.m[x.key()]; ok {
		y.ids = unionIDs(y.ids, x.ids)
		return
	}
	if j := x.path.index(); j >= 0 && !derefAfter(x.path, j) {
		st := x.path.Steps[j]
		single := st.Stride == 1 && st.Hi.Equal(st.Lo.AddConst(1))
		for _, y := range h.sorted() {
			if y.checked || y.guard != nil || y.write != x.write || y.path.Shape() != x.path.Shape() || !sameButLast(y.path, x.path) {
				continue
			}
			ys := y.path.Steps[j]
			if a.en.contains(y.path, x.path, facts) {
				y.ids = unionIDs(y.ids, x.ids)
				return
			}
			if !single {
				continue
			}
			var grown Path
			switch {
			case !a.congruent(st.Lo, ys.Lo, ys.Stride):
				continue // a[lo..hi:k] selects the indices ≡ lo (mod k) only
			case a.equal(ys.Hi, st.Lo, facts) || ys.Stride > 1 && a.equal(ys.Hi.AddConst(ys.Stride-1), st.Lo, facts):
				grown = y.path.withRange(j, ys.Lo, st.Lo.AddConst(ys.Stride), ys.Stride)
			case a.equal(ys.Lo.AddConst(-ys.Stride), st.Lo, facts):
				grown = y.path.withRange(j, st.Lo, ys.Hi, ys.Stride)
			default:
				continue
			}
			h.remove(y)
			h.add(&elem{path: grown, write: y.write, ids: unionIDs(y.ids, x.ids)})
			return
		}
	}
	h.add(x)
}

// invalidates reports whether instr may change the object a deref step of
// p designates (the alias fact behind an extended path, Rhodes'
// thesis §3.4): a store to the loaded location or one that may alias it
// (mayAlias), or a call or builtin that may write memory.
func (a *analysis) invalidates(instr ssa.Instruction, p Path) bool {
	var deref []int
	for i, st := range p.Steps {
		if st.IsDeref() {
			deref = append(deref, i)
		}
	}
	if len(deref) == 0 {
		return false
	}
	switch in := instr.(type) {
	case *ssa.Store:
		for _, acc := range a.acc[instr] {
			k := acc.Path.Key()
			for _, i := range deref {
				loc := Path{Base: p.Base, Steps: p.Steps[:i]}
				lk := loc.render(false, true)
				if lk == k || strings.HasPrefix(lk, k+".") || strings.HasPrefix(lk, k+"[") || strings.HasPrefix(lk, k+"→") ||
					mayAlias(acc.Path, loc, in.Val.Type(), p.Steps[i].Loaded) {
					return true
				}
			}
		}
	case *ssa.Call:
		if b, ok := in.Call.Value.(*ssa.Builtin); ok {
			switch b.Name() {
			case "copy", "clear", "append":
				s, ok := in.Call.Args[0].Type().Underlying().(*types.Slice)
				if !ok {
					return false // clear of a map writes no addressable memory
				}
				for _, i := range deref {
					loc := Path{Base: p.Base, Steps: p.Steps[:i]}
					if elemMayAlias(loc, s.Elem(), p.Steps[i].Loaded) {
						return true
					}
				}
			}
			return false
		}
		if fn := in.Call.StaticCallee(); fn != nil && isPure(fn) {
			return false
		}
		return true
	case *ssa.RunDefers:
		return true
	}
	return false
}

// mayAlias reports whether a store of a stored-typed value to path s may
// write the location l from which a deref step loads a loaded-typed value.
// Go's types separate memory: a field is written only through the same
// field of the same struct type, an element only through an element, and
// whole variables (*p) through a pointer of an identical type; storing a
// whole struct or array may write any part of it.
func mayAlias(s, l Path, stored, loaded types.Type) bool {
	switch stored.Underlying().(type) {
	case *types.Struct, *types.Array:
		return true
	}
	sl, ll := lastStep(s), lastStep(l)
	switch {
	case sl == nil || ll == nil || sl.IsDeref() || ll.IsDeref():
		return types.Identical(stored, loaded)
	case sl.Field >= 0 && ll.Field >= 0:
		return sl.Field == ll.Field && types.Identical(sl.Struct, ll.Struct)
	case sl.IsIndex() && ll.IsIndex():
		return types.Identical(stored, loaded)
	}
	return false
}

// elemMayAlias reports whether writing slice elements of type elem (copy,
// clear, append) may write the location l of a deref step.
func elemMayAlias(l Path, elem, loaded types.Type) bool {
	ll := lastStep(l)
	if ll != nil && ll.Field >= 0 {
		return false
	}
	return types.Identical(elem, loaded)
}

func lastStep(p Path) *Step {
	if len(p.Steps) == 0 {
		return nil
	}
	return &p.Steps[len(p.Steps)-1]
}

// invalidate checks the unchecked past accesses whose extended paths instr
// may redirect, then forgets them and the past checks of such paths.
func (a *analysis) invalidate(h *set, instr ssa.Instruction, at Point, facts []entail.Fact) {
	var xs []*elem
	for _, x := range a.unchecked(h, facts) {
		if a.invalidates(instr, x.path) {
			xs = append(xs, x)
		}
	}
	a.commit(h, xs, at, BeforeWrite)
	for k, e := range h.m {
		if a.invalidates(instr, e.path) {
			delete(h.m, k)
		}
	}
}

// commitEager checks, right after acc, the unchecked past accesses of
// acc's path (see refine).
func (a *analysis) commitEager(h *set, acc *Access, b *ssa.BasicBlock, i int) {
	var xs []*elem
	for _, x := range a.unchecked(h, a.facts[b]) {
		if x.path.Key() == acc.Path.Key() && x.guard == nil {
			xs = append(xs, x)
		}
	}
	a.commit(h, xs, Point{Block: b, Index: i + 1}, AtAccess)
}

// sameButLast reports whether p and q agree on every index step but the last.
func sameButLast(p, q Path) bool {
	last := p.index()
	for i, s := range p.Steps {
		if s.IsIndex() && i != last && (!s.Lo.Equal(q.Steps[i].Lo) || !s.Hi.Equal(q.Steps[i].Hi) || s.Stride != q.Steps[i].Stride) {
			return false
		}
	}
	return true
}

func (a *analysis) equal(x, y entail.Term, facts []entail.Fact) bool {
	return x.Equal(y) || a.en.holds(facts, entail.Eq(x, y))
}

// coveringIDs returns the sites of the checks in h that cover x.
func (a *analysis) coveringIDs(h *set, x *elem, facts []entail.Fact) []int {
	var ids []int
	for _, y := range h.m {
		if !y.checked || x.write && !y.write || y.path.Shape() != x.path.Shape() {
			continue
		}
		if y.path.Key() == x.path.Key() || x.path.index() >= 0 && a.en.contains(y.path, x.path, facts) {
			ids = unionIDs(ids, y.ids)
		}
	}
	return ids
}

// translate renames x from the end of p to the entry of s, the [Rename]
// rule at a φ (Rhodes' thesis §3.3.3): an old value of a φ of s that
// is φ+r on this edge (an induction variable on a back edge) becomes φ-r,
// a value that reaches s only as a φ's incoming value becomes that φ, and
// values that mean nothing in s make x untranslatable (ok == false).
func (a *analysis) translate(x *elem, p, s *ssa.BasicBlock) (*elem, bool) {
	idx := predIndex(s, p)
	base := x.path.Base
	if phi, ok := base.(*ssa.Phi); ok && phi.Block() == s {
		return nil, false
	}
	if !available(base, s) {
		phi := incomingPhi(s, idx, base)
		if phi == nil {
			return nil, false
		}
		base = phi
	}
	q := x.path
	q.Base = base
	q.Steps = append([]Step(nil), x.path.Steps...)
	for i, st := range q.Steps {
		if !st.IsIndex() {
			continue
		}
		lo, ok1 := a.rename(st.Lo, p, s)
		hi, ok2 := a.rename(st.Hi, p, s)
		if !ok1 || !ok2 {
			return nil, false
		}
		q.Steps[i].Lo, q.Steps[i].Hi = lo, hi
	}
	q.finish()
	y := *x
	y.path = q
	y.ids = append([]int(nil), x.ids...)
	if x.guard != nil {
		lo, ok1 := a.rename(x.guard.lo, p, s)
		hi, ok2 := a.rename(x.guard.hi, p, s)
		if !ok1 || !ok2 {
			return nil, false
		}
		y.guard = &guard{lo, hi}
	}
	return &y, true
}

func incomingPhi(s *ssa.BasicBlock, idx int, v ssa.Value) *ssa.Phi {
	for _, phi := range phisOf(s) {
		if phi.Edges[idx] == v {
			return phi
		}
	}
	return nil
}

// rename translates term t from the end of p to the entry of s (see
// translate).
func (a *analysis) rename(t entail.Term, p, s *ssa.BasicBlock) (entail.Term, bool) {
	idx := predIndex(s, p)
	r := entail.Const(t.Const)
	for _, m := range t.Monos {
		v := a.n.atom(m.Var)
		var repl entail.Term
		switch {
		case a.n.lens[m.Var]:
			if !available(v, s) || isPhiOf(v, s) {
				phi := incomingPhi(s, idx, v)
				if phi == nil {
					return t, false
				}
				repl = a.n.length(phi)
			} else {
				repl = entail.Var(m.Var)
			}
		case isPhiOf(v, s):
			phi := v.(*ssa.Phi)
			d := a.n.termOf(phi.Edges[idx]).Sub(entail.Var(m.Var))
			if containsVar(d, m.Var) || !a.availableTerm(d, s) || mentionsPhiOf(a, d, s) {
				return t, false
			}
			repl = entail.Var(m.Var).Sub(d)
		case available(v, s):
			repl = entail.Var(m.Var)
		default:
			phi := incomingPhi(s, idx, v)
			if phi == nil {
				return t, false
			}
			repl = a.n.termOf(phi)
		}
		r = r.Add(repl.Scale(m.Coef))
	}
	return r, true
}

// renameFacts translates the facts of p that survive to the entry of s; on
// a back edge, i < n at the latch becomes i-1 < n at the header.
func (a *analysis) renameFacts(fs []entail.Fact, p, s *ssa.BasicBlock) []entail.Fact {
	var out []entail.Fact
	for _, f := range fs {
		if t, ok := a.rename(f.T, p, s); ok {
			out = append(out, entail.Fact{Op: f.Op, T: t})
		}
	}
	return out
}

func mentionsPhiOf(a *analysis, t entail.Term, s *ssa.BasicBlock) bool {
	for _, v := range t.Vars() {
		if isPhiOf(a.n.atom(v), s) {
			return true
		}
	}
	return false
}

func isPhiOf(v ssa.Value, s *ssa.BasicBlock) bool {
	phi, ok := v.(*ssa.Phi)
	return ok && phi.Block() == s
}

func phisOf(b *ssa.BasicBlock) []*ssa.Phi {
	var out []*ssa.Phi
	for _, instr := range b.Instrs {
		phi, ok := instr.(*ssa.Phi)
		if !ok {
			break
		}
		out = append(out, phi)
	}
	return out
}

// translateBack renames an anticipated access from the entry of s to the
// end of its predecessor p: [Assign] for a φ, A[φ := incoming]
// (Rhodes' thesis §3.3.3).
func (a *analysis) translateBack(x *elem, p, s *ssa.BasicBlock) (*elem, bool) {
	idx := predIndex(s, p)
	q := x.path
	if phi, ok := q.Base.(*ssa.Phi); ok && phi.Block() == s {
		q.Base = canonical(phi.Edges[idx], a.canon)
		if _, isConst := q.Base.(*ssa.Const); isConst {
			return nil, false
		}
	}
	q.Steps = append([]Step(nil), x.path.Steps...)
	sub := func(t entail.Term) entail.Term {
		r := entail.Const(t.Const)
		for _, m := range t.Monos {
			v := a.n.atom(m.Var)
			repl := entail.Var(m.Var)
			if isPhiOf(v, s) {
				in := v.(*ssa.Phi).Edges[idx]
				if a.n.lens[m.Var] {
					repl = a.n.length(in)
				} else {
					repl = a.n.termOf(in)
				}
			}
			r = r.Add(repl.Scale(m.Coef))
		}
		return r
	}
	for i, st := range q.Steps {
		if st.IsIndex() {
			q.Steps[i].Lo, q.Steps[i].Hi = sub(st.Lo), sub(st.Hi)
		}
	}
	q.finish()
	y := *x
	y.path = q
	return &y, true
}

// cut reports whether the edge p→s enters or repeats a loop without a trip
// bound: anticipation does not flow backwards across it and history does
// not carry unchecked accesses into it (see doc.go, "Termination").
func (a *analysis) cut(p, s *ssa.BasicBlock) bool {
	l := a.loops[s]
	return l != nil && !l.bounded
}

// anticipatedEdge returns A at the end of p contributed by successor s.
func (a *analysis) anticipatedEdge(p, s *ssa.BasicBlock) *set {
	in := a.antIn[s.Index]
	if in == nil {
		return nil
	}
	out := newSet()
	if a.cut(p, s) {
		return out
	}
	for _, x := range in.sorted() {
		if y, ok := a.translateBack(x, p, s); ok {
			out.add(y)
		}
	}
	return out
}

// anticipatedOut meets the anticipated sets of b's successors: an access
// is anticipated if every successor anticipates it (kinds: a write only if
// all anticipate a write).
func (a *analysis) anticipatedOut(b *ssa.BasicBlock) *set {
	if len(b.Succs) == 0 {
		return newSet()
	}
	var res *set
	for _, s := range b.Succs {
		e := a.anticipatedEdge(b, s)
		if e == nil {
			continue
		}
		if res == nil {
			res = e
			continue
		}
		next := newSet()
		for _, x := range res.sorted() {
			for _, y := range e.sorted() {
				if y.path.Key() == x.path.Key() {
					next.add(&elem{path: x.path, write: x.write && y.write})
				}
			}
		}
		res = next
	}
	return res
}

// stepBack computes A before instr from A after it: an acquire empties it
// ([Acq]: Rhodes' thesis §3.3.3), a definition removes paths naming
// the defined value ([Read]: A \ x), an access adds p◇.
func (a *analysis) stepBack(instr ssa.Instruction, after *set) *set {
	if after == nil {
		return nil
	}
	switch instr.(type) {
	case *ssa.Return, *ssa.Panic:
		return newSet()
	case *ssa.Phi:
		return after
	}
	if a.effects(instr)&Acquire != 0 {
		return newSet()
	}
	out := after.clone()
	for k, x := range out.m {
		if a.invalidates(instr, x.path) {
			delete(out.m, k)
		}
	}
	v, isValue := instr.(ssa.Value)
	if isValue {
		for k, x := range out.m {
			if mentions(x.path, v, a.n) {
				delete(out.m, k)
			}
		}
	}
	for _, acc := range a.acc[instr] {
		if isValue && mentions(acc.Path, v, a.n) {
			continue
		}
		x := &elem{path: acc.Path, write: acc.Write}
		if acc.Write {
			r := &elem{path: acc.Path}
			out.remove(r)
		} else if _, ok := out.m[(&elem{path: acc.Path, write: true}).key()]; ok {
			continue
		}
		out.add(x)
	}
	return out
}

// anticipatedAfter returns A after each instruction of b.
func (a *analysis) anticipatedAfter(b *ssa.BasicBlock) []*set {
	res := make([]*set, len(b.Instrs))
	cur := a.anticipatedOut(b)
	for i := len(b.Instrs) - 1; i >= 0; i-- {
		res[i] = cur
		cur = a.stepBack(b.Instrs[i], cur)
	}
	return res
}

// anticipate computes A at every block entry: the backward pass, a greatest
// fixed point from ⊤.
func (a *analysis) anticipate() bool {
	a.antIn = make([]*set, len(a.fn.Blocks))
	limit := a.maxVisits()
	for changed, n := true, 0; changed; n++ {
		if n > limit {
			return false
		}
		changed = false
		for i := len(a.fn.Blocks) - 1; i >= 0; i-- {
			b := a.fn.Blocks[i]
			cur := a.anticipatedOut(b)
			for j := len(b.Instrs) - 1; j >= 0; j-- {
				cur = a.stepBack(b.Instrs[j], cur)
			}
			if !cur.equal(a.antIn[i], false) {
				a.antIn[i] = cur
				changed = true
			}
		}
	}
	for i, s := range a.antIn {
		if s == nil {
			a.antIn[i] = newSet() // no path to an exit: anticipate nothing
		}
	}
	return true
}

func (a *analysis) maxVisits() int {
	if a.cfg.MaxVisits > 0 {
		return a.cfg.MaxVisits
	}
	return 50
}

// edgePoint returns where checks for the edge p→s go: at the end of p if
// it has one successor, at the start of s if it has one predecessor, else
// on the (critical) edge.
func edgePoint(p, s *ssa.BasicBlock) Point {
	if len(p.Succs) == 1 {
		return Point{Block: p, Index: len(p.Instrs) - 1}
	}
	if len(s.Preds) == 1 {
		i := 0
		for i < len(s.Instrs) {
			if _, ok := s.Instrs[i].(*ssa.Phi); !ok {
				break
			}
			i++
		}
		return Point{Block: s, Index: i}
	}
	return Point{Block: p, Index: len(p.Instrs) - 1, Edge: s}
}

// merge computes the history at the entry of s from its predecessors, the
// join of [If] and [Loop] (Rhodes' thesis §3.3.3): translate each
// predecessor's history, meet them (keeping what every predecessor entails,
// including the loop-invariant candidates at a header), and check on each
// incoming edge the past accesses the meet forgets, unless anticipated:
// Checks(H, H', A). It returns nil (⊤) if no predecessor was reached.
func (a *analysis) merge(s *ssa.BasicBlock) *set {
	type in struct {
		p     *ssa.BasicBlock
		out   *set
		tr    *set
		lost  []*elem
		facts []entail.Fact
	}
	var ins []*in
	sFacts := a.facts[s]
	for _, p := range s.Preds {
		out := a.hOut[p.Index]
		if out == nil {
			continue
		}
		facts := append(append([]entail.Fact(nil), sFacts...), a.edgeFacts(p, s)...)
		facts = append(facts, a.renameFacts(a.facts[p], p, s)...)
		x := &in{p: p, out: out, tr: newSet(), facts: facts}
		for _, e := range out.sorted() {
			if y, ok := a.translate(e, p, s); ok && !(a.cut(p, s) && !e.checked) {
				x.tr.add(y)
			} else if !e.checked {
				x.lost = append(x.lost, e)
			}
		}
		ins = append(ins, x)
	}
	if len(ins) == 0 {
		return nil
	}
	var cands []*elem
	if l := a.loops[s]; l != nil && a.cfg.Mode == mode.BigFoot {
		if !l.seeded {
			l.cands, l.seeded = a.candidates(l), true
		}
		cands = l.cands
	}
	meet := func() *set {
		res := newSet()
		// At a loop header the invariant is drawn from H_heuristic only:
		// what enters the loop and the seeded candidates
		// (Rhodes' thesis §3.5.1), never the back edges'
		// renamed histories, so the iteration descends and ends.
		var union []*elem
		l := a.loops[s]
		for _, x := range ins {
			if l == nil || !l.body[x.p] {
				union = append(union, x.tr.sorted()...)
			}
		}
		union = append(union, cands...)
		for _, e := range union {
			if _, done := res.m[e.key()]; done {
				continue
			}
			all := true
			for _, x := range ins {
				if !a.en.entails(x.tr, e, x.facts) {
					all = false
					break
				}
			}
			if !all {
				continue
			}
			c := &elem{path: e.path, write: e.write, checked: e.checked, guard: e.guard}
			for _, x := range ins {
				for _, y := range x.tr.m {
					if y.checked == c.checked && y.write == c.write && y.path.Shape() == c.path.Shape() && (y.guard == nil || y.guard.String() == c.guard.String()) &&
						(y.path.Key() == c.path.Key() || c.path.index() >= 0 && a.en.contains(y.path, c.path, x.facts)) {
						c.ids = unionIDs(c.ids, y.ids)
					}
				}
			}
			res.add(c)
		}
		return res
	}
	pre := meet()
	owed := make(map[string][]int) // ids owed to anticipated accesses
	for _, x := range ins {
		for k, ids := range x.out.owed {
			owed[k] = unionIDs(owed[k], ids)
		}
	}
	for _, x := range ins {
		ant := a.anticipatedEdge(x.p, s)
		pFacts := a.facts[x.p]
		var forgotten []*elem
		lost := make(map[string]bool)
		for _, e := range x.lost {
			lost[e.key()] = true
		}
		for _, e := range a.unchecked(x.out, pFacts) {
			if !lost[e.key()] {
				y, _ := a.translate(e, x.p, s)
				if a.en.entails(pre, y, x.facts) {
					continue
				}
			}
			if ant != nil && a.en.anticipated(ant, e, pFacts) {
				owed[e.path.Shape()] = unionIDs(owed[e.path.Shape()], e.ids)
				continue
			}
			forgotten = append(forgotten, e)
		}
		narrowed := forgotten[:0]
		for _, e := range forgotten {
			if !lost[e.key()] {
				e = a.remainder(e, x.p, s, pre, x.facts)
				if y, ok := a.translate(e, x.p, s); ok && a.en.entails(pre, y, x.facts) {
					continue // the rest is kept, e.g. by "a[i] if 0<j"
				}
			}
			narrowed = append(narrowed, e)
		}
		forgotten = narrowed
		if len(forgotten) == 0 {
			continue
		}
		why := AtMerge
		if l := a.loops[s]; a.cut(x.p, s) && !l.body[x.p] {
			why = LoopEntry
		}
		chk := newSet()
		a.commit(chk, forgotten, edgePoint(x.p, s), why)
		for _, e := range chk.sorted() {
			if y, ok := a.translate(e, x.p, s); ok {
				x.tr.add(y)
			}
		}
	}
	res := meet()
	a.normalize(res, sFacts)
	for k, ids := range owed {
		res.owe(k, ids)
	}
	return res
}

// remainder narrows a forgotten strided range to the part the merged
// history does not keep: a range grown by this iteration's access,
// a[lo..i+1] against a kept a[lo..i], needs a check of a[i] only, since the
// kept part is checked later by whoever checks a[lo..i]. Without this the
// whole range would be checked on every iteration.
func (a *analysis) remainder(e *elem, p, s *ssa.BasicBlock, pre *set, facts []entail.Fact) *elem {
	j := e.path.index()
	if j < 0 || e.guard != nil {
		return e
	}
	y, ok := a.translate(e, p, s)
	if !ok {
		return e
	}
	ys, es := y.path.Steps[j], e.path.Steps[j]
	k := es.Stride
	for _, z := range pre.sorted() {
		if z.checked || z.guard != nil || z.write != e.write || z.path.Shape() != y.path.Shape() || !sameButLast(z.path, y.path) {
			continue
		}
		zs := z.path.Steps[j]
		if zs.Stride != k && !(zs.Stride == 1 && k == 1) {
			continue
		}
		if !a.en.contains(y.path, z.path, facts) {
			continue
		}
		r := *e
		if d := ys.Hi.Sub(zs.Hi); a.equal(ys.Lo, zs.Lo, facts) && d.IsConst() && d.Const > 0 && d.Const%k == 0 {
			r.path = e.path.withRange(j, es.Hi.AddConst(-d.Const), es.Hi, k)
			return &r
		}
		if d := zs.Lo.Sub(ys.Lo); a.equal(ys.Hi, zs.Hi, facts) && d.IsConst() && d.Const > 0 && d.Const%k == 0 {
			r.path = e.path.withRange(j, es.Lo, es.Lo.AddConst(d.Const), k)
			return &r
		}
	}
	return e
}

// normalize removes the past accesses of h that another past access of
// the same kind subsumes (an unguarded property entails a guarded one; a
// range entails the indices it contains), crediting their accesses to it.
func (a *analysis) normalize(h *set, facts []entail.Fact) {
	for _, x := range h.sorted() {
		if x.checked {
			continue
		}
		for _, y := range h.sorted() {
			if y == x || y.checked || y.write != x.write || y.guard != nil && y.guard.String() != x.guard.String() ||
				y.path.Shape() != x.path.Shape() {
				continue
			}
			if x.guard == nil && y.guard == nil && y.path.Key() == x.path.Key() {
				continue
			}
			if y.path.Key() == x.path.Key() || x.path.index() >= 0 && a.en.contains(y.path, x.path, facts) {
				y.ids = unionIDs(y.ids, x.ids)
				h.remove(x)
				break
			}
		}
	}
}

// forward computes the history at every block entry: a greatest fixed
// point from ⊤ over the CFG.
func (a *analysis) forward() bool {
	nb := len(a.fn.Blocks)
	a.hIn = make([]*set, nb)
	a.hOut = make([]*set, nb)
	limit := a.maxVisits()
	order := reversePostorder(a.fn)
	for changed, n := true, 0; changed; n++ {
		if n > limit {
			return false
		}
		changed = false
		for _, b := range order {
			var h *set
			if b.Index == 0 || b == a.fn.Recover {
				h = newSet()
			} else {
				h = a.merge(b)
			}
			if h == nil {
				continue
			}
			a.hIn[b.Index] = h
			a.work++
			out := a.transfer(b, h)
			// The ids of past accesses (which accesses a check will
			// cover) only grow; past checks' site ids need not settle,
			// and after half the budget only the properties count.
			if !out.equal(a.hOut[b.Index], n < limit/2) {
				a.hOut[b.Index] = out
				changed = true
			}
		}
	}
	return true
}

// reversePostorder returns fn's reachable blocks in reverse postorder, the
// order in which a forward pass converges fastest.
func reversePostorder(fn *ssa.Function) []*ssa.BasicBlock {
	seen := make([]bool, len(fn.Blocks))
	var post []*ssa.BasicBlock
	var visit func(b *ssa.BasicBlock)
	visit = func(b *ssa.BasicBlock) {
		seen[b.Index] = true
		for _, s := range b.Succs {
			if !seen[s.Index] {
				visit(s)
			}
		}
		post = append(post, b)
	}
	visit(fn.Blocks[0])
	if fn.Recover != nil && !seen[fn.Recover.Index] {
		visit(fn.Recover)
	}
	for i, j := 0, len(post)-1; i < j; i, j = i+1, j-1 {
		post[i], post[j] = post[j], post[i]
	}
	return post
}

// recordPass reruns the transfer functions and merges once over the fixed
// point, recording the check sites.
func (a *analysis) recordPass() {
	a.record = true
	for _, b := range a.fn.Blocks {
		if a.hIn[b.Index] == nil {
			continue // unreachable
		}
		if b.Index != 0 && b != a.fn.Recover {
			a.merge(b)
		}
		a.transfer(b, a.hIn[b.Index])
	}
	a.record = false
}
