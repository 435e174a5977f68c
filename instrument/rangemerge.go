package instrument

import (
	"fmt"
	"go/ast"
	"slices"

	"github.com/bigfoot-go/bigfoot/placement"
)

// Merged static ranges (-mode=bigfoot).
//
// Placement decides which static ranges of a loop merge into one range of
// index step ±1, the extent stored after each statement, and the extent
// each read that stores it itself stores (placement.RangeMerge). This
// file renders its decisions on the ranges of one loop: the merged range
// is the range of its first member with the merge's step, extended after
// each statement to the index of the member the plan names plus the
// step. It renders a merge only where it maps onto the ranges it
// renders: each member is an access of a range of this loop, those
// ranges hold no other access, each statement the plan extends is a
// statement of the body, and the reads that store their extents
// themselves are those the plan counts on (its checks decide that: a read
// whose check is left out joins the extent stored after the statement; a
// function's copies leave more out). Else it writes the refusal and why
// into the plan, and the members keep ranges of their own.

// mergeRanges merges the static ranges of lp as placement's plan says.
func (r *fileRewriter) mergeRanges(body *ast.BlockStmt, lp *loopPlan) {
	for _, m := range r.sitePlan().Merges(lp.loop) {
		if why := r.mergeRange(body, lp, m); why != "" {
			r.mergeOutcome(m.First, why)
			r.note(m.First.Pos, "static ranges not merged: %s", why)
		}
	}
}

// mergeRange renders the merge m in lp, or says why it cannot.
func (r *fileRewriter) mergeRange(body *ast.BlockStmt, lp *loopPlan, m *placement.RangeMerge) string {
	member := map[accessKey]bool{}
	var g []*rangeSite // the members' ranges, in the body's order
	for _, k := range m.Members {
		ak, ok := lp.byPlan[k]
		if !ok {
			return "an access it merges is not in a static range here"
		}
		member[ak] = true
	}
	for _, rs := range lp.order {
		for ak, x := range lp.sites {
			if x == rs && member[ak] {
				g = append(g, rs)
				break
			}
		}
	}
	for ak, rs := range lp.sites {
		if slices.Contains(g, rs) && !member[ak] {
			return "a range it merges holds an access it does not"
		}
	}
	if len(g) < 2 {
		return "its accesses are one range here"
	}
	load := func(ak accessKey) bool { return lp.atAccess[ak] && !r.checkDropped(lp.exprOf[ak], ak.write) }
	for _, k := range m.Members {
		_, planned := m.Loads[k]
		if load(lp.byPlan[k]) != planned {
			return "a read's check is not as the plan has it, which decides whether the read stores the extent itself"
		}
	}
	for _, k := range m.Before {
		if ak, ok := lp.byPlan[k]; !ok || !load(ak) {
			return "a read of another range that must store its extent itself does not here"
		}
	}
	index := func(k placement.SiteKey) string {
		return fmt.Sprintf("(%s) + %d", lp.sites[lp.byPlan[k]].index, m.Step)
	}
	merged := *lp.sites[lp.byPlan[m.First]]
	merged.merged, merged.merge, merged.step1, merged.delta = true, m.First, m.Step, m.Delta[m.First]
	merged.nextAt, merged.stmts, merged.keys, merged.members = map[int]string{}, map[int]bool{}, nil, g
	for _, rs := range g {
		merged.keys = append(merged.keys, rs.keys...)
		for ak, x := range lp.sites {
			if x == rs {
				rs.delta = m.Delta[placement.SiteKey{Pos: ssaPos(lp.exprOf[ak]), Write: ak.write}]
			}
		}
	}
	for k, st := range body.List {
		pos := st.Pos()
		if ifs, ok := st.(*ast.IfStmt); ok && ifs.Init == nil {
			pos = ifs.Cond.Pos()
		}
		if at, ok := m.After[pos]; ok {
			merged.stmts[k], merged.nextAt[k] = true, index(at)
		}
	}
	for _, rs := range g {
		for k := range rs.stmts {
			if !merged.stmts[k] {
				return "a statement of its accesses is not one the plan extends it after"
			}
		}
	}
	for k, at := range m.Loads {
		lp.loadNext[lp.byPlan[k]] = index(at)
	}
	for ak, rs := range lp.sites {
		if slices.Contains(g, rs) {
			lp.sites[ak] = &merged
		}
	}
	var order []*rangeSite
	for _, rs := range lp.order {
		switch {
		case rs == g[0]:
			order = append(order, &merged)
		case !slices.Contains(g, rs):
			order = append(order, rs)
		}
	}
	lp.order = order
	return ""
}
