package placement

import (
	"fmt"
	"sort"

	"golang.org/x/tools/go/ssa"

	"github.com/bigfoot-go/bigfoot/placement/entail"
)

// An elem is one history property of §3.3.1 (Rhodes' thesis §3.3.1–§3.3.2):
// a past access p◁ (checked == false) or a past check p✓ (checked == true),
// of a read or a write (§3.5, Rhodes' thesis §3.5.1). In an
// anticipated set it is p◇ and checked is unused.
//
// For p◁, ids are the accesses the eventual covering check covers; for p✓
// they are the checks (site numbers) that established it, so that a later
// redundant access can be credited to them.
type elem struct {
	path    Path
	write   bool
	checked bool
	guard   *guard
	ids     []int
}

// A guard makes a property conditional: it holds only if lo < hi. The
// [Loop] heuristic uses it for accesses made on every iteration of a loop
// whose exit test comes first (Go's for loops): "b.f◁ if the loop ran",
// lo = init and hi = φ. The thesis gets the same effect by rotating loops
// into an if around a do-while (Rhodes' thesis §3.5); a guarded
// check is emitted as `if lo < hi { check }`.
type guard struct{ lo, hi entail.Term }

func (g *guard) String() string {
	if g == nil {
		return ""
	}
	return g.lo.String() + "<" + g.hi.String()
}

func (e *elem) key() string {
	k := "◁"
	if e.checked {
		k = "✓"
	}
	k += kindName(e.write) + " " + e.path.Key()
	if e.guard != nil {
		k += " if " + e.guard.String()
	}
	return k
}

// A set is a history H (past accesses and checks) or an anticipated set A.
// Boolean facts are not stored in sets: SSA values are defined once, so a
// branch condition holds in every block the branch's edge dominates; see
// blockFacts. A nil *set is ⊤, the start of the greatest-fixed-point
// iteration (Rhodes' thesis §3.5).
type set struct {
	m map[string]*elem
	// owed holds, by path shape, the accesses forgotten at a release
	// because a later access of the same location is anticipated: the
	// later access's check covers them ([Rel], Rhodes'
	// thesis §3.3.3). It is bookkeeping for Check.Covers only.
	owed map[string][]int
}

func newSet() *set { return &set{m: make(map[string]*elem), owed: make(map[string][]int)} }

// owe records ids as covered by the next check of a path of shape shape.
func (s *set) owe(shape string, ids []int) { s.owed[shape] = unionIDs(s.owed[shape], ids) }

// collect removes and returns the ids owed to paths of shape shape.
func (s *set) collect(shape string) []int {
	ids := s.owed[shape]
	delete(s.owed, shape)
	return ids
}

func (s *set) clone() *set {
	if s == nil {
		return nil
	}
	c := newSet()
	for k, e := range s.m {
		cp := *e
		cp.ids = append([]int(nil), e.ids...)
		c.m[k] = &cp
	}
	for k, ids := range s.owed {
		c.owed[k] = append([]int(nil), ids...)
	}
	return c
}

// sorted returns the elements in key order (deterministic output).
func (s *set) sorted() []*elem {
	if s == nil {
		return nil
	}
	ks := make([]string, 0, len(s.m))
	for k := range s.m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	out := make([]*elem, len(ks))
	for i, k := range ks {
		out[i] = s.m[k]
	}
	return out
}

// add inserts e, merging its ids into an equal element.
func (s *set) add(e *elem) {
	k := e.key()
	if old, ok := s.m[k]; ok {
		old.ids = unionIDs(old.ids, e.ids)
		return
	}
	cp := *e
	cp.ids = append([]int(nil), e.ids...)
	s.m[k] = &cp
}

func (s *set) remove(e *elem) { delete(s.m, e.key()) }

func (s *set) equal(t *set, withIDs bool) bool {
	if (s == nil) != (t == nil) {
		return false
	}
	if s == nil {
		return true
	}
	if len(s.m) != len(t.m) || len(s.owed) != len(t.owed) {
		return false
	}
	for k, e := range s.m {
		f, ok := t.m[k]
		if !ok || withIDs && !e.checked && len(e.ids) != len(f.ids) {
			return false
		}
	}
	if withIDs {
		for k, ids := range s.owed {
			if len(t.owed[k]) != len(ids) {
				return false
			}
		}
	}
	return true
}

func unionIDs(a, b []int) []int {
	if len(b) == 0 {
		return a
	}
	m := make(map[int]bool, len(a)+len(b))
	out := make([]int, 0, len(a)+len(b))
	for _, x := range append(append([]int(nil), a...), b...) {
		if !m[x] {
			m[x] = true
			out = append(out, x)
		}
	}
	sort.Ints(out)
	return out
}

// entailer decides the entailments H ⊢ h and H•A ⊢ a of §3.3.3
// (Rhodes' thesis §3.3.3) for paths: equal keys entail
// syntactically; an index range is entailed by a range of the same shape
// that contains it, or vacuously when it is empty, which the prover decides
// under the boolean facts in force.
type entailer struct {
	prover entail.Prover
	// congruent decides x ≡ y (mod k) (analysis.congruent); nil knows
	// constant differences only.
	congruent func(x, y entail.Term, k int64) bool
}

func (en *entailer) cong(x, y entail.Term, k int64) bool {
	if en.congruent != nil {
		return en.congruent(x, y, k)
	}
	d := x.Sub(y)
	return d.IsConst() && d.Const%k == 0
}

// holds asks facts ⊢ goal.
func (en *entailer) holds(facts []entail.Fact, goal entail.Fact) bool {
	if v, ok := goal.Eval(); ok {
		return v
	}
	return en.prover.Entails(facts, goal)
}

// empty reports whether some index step of p selects no index.
func (en *entailer) empty(p Path, facts []entail.Fact) bool {
	for _, s := range p.Steps {
		if s.IsIndex() && en.holds(facts, entail.Le(s.Hi, s.Lo)) {
			return true
		}
	}
	return false
}

// contains reports whether every location of x is a location of y; both
// have the same shape.
func (en *entailer) contains(y, x Path, facts []entail.Fact) bool {
	for i, xs := range x.Steps {
		if !xs.IsIndex() {
			continue
		}
		ys := y.Steps[i]
		if ys.Lo.Equal(xs.Lo) && ys.Hi.Equal(xs.Hi) && ys.Stride == xs.Stride {
			continue
		}
		single := xs.Hi.Equal(xs.Lo.AddConst(1))
		if ys.Stride != 1 {
			if ys.Stride != xs.Stride && !single || !en.cong(xs.Lo, ys.Lo, ys.Stride) {
				return false
			}
		}
		// x's last index, xs.Hi-xs.Stride when its length is a multiple of
		// its stride, must be below ys.Hi.
		end := xs.Hi
		if !single && xs.Stride != ys.Stride && en.cong(xs.Hi, xs.Lo, xs.Stride) {
			end = xs.Hi.AddConst(1 - xs.Stride)
		}
		if !en.holds(facts, entail.Le(ys.Lo, xs.Lo)) || !en.holds(facts, entail.Le(end, ys.Hi)) {
			return false
		}
	}
	return true
}

// entails reports whether s ⊢ x under facts. For past accesses the kinds
// must agree exactly: a pending write may not stand for a pending read
// (its write check would not be legitimate for the read, §3.5); a write
// check covers a read (Rhodes' thesis §3.5.1).
func (en *entailer) entails(s *set, x *elem, facts []entail.Fact) bool {
	if s == nil {
		return true // ⊤
	}
	if _, ok := s.m[x.key()]; ok {
		return true
	}
	if !x.checked && x.guard != nil && en.holds(facts, entail.Le(x.guard.hi, x.guard.lo)) {
		return true // the guard is false: nothing to entail
	}
	if !x.checked && en.empty(x.path, facts) {
		return true
	}
	shape, key := x.path.Shape(), x.path.Key()
	for _, y := range s.m {
		if y.checked != x.checked || y.path.Shape() != shape {
			continue
		}
		if x.checked && x.write && !y.write || !x.checked && x.write != y.write {
			continue
		}
		// An unguarded property entails a guarded one; a guarded one
		// entails where its guard holds.
		if y.guard != nil && y.guard.String() != x.guard.String() &&
			!en.holds(facts, entail.Lt(y.guard.lo, y.guard.hi)) {
			continue
		}
		if y.path.Key() == key || x.path.index() >= 0 && en.contains(y.path, x.path, facts) {
			return true
		}
	}
	return false
}

// anticipated reports whether H•A ⊢ p◇ for a past access x: a later access
// of x's locations, of a kind whose check covers x, is anticipated.
func (en *entailer) anticipated(a *set, x *elem, facts []entail.Fact) bool {
	if a == nil {
		return false
	}
	for _, y := range a.m {
		if x.write && !y.write || y.path.Shape() != x.path.Shape() {
			continue
		}
		if y.path.Key() == x.path.Key() || x.path.index() >= 0 && en.contains(y.path, x.path, facts) {
			return true
		}
	}
	return false
}

// mentions reports whether p refers to v.
func mentions(p Path, v ssa.Value, n *namer) bool {
	for _, w := range p.atoms(n) {
		if w == v {
			return true
		}
	}
	return false
}

// String prints e with its ids, for debugging.
func (e *elem) String() string { return e.key() + fmt.Sprint(e.ids) }
