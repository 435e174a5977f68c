package instrument

import (
	"go/ast"
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
// In a merged range each read that stores the extent itself stores the
// extent placement's plan gives it (placement.RangeMerge.Loads,
// detector.LoadGrow: sor's row[j-1] of this iteration is row[j+1] of the
// last); rangemerge.go renders it.

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
