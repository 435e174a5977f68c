package placement

import (
	"fmt"
	"runtime/debug"
	"sort"
	"time"

	"golang.org/x/tools/go/ssa"

	"github.com/bigfoot-go/bigfoot/mode"
	"github.com/bigfoot-go/bigfoot/placement/entail"
)

// Analyze computes the check placement for fn in cfg.Mode. It never fails:
// if the analysis cannot finish (no fixed point within the visit budget, or
// an internal error), the plan has a Fallback reason and one check per
// access.
func Analyze(fn *ssa.Function, cfg Config) (plan *Plan) {
	start := time.Now()
	plan = &Plan{Func: fn, Mode: cfg.Mode}
	defer func() { plan.Elapsed = time.Since(start) }()
	if len(fn.Blocks) == 0 {
		return plan
	}
	if cfg.Prover == nil {
		cfg.Prover = entail.NewCached(&entail.Linear{Fallback: entail.SharedZ3()})
	}
	a := &analysis{
		fn: fn, cfg: cfg, n: newNamer(fn, cfg.Safe), en: &entailer{prover: cfg.Prover},
		acc: make(map[ssa.Instruction][]*Access), siteIDs: make(map[string]int),
		placed: make(map[int]bool), redundant: make(map[int][]int),
	}
	a.en.congruent = a.congruent
	if cfg.Mode.DropsRedundant() {
		a.canon = a.aliases()
	}
	var dec *Decisions
	if cfg.Mode == mode.BigFoot {
		dec = cfg.Decisions
	}
	for _, b := range fn.Blocks {
		for _, instr := range b.Instrs {
			if c, ok := instr.(*ssa.Call); ok && dec.Call(c) != nil {
				plan.Calls = append(plan.Calls, dec.Call(c))
			}
			accs, local := accessesOf(instr, a.n, a.canon)
			plan.Local = append(plan.Local, local...)
			if dec.unpublishedAccess(instr) {
				plan.Unpublished = append(plan.Unpublished, accs...)
				continue
			}
			for _, acc := range accs {
				acc.ID = len(a.accesses)
				a.accesses = append(a.accesses, acc)
				a.acc[instr] = append(a.acc[instr], acc)
			}
		}
	}
	plan.Accesses = a.accesses
	plan.Copies = dec.copiesOf(fn)
	fallback := func(reason string) *Plan {
		plan.Fallback = reason
		plan.Checks = perAccess(a.accesses)
		return plan
	}
	if !cfg.Mode.DropsRedundant() {
		plan.Checks = perAccess(a.accesses)
		return plan
	}
	defer func() {
		if r := recover(); r != nil {
			plan = fallback(fmt.Sprintf("internal error: %v\n%s", r, debug.Stack()))
		}
	}()
	if irreducible(fn) {
		return fallback("irreducible control flow")
	}
	a.loops = a.findLoops()
	a.facts = make(map[*ssa.BasicBlock][]entail.Fact)
	for _, b := range fn.Blocks {
		a.facts[b] = a.blockFacts(b)
	}
	if !a.anticipate() {
		return fallback("anticipated accesses: no fixed point within the visit budget")
	}
	checks, ok := a.place(nil)
	if !ok {
		return fallback("history: no fixed point within the visit budget")
	}
	if cfg.Mode == mode.BigFoot && a.work < refineWork {
		checks = a.refine(checks)
	}
	plan.Checks = checks
	return plan
}

// place runs the forward pass and records the checks, committing the
// accesses in eager right where they happen.
func (a *analysis) place(eager map[int]bool) ([]*Check, bool) {
	a.eager = eager
	a.siteIDs = make(map[string]int)
	a.sites = nil
	a.placed = make(map[int]bool)
	a.redundant = make(map[int][]int)
	if !a.forward() {
		return nil, false
	}
	a.recordPass()
	return a.checks(), true
}

// maxRefine bounds the re-analyses of refine per function, and
// refineWork the work (block transfers, counted over all passes) after
// which it starts no new one. The budget is in work, not time, so that a
// plan does not depend on the machine's load.
const (
	maxRefine  = 8
	refineWork = 10000
)

// refine trades deferral for fewer static checks where deferral only
// duplicates a check. The rules defer every check to the points where its
// past access is forgotten, so an access followed by a branch whose arms
// forget it separately (one before a synchronization, one at the merge) is
// checked on every arm: the same dynamic cost, more code. Committing a
// past access right after the access that creates it is always legitimate
// and covering (no acquire or release can intervene), so refine tries it,
// greedily, for the first access of each path checked at two or more
// points, and keeps it when the plan has fewer checks. It never commits an
// access eagerly inside a loop that one of its deferred checks is outside
// of: that would trade one check after the loop for one per iteration.
func (a *analysis) refine(checks []*Check) []*Check {
	eager := make(map[int]bool)
	tried := make(map[int]bool)
	for n := 0; n < maxRefine && a.work < refineWork; n++ {
		cand := a.eagerCandidate(checks, tried)
		if cand < 0 {
			break
		}
		tried[cand] = true
		next := make(map[int]bool, len(eager)+1)
		for id := range eager {
			next[id] = true
		}
		next[cand] = true
		if cs, ok := a.place(next); ok && len(cs) < len(checks) {
			checks, eager = cs, next
		}
	}
	// The analysis state is the last pass's, which may be a rejected
	// one: nothing reads it after Analyze, which returns the checks.
	return checks
}

// eagerCandidate returns the first access (in block order) of a path whose
// checks are at several points, or -1.
func (a *analysis) eagerCandidate(checks []*Check, tried map[int]bool) int {
	points := make(map[string]map[string]bool) // path kind+key → points
	for _, c := range checks {
		for _, p := range c.Paths {
			k := kindName(c.Write) + p.Key()
			if points[k] == nil {
				points[k] = make(map[string]bool)
			}
			points[k][c.At.String()] = true
		}
	}
	for _, c := range checks {
		for _, p := range c.Paths {
			if len(points[kindName(c.Write)+p.Key()]) < 2 {
				continue
			}
			for _, acc := range c.Covers {
				if tried[acc.ID] || acc.Path.Key() != p.Key() || !a.sameLoops(acc, checks, p) {
					continue
				}
				return acc.ID
			}
		}
	}
	return -1
}

// sameLoops reports whether every loop containing acc also contains every
// check of path p.
func (a *analysis) sameLoops(acc *Access, checks []*Check, p Path) bool {
	b := acc.Instr.Block()
	for _, l := range a.loops {
		if !l.body[b] {
			continue
		}
		for _, c := range checks {
			for _, q := range c.Paths {
				if q.Key() == p.Key() && (!l.body[c.At.Block] || c.At.Edge != nil && !l.body[c.At.Edge]) {
					return false
				}
			}
		}
	}
	return true
}

// perAccess returns the fasttrack plan: each access checked where it is.
func perAccess(accs []*Access) []*Check {
	out := make([]*Check, 0, len(accs))
	for _, acc := range accs {
		b := acc.Instr.Block()
		i := indexOf(b, acc.Instr)
		if v, ok := acc.Instr.(ssa.Value); ok && mentions(acc.Path, v, acc.Path.names) {
			i++
		}
		out = append(out, &Check{At: Point{Block: b, Index: i}, Paths: []Path{acc.Path}, Write: acc.Write,
			Covers: []*Access{acc}, Why: AtAccess})
	}
	return out
}

func indexOf(b *ssa.BasicBlock, instr ssa.Instruction) int {
	for i, in := range b.Instrs {
		if in == instr {
			return i
		}
	}
	return -1
}

// checks turns the recorded sites into Checks: at each point, a read of a
// path also written there is dropped (the write check covers it and is
// legitimate for the write, §3.5), fields of one designator are coalesced
// into a field group and index ranges of one array into strided ranges
// (§3.4, coalesce.go).
func (a *analysis) checks() []*Check {
	type group struct {
		at    Point
		write bool
		sites []*site
	}
	var order []string
	groups := make(map[string]*group)
	var ids []int
	for id := range a.placed {
		ids = append(ids, id)
	}
	sort.Ints(ids)
	written := make(map[string]*site)
	for _, id := range ids {
		s := a.sites[id]
		if s.write {
			written[s.at.String()+" "+s.path.Key()+" "+s.guard.String()] = s
		}
	}
	siteCheck := make(map[int]*Check)
	for _, id := range ids {
		s := a.sites[id]
		if w, ok := written[s.at.String()+" "+s.path.Key()+" "+s.guard.String()]; ok && !s.write {
			w.ids = unionIDs(w.ids, s.ids)
			w.why |= s.why
			continue
		}
		k := fmt.Sprintf("%v %s %s %s", s.at, kindName(s.write), designatorKey(s.path), s.guard)
		g := groups[k]
		if g == nil {
			g = &group{at: s.at, write: s.write}
			groups[k] = g
			order = append(order, k)
		}
		g.sites = append(g.sites, s)
	}
	var out []*Check
	for _, k := range order {
		g := groups[k]
		for _, c := range a.coalesceGroup(g.at, g.write, g.sites) {
			out = append(out, c.check)
			for _, s := range c.sites {
				siteCheck[s.id] = c.check
			}
		}
	}
	// Resolve the dropped reads, then credit redundant accesses.
	for _, id := range ids {
		if siteCheck[id] == nil {
			if s := a.sites[id]; s != nil {
				if w, ok := written[s.at.String()+" "+s.path.Key()+" "+s.guard.String()]; ok {
					siteCheck[id] = siteCheck[w.id]
				}
			}
		}
	}
	for _, acc := range a.accesses {
		sids, ok := a.redundant[acc.ID]
		if !ok {
			continue
		}
		credited := false
		for _, sid := range sids {
			if c := siteCheck[sid]; c != nil && a.placed[sid] {
				credited = true
				if !containsAccess(c.Covers, acc) {
					c.Covers = append(c.Covers, acc)
					c.Why |= Merged
				}
			}
		}
		if credited {
			continue
		}
		// The past check's site ids went stale in the fixed point (they
		// need not converge; see forward): credit the placed checks of
		// the access's path instead.
		for _, id := range ids {
			s := a.sites[id]
			if c := siteCheck[id]; c != nil && (s.write || !acc.Write) && s.path.Shape() == acc.Path.Shape() &&
				(s.path.Key() == acc.Path.Key() || a.en.contains(s.path, acc.Path, a.facts[acc.Instr.Block()])) {
				if !containsAccess(c.Covers, acc) {
					c.Covers = append(c.Covers, acc)
					c.Why |= Merged
				}
			}
		}
	}
	for _, c := range out {
		sort.Slice(c.Covers, func(i, j int) bool { return c.Covers[i].ID < c.Covers[j].ID })
		for _, acc := range c.Covers {
			if acc.Instr.Block() != c.At.Block || indexOf(c.At.Block, acc.Instr) != c.At.Index {
				if c.Why&AtAccess == 0 {
					c.Why |= Moved
				}
			}
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		x, y := out[i].At, out[j].At
		if x.Block.Index != y.Block.Index {
			return x.Block.Index < y.Block.Index
		}
		if x.Index != y.Index {
			return x.Index < y.Index
		}
		return edgeIndex(x) < edgeIndex(y)
	})
	return out
}

func edgeIndex(p Point) int {
	if p.Edge == nil {
		return -1
	}
	return p.Edge.Index
}

func containsAccess(as []*Access, x *Access) bool {
	for _, a := range as {
		if a == x {
			return true
		}
	}
	return false
}

// designatorKey identifies the designator of p: everything but its last
// step, with the last step's kind (field or index) so that fields group
// with fields and ranges with ranges.
func designatorKey(p Path) string {
	n := len(p.Steps)
	if n == 0 || p.Map || p.Steps[n-1].IsDeref() {
		return p.Key()
	}
	q := p
	q.Steps = p.Steps[:n-1]
	q.finish()
	if p.Steps[n-1].IsIndex() {
		return q.Key() + "[]"
	}
	return q.Key() + ".{}"
}

type coalesced struct {
	check *Check
	sites []*site
}

func (a *analysis) coalesceGroup(at Point, write bool, sites []*site) []coalesced {
	mk := func(paths []Path, ss []*site, why Reason) coalesced {
		c := &Check{At: at, Paths: paths, Write: write}
		if g := ss[0].guard; g != nil {
			c.Guard = &Guard{Lo: g.lo, Hi: g.hi, names: a.n}
		}
		for _, s := range ss {
			why |= s.why
			for _, id := range s.ids {
				if !containsAccess(c.Covers, a.accesses[id]) {
					c.Covers = append(c.Covers, a.accesses[id])
				}
			}
			for _, st := range s.path.Steps {
				if st.IsIndex() && !(st.Stride == 1 && st.Hi.Equal(st.Lo.AddConst(1))) {
					why |= LoopRange
				}
			}
		}
		if len(c.Covers) > 1 {
			why |= Merged
		}
		c.Why = why
		return coalesced{c, ss}
	}
	if len(sites) == 1 {
		return []coalesced{mk([]Path{sites[0].path}, sites, 0)}
	}
	last := sites[0].path.Steps[len(sites[0].path.Steps)-1]
	if last.Field >= 0 {
		// One coalesced field path d.f1/…/fn.
		sort.Slice(sites, func(i, j int) bool {
			return sites[i].path.Steps[len(sites[i].path.Steps)-1].Field < sites[j].path.Steps[len(sites[j].path.Steps)-1].Field
		})
		paths := make([]Path, len(sites))
		for i, s := range sites {
			paths[i] = s.path
		}
		return []coalesced{mk(paths, sites, FieldGroup)}
	}
	// Index ranges of one array.
	j := len(sites[0].path.Steps) - 1
	var rs []strideRange
	for _, s := range sites {
		st := s.path.Steps[j]
		rs = append(rs, strideRange{Lo: st.Lo, Hi: st.Hi, Stride: st.Stride})
	}
	facts := a.facts[at.Block]
	merged := coalesceRanges(rs, oracle{a, facts})
	var out []coalesced
	for _, r := range merged {
		p := sites[0].path.withRange(j, r.Lo, r.Hi, r.Stride)
		var ss []*site
		for _, s := range sites {
			if a.en.contains(p, s.path, facts) {
				ss = append(ss, s)
			}
		}
		out = append(out, mk([]Path{p}, ss, 0))
	}
	return out
}

// oracle decides index relations for coalesceRanges under the facts of a check
// site.
type oracle struct {
	a     *analysis
	facts []entail.Fact
}

func (o oracle) Equal(x, y entail.Term) bool { return o.a.equal(x, y, o.facts) }

func (o oracle) Congruent(x, y entail.Term, k int64) bool { return o.a.congruent(x, y, k) }
