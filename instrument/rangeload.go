package instrument

import (
	"fmt"
	"go/ast"
	"go/token"
	"sort"
)

// Reads that store their static range's extent (-mode=bigfoot).
//
// A static range's extent is stored after the statement that makes the
// access; placement marks a read AtAccess when something after it in its
// statement may panic (placement.LoopSite), which would leave the read out
// of the range. Such a read is rendered `__bf.Load(f, &s[i], next)`: the
// read, then the store of next, inlined. Loads are calls, so they run in
// the statement's lexical order, and everything in a Load's arguments
// runs before it.
//
// In a merged range (coalesceSites) each read stores the index after the
// elements of the range accessed so far, contiguous from the range's
// start, in that order, unless an earlier iteration extended the range
// further (detector.LoadGrow: sor's row[j-1] of this iteration is row[j+1]
// of the last). A read that leaves a gap (sor's row[j+1] before
// row[j], in an ascending range) stores the extent without itself, and
// the read that closes the gap the extent with both: in between nothing
// may panic, or the first read would be lost. mergeLoads keeps such a
// merge only if every hazard of the statement (placement's positions)
// runs before the first read (it lies in a Load or call that ends before
// the read's end) or after the closing one (it is a call that starts
// after it: calls run in lexical order; or the index or dereference of a
// plain assignment's target); else the sites stay separate
// ranges, each read storing its own extent. A read rendered plain (one
// whose check another check covers, or one that nothing after it may
// panic) joins the extent stored after the statement, so a gap it closes
// closes there.

// loopAtAccess reports whether the access e of a static range of lp
// stores the range's extent itself: placement found that something after
// it in its statement may panic (placement.LoopSite.AtAccess).
func (r *fileRewriter) loopAtAccess(e ast.Expr, write bool, lp *loopPlan) bool {
	for _, ix := range r.elementIndices(e, lp) {
		if s := r.loopSite(ix, write); s != nil && s.AtAccess {
			return true
		}
	}
	return false
}

// loopHazards returns the positions placement gives of what may panic in
// the statement of the read e, other than e itself.
func (r *fileRewriter) loopHazards(e ast.Expr, lp *loopPlan) []token.Pos {
	var out []token.Pos
	for _, ix := range r.elementIndices(e, lp) {
		if s := r.loopSite(ix, false); s != nil {
			out = append(out, s.Hazards...)
		}
	}
	return out
}

// elementIndices returns the index expressions of the element e accesses
// (through fields, and through p of p := &s[i]), outermost first.
func (r *fileRewriter) elementIndices(e ast.Expr, lp *loopPlan) []*ast.IndexExpr {
	x := ast.Unparen(e)
	for {
		sel, ok := x.(*ast.SelectorExpr)
		if !ok {
			break
		}
		x = ast.Unparen(sel.X)
	}
	if id, ok := x.(*ast.Ident); ok {
		if v := r.varOf(id); v != nil && lp.alias[v] != nil {
			x = lp.alias[v]
		}
	}
	var out []*ast.IndexExpr
	for {
		ix, ok := x.(*ast.IndexExpr)
		if !ok {
			return out
		}
		out = append(out, ix)
		x = ast.Unparen(ix.X)
	}
}

// mergeLoads decides whether the sites g, merged into m, may stay merged
// given their reads that store the extent themselves, and records the
// extent each such read stores (lp.loadNext).
func (r *fileRewriter) mergeLoads(body *ast.BlockStmt, lp *loopPlan, g []*rangeSite, m *rangeSite) bool {
	inG := map[*rangeSite]bool{}
	for _, rs := range g {
		inG[rs] = true
		m.atAccess = m.atAccess || rs.atAccess
	}
	if !m.atAccess {
		return true
	}
	byStmt := map[int][]accessKey{}
	for ak, rs := range lp.sites {
		if inG[rs] {
			byStmt[lp.stmtOf[ak]] = append(byStmt[lp.stmtOf[ak]], ak)
		}
	}
	var stmts []int
	for k := range byStmt {
		stmts = append(stmts, k)
	}
	sort.Ints(stmts)
	byDelta := map[int64]*rangeSite{}
	for _, rs := range g {
		byDelta[rs.delta] = rs
	}
	dir := m.step1 // +1: the range grows upwards
	seen := map[int64]bool{}
	next := map[accessKey]string{}
	for _, k := range stmts {
		// The loads in the order they run, then the reads rendered
		// plain, at the statement's end.
		var acc, plain []accessKey
		for _, ak := range byStmt[k] {
			switch {
			case r.checkDropped(lp.exprOf[ak], ak.write):
				plain = append(plain, ak)
			case lp.atAccess[ak]:
				acc = append(acc, ak)
			default:
				// Nothing after it may panic (placement): it
				// can join the extent at the end.
				plain = append(plain, ak)
			}
		}
		if len(acc) == 0 {
			continue // the store after the statement serves it
		}
		sort.Slice(acc, func(i, j int) bool { return acc[i].pos < acc[j].pos })
		end := accessKey{pos: body.List[k].End(), end: body.List[k].End()}
		for range plain {
			acc = append(acc, end)
		}
		var gap *accessKey // the read that opened the current gap
		for i, ak := range acc {
			if ak == end {
				ak = plain[i-(len(acc)-len(plain))]
			}
			seen[lp.sites[ak].delta] = true
			if !seen[m.delta] {
				return false // no contiguous extent yet
			}
			last := m.delta
			for seen[last+dir] {
				last += dir
			}
			if lp.atAccess[ak] {
				next[ak] = fmt.Sprintf("(%s) + %d", byDelta[last].index, dir)
			}
			open := false
			for d := range seen {
				open = open || (d-last)*dir > 0
			}
			switch {
			case open && gap == nil:
				gap = &acc[i]
			case !open && gap != nil:
				if !r.gapSafe(body.List[k], lp, k, *gap, acc[i]) {
					return false
				}
				gap = nil
			}
		}
		if gap != nil {
			return false
		}
	}
	for ak, s := range next {
		lp.loadNext[ak] = s
	}
	return true
}

// checkDropped reports whether the check of the access e of kind write is
// left out (dropCheck's decision in the second pass, without recording).
func (r *fileRewriter) checkDropped(e ast.Expr, write bool) bool {
	pos := ssaPos(e)
	if r.nocheck != nil && pos.IsValid() && r.nocheck[siteKey{pos, write}] {
		return true
	}
	if r.rc == nil || r.rc.drop == nil {
		return false
	}
	return r.unpublished(e, write) || r.upSites[siteKey{pos, write}] || pos.IsValid() && r.rc.drop[siteKey{pos, write}]
}

// gapSafe reports whether nothing in the statement st (the k-th of the
// body) may panic between the read from that opens a gap in a merged
// range and the read to that closes it (see above).
func (r *fileRewriter) gapSafe(st ast.Stmt, lp *loopPlan, k int, from, to accessKey) bool {
	var before []accessKey // Loads and calls, as source ranges
	var calls []*ast.CallExpr
	// A plain assignment indexes or dereferences its targets after
	// evaluating every operand (the Go spec's second phase).
	targets := map[token.Pos]bool{}
	if as, ok := st.(*ast.AssignStmt); ok && as.Tok == token.ASSIGN {
		for _, l := range as.Lhs {
			switch l := ast.Unparen(l).(type) {
			case *ast.IndexExpr:
				targets[l.Lbrack] = true
			case *ast.StarExpr:
				targets[l.Star] = true
			}
		}
	}
	for ak := range lp.atAccess {
		if lp.stmtOf[ak] == k {
			before = append(before, ak)
		}
	}
	ast.Inspect(st, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.FuncLit:
			return false
		case *ast.CallExpr:
			if !r.info.Types[n.Fun].IsType() {
				calls = append(calls, n)
				before = append(before, accessKey{pos: n.Pos(), end: n.End()})
			}
		}
		return true
	})
	for ak := range lp.atAccess {
		if lp.stmtOf[ak] != k || !lp.atAccess[ak] {
			continue
		}
	hazards:
		for _, h := range r.loopHazards(lp.exprOf[ak], lp) {
			for _, x := range before {
				if x.pos <= h && h < x.end && x.end <= from.end {
					continue hazards // runs before the gap opens
				}
			}
			for _, c := range calls {
				if h == c.Lparen && c.Pos() >= to.end {
					continue hazards // a call after the gap closes
				}
			}
			if targets[h] {
				continue // assigning a target, after the gap closes
			}
			return false
		}
	}
	return true
}
