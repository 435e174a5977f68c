package placement

import (
	"cmp"
	"fmt"
	"go/ast"
	"go/token"
	"maps"
	"slices"
	"strings"

	"golang.org/x/tools/go/ssa"
)

// Merged static ranges (docs/placement.md, "Merged static ranges").
//
// The static ranges of one loop whose accesses are of one kind, through
// one operand and field, with indices c·i + b + δ that differ only in the
// constant δ, are held in one range of index step ±1 when the union of
// their elements is contiguous and each store of the extent only grows
// it (the coalescing of BigFoot's §3.4, Rhodes' thesis, applied to a
// loop's ranges):
//
//   - the δs are consecutive integers δmin..δmax, at least |S| of them (S
//     the index step per iteration, c times the loop's step), so that the
//     iterations' elements leave no hole;
//   - either every access is in one statement (src[i-1] + src[i] +
//     src[i+1]), or there are exactly |S| δs and the statements access
//     them in order from the range's growing end (dst[4*i], dst[4*i+1], …
//     in successive statements): after each statement the elements
//     accessed so far are contiguous and end at the stored extent.
//
// crypt's sixteen byte ranges of stride 8 become two contiguous ones,
// whose checks the shadow keeps coarse.
//
// A read that stores its extent itself (LoopSite.AtAccess, checked by
// the plan: not dropped, grouped or unpublished) stores the index after
// the elements of the range accessed so far, contiguous from the range's
// start, in the order the reads run (RangeMerge.Loads). A read that
// leaves a gap (sor's row[j+1] before row[j], in an ascending range)
// stores the extent without itself, and the read that closes the gap the
// extent with both: in between nothing may panic, or the first read would
// be lost. The merge holds only if every hazard of the statement
// (LoopSite.Hazards) runs before the first read (it lies in a read that
// stores its extent itself, a call, which runs in lexical order, and
// ends before the read does) or after the closing one (it is a call that
// starts after it, or the index or dereference of a plain assignment's
// target). A read whose check is left out, or that nothing after it may
// panic, joins the extent stored after the statement.

// A RangeMerge is the decision to hold the accesses of several static
// ranges of one loop in one range of index step ±1.
type RangeMerge struct {
	Loop  token.Pos
	Write bool
	// Members are the accesses the range holds (as LoopSite.Sites), in
	// source order; Delta is each one's constant index term δ.
	Members []SiteKey
	Delta   map[SiteKey]int64
	// First is a member at the range's first element: of the lowest δ
	// when the range grows upwards (Step 1), the highest when it grows
	// downwards (Step -1).
	First SiteKey
	Step  int64
	// After gives, for each statement holding members (by its
	// position; an if's condition's for an if), the member whose index
	// plus Step is the extent stored after it.
	After map[token.Pos]SiteKey
	// Loads gives each member read that stores the extent itself the
	// member whose index plus Step it stores.
	Loads map[SiteKey]SiteKey
	// Before are reads of other ranges of the loop that must store
	// their own extents themselves for the merge to hold: a hazard of a
	// member's statement lies in them, before a gap opens.
	Before []SiteKey
}

// loopAccess is an element access in a loop (loopSites.decide).
type loopAccess struct {
	ix   *ssa.IndexAddr
	acc  []ssa.Instruction // the address chain from ix, then the access
	key  SiteKey
	loop *loop // the innermost loop holding it
}

// A mergeCand is a set of accesses of one loop that a merged range may
// hold: the same kind, operand, field, coefficient and index but for its
// constant term. SitePlan.Decide decides it (decideMerge), once the
// plan knows which reads are checked.
type mergeCand struct {
	loop  token.Pos
	write bool
	step  int64 // S, the index step per iteration
	accs  []mergeAccess
	units map[token.Pos]*mergeUnit
}

type mergeAccess struct {
	key, bracket SiteKey // the access; its element's LoopSite
	delta        int64
	unit         token.Pos // its statement
	span         span      // its expression
}

// mergeUnit is what decideMerge needs of a statement of a loop body.
type mergeUnit struct {
	end     token.Pos
	calls   []callSpan
	targets map[token.Pos]bool // the brackets and stars of a plain assignment's targets
	reads   []mergeAccess      // the reads of admitted static ranges of the loop in it
}

type callSpan struct{ pos, end, lparen token.Pos }

// mergeCandidates groups the admitted element accesses of the loops of
// ls's function into candidates for merged ranges.
func (ls *loopSites) mergeCandidates() []*mergeCand {
	if ls.a == nil || len(ls.accs) == 0 {
		return nil
	}
	exprs := map[token.Pos]ast.Expr{}
	calls := map[token.Pos]bool{}
	for _, b := range ls.a.fn.Blocks {
		for _, in := range b.Instrs {
			if c, ok := in.(ssa.CallInstruction); ok && c.Pos().IsValid() {
				calls[c.Pos()] = true
			}
		}
	}
	cands := map[string]*mergeCand{}
	var order []string
	units := map[token.Pos]*mergeUnit{}
	unitOf := func(u ast.Node) *mergeUnit {
		if mu := units[u.Pos()]; mu != nil {
			return mu
		}
		mu := &mergeUnit{end: u.End(), targets: map[token.Pos]bool{}}
		if as, ok := u.(*ast.AssignStmt); ok && as.Tok == token.ASSIGN {
			for _, l := range as.Lhs {
				switch l := ast.Unparen(l).(type) {
				case *ast.IndexExpr:
					mu.targets[l.Lbrack] = true
				case *ast.StarExpr:
					mu.targets[l.Star] = true
				}
			}
		}
		ast.Inspect(u, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.FuncLit:
				return false
			case *ast.CallExpr:
				if calls[n.Lparen] {
					mu.calls = append(mu.calls, callSpan{n.Pos(), n.End(), n.Lparen})
				}
			case *ast.SelectorExpr:
				exprs[n.Sel.Pos()] = n
			case *ast.IndexExpr:
				exprs[n.Lbrack] = n
			}
			return true
		})
		units[u.Pos()] = mu
		return mu
	}
	for _, x := range ls.accs {
		bk := SiteKey{x.ix.Pos(), x.key.Write}
		s := ls.out[bk]
		u := ls.body.unit(x.key.Pos)
		if s == nil || s.Refused != "" || u == nil {
			continue
		}
		mu := unitOf(u)
		e := exprs[x.key.Pos]
		if e == nil {
			continue
		}
		ma := mergeAccess{key: x.key, bracket: bk, unit: u.Pos(), span: span{e.Pos(), e.End()}}
		if !x.key.Write && s.AtAccess {
			mu.reads = append(mu.reads, ma)
		}
		key, delta, ok := ls.mergeKey(x, s)
		if !ok {
			continue
		}
		ma.delta = delta
		c := cands[key]
		if c == nil {
			c = &mergeCand{loop: s.Loop, write: x.key.Write, step: s.Coef * s.Step, units: units}
			cands[key] = c
			order = append(order, key)
		}
		if !slices.ContainsFunc(c.accs, func(a mergeAccess) bool { return a.key == x.key }) {
			c.accs = append(c.accs, ma)
		}
	}
	var out []*mergeCand
	for _, k := range order {
		if c := cands[k]; len(c.accs) > 1 {
			out = append(out, c)
		}
	}
	return out
}

// mergeKey returns what the accesses a merged range holds have in common
// (the loop, the kind, the operand, the field, the index without its
// constant term and its coefficient), and the constant term δ; false if
// the access may merge with none: its index does not move in the loop,
// or an outer level of nested arrays does.
func (ls *loopSites) mergeKey(x loopAccess, s *LoopSite) (string, int64, bool) {
	if s.Coef == 0 {
		return "", 0, false
	}
	op, ok := ls.operandKey(x.ix.X, x.loop)
	if !ok {
		return "", 0, false
	}
	t := ls.a.n.termOf(x.ix.Index)
	delta := t.Const
	base := t.AddConst(-delta)
	var b strings.Builder
	fmt.Fprintf(&b, "%d|%v|%s|%s|%d", s.Loop, x.key.Write, op, base, s.Coef)
	for _, in := range x.acc[1 : len(x.acc)-1] {
		switch in := in.(type) {
		case *ssa.FieldAddr:
			fmt.Fprintf(&b, ".%d", in.Field)
		case *ssa.IndexAddr:
			fmt.Fprintf(&b, "[%s]", ls.a.n.termOf(in.Index))
		}
	}
	return b.String(), delta, true
}

// operandKey names the slice or array pointer v an element address
// indexes: equal keys are equal values through l (LoopSites admits only
// operands stable through the loop). An outer level of nested arrays
// must not move in l.
func (ls *loopSites) operandKey(v ssa.Value, l *loop) (string, bool) {
	switch x := v.(type) {
	case *ssa.UnOp:
		if x.Op == token.MUL {
			k, ok := ls.operandKey(x.X, l)
			return "*" + k, ok
		}
	case *ssa.FieldAddr:
		k, ok := ls.operandKey(x.X, l)
		return fmt.Sprintf("%s.%d", k, x.Field), ok
	case *ssa.IndexAddr:
		if c, _, why := ls.affine(x.Index, l); c != 0 || why != "" {
			return "", false
		}
		k, ok := ls.operandKey(x.X, l)
		return k + "[" + ls.a.n.termOf(x.Index).String() + "]", ok
	}
	return valueKey(v), true
}

// decideMerge decides the candidate c given which sites the plan checks
// (checked), or returns nil. See the top of the file.
func (p *SitePlan) decideMerge(c *mergeCand, checked func(SiteKey) bool) *RangeMerge {
	var accs []mergeAccess
	for _, a := range c.accs {
		if s := p.loops[a.bracket]; s != nil && s.Refused == "" && s.Loop == c.loop {
			accs = append(accs, a)
		}
	}
	slices.SortFunc(accs, func(a, b mergeAccess) int { return a.key.compare(b.key) })
	byDelta := map[int64]mergeAccess{}
	var units []token.Pos
	for _, a := range accs {
		if _, ok := byDelta[a.delta]; !ok {
			byDelta[a.delta] = a
		}
		if !slices.Contains(units, a.unit) {
			units = append(units, a.unit)
		}
	}
	if len(byDelta) < 2 {
		return nil
	}
	slices.Sort(units)
	lo, hi := slices.Min(slices.Collect(maps.Keys(byDelta))), slices.Max(slices.Collect(maps.Keys(byDelta)))
	width, S := hi-lo+1, abs(c.step)
	if int64(len(byDelta)) != width || width < S || len(units) > 1 && width != S {
		return nil
	}
	m := &RangeMerge{Loop: c.loop, Write: c.write, Delta: map[SiteKey]int64{}, After: map[token.Pos]SiteKey{}, Loads: map[SiteKey]SiteKey{}}
	first, dir := byDelta[lo], int64(1)
	if c.step < 0 {
		first, dir = byDelta[hi], -1
	}
	m.First, m.Step = first.key, dir
	for _, a := range accs {
		m.Members = append(m.Members, a.key)
		m.Delta[a.key] = a.delta
	}
	// last is the end of the elements in seen contiguous from the
	// range's start, or false if seen has one before it is seen.
	last := func(seen map[int64]bool) (int64, bool) {
		if !seen[first.delta] {
			return 0, false
		}
		l := first.delta
		for seen[l+dir] {
			l += dir
		}
		return l, true
	}
	seen := map[int64]bool{}
	for _, u := range units {
		for _, a := range accs {
			if a.unit == u {
				seen[a.delta] = true
			}
		}
		l, ok := last(seen)
		if !ok || int64(len(seen)) != abs(l-first.delta)+1 {
			return nil // a hole in the elements accessed so far
		}
		m.After[u] = byDelta[l].key
	}
	load := func(a mergeAccess) bool { return !a.key.Write && p.loops[a.bracket].AtAccess && checked(a.key) }
	if !slices.ContainsFunc(accs, load) {
		return m
	}
	seen = map[int64]bool{}
	for _, u := range units {
		// The loads in the order they run, then the reads joining the
		// extent stored at the statement's end.
		var seq []mergeAccess
		var plain []mergeAccess
		for _, a := range accs {
			switch {
			case a.unit != u:
			case load(a):
				seq = append(seq, a)
			default:
				plain = append(plain, a)
			}
		}
		if len(seq) == 0 {
			continue // the store after the statement serves it
		}
		slices.SortFunc(seq, func(a, b mergeAccess) int { return cmp.Compare(a.span.pos, b.span.pos) })
		loads := len(seq)
		end := c.units[u].end
		for _, a := range plain {
			a.span = span{end, end}
			seq = append(seq, a)
		}
		gap := -1 // the read that opened the current gap
		for i, a := range seq {
			seen[a.delta] = true
			l, ok := last(seen)
			if !ok {
				return nil // no contiguous extent yet
			}
			if i < loads {
				m.Loads[a.key] = byDelta[l].key
			}
			open := false
			for d := range seen {
				open = open || (d-l)*dir > 0
			}
			switch {
			case open && gap < 0:
				gap = i
			case !open && gap >= 0:
				if !p.gapSafe(c.units[u], m, seq[gap], a, checked) {
					return nil
				}
				gap = -1
			}
		}
		if gap >= 0 {
			return nil
		}
	}
	return m
}

// gapSafe reports whether nothing in the statement u may panic between
// the read from that opens a gap in the merged range m and the read to
// that closes it (see the top of the file), adding to m.Before the reads
// of other ranges that must store their extents themselves for it.
func (p *SitePlan) gapSafe(u *mergeUnit, m *RangeMerge, from, to mergeAccess, checked func(SiteKey) bool) bool {
	type before struct {
		span
		read *SiteKey // a read of another range
	}
	var bs []before
	for _, r := range u.reads {
		if checked(r.key) {
			b := before{span: r.span}
			if _, ok := m.Delta[r.key]; !ok {
				b.read = &r.key
			}
			bs = append(bs, b)
		}
	}
	for _, c := range u.calls {
		bs = append(bs, before{span: span{c.pos, c.end}})
	}
	var needs []SiteKey
	for _, r := range u.reads {
	hazards:
		for _, h := range p.loops[r.bracket].Hazards {
			for _, b := range bs {
				if b.pos <= h && h < b.end && b.end <= from.span.end {
					if b.read != nil {
						needs = append(needs, *b.read)
					}
					continue hazards // runs before the gap opens
				}
			}
			for _, c := range u.calls {
				if h == c.lparen && c.pos >= to.span.end {
					continue hazards // a call after the gap closes
				}
			}
			if u.targets[h] {
				continue // assigning a target, after the gap closes
			}
			return false
		}
	}
	for _, k := range needs {
		if !slices.Contains(m.Before, k) {
			m.Before = append(m.Before, k)
		}
	}
	slices.SortFunc(m.Before, SiteKey.compare)
	return true
}

// decideMerges decides the candidates for merged static ranges, the
// drops, groups and unpublished sites decided: a read they leave unchecked
// stores no extent itself. A drop whose covering check is an access of a
// static range leaves the read checked: the range's accesses are plain,
// and no check at the access stands in for the read's (the instrumenter
// refuses such a drop). An access is in one merge at most (the
// instantiations of a generic function propose the same ones).
func (p *SitePlan) decideMerges(cands []*mergeCand) {
	inRange := map[SiteKey]bool{}
	for _, s := range p.loops {
		if s.Refused == "" {
			for _, k := range s.Sites {
				inRange[k] = true
			}
		}
	}
	checked := func(k SiteKey) bool {
		d := p.drops[k]
		return (d == nil || inRange[d.By]) && p.memberOf[k] == nil && !p.unpub[k]
	}
	for _, c := range cands {
		m := p.decideMerge(c, checked)
		if m == nil || slices.ContainsFunc(m.Members, func(k SiteKey) bool { return p.mergeOf[k] != nil }) {
			continue
		}
		for _, k := range m.Members {
			p.mergeOf[k] = m
		}
	}
}

func abs(x int64) int64 {
	if x < 0 {
		return -x
	}
	return x
}
