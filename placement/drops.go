package placement

import (
	"go/ast"
	"go/token"
	"go/types"
	"maps"
	"slices"

	"golang.org/x/tools/go/ssa"

	"github.com/bigfoot-go/bigfoot/mode"
	"github.com/bigfoot-go/bigfoot/placement/entail"
)

// RedCard drops and unpublished sites (docs/placement.md, "The site
// plan").
//
// A RedCard check covers later accesses of the same location with no
// release in between, and, for a write check, earlier reads with no
// acquire in between. The plan drops the check of a site when:
//
//   - the site has exactly one access of its kind in the package (an
//     instantiated generic body or a position shared by two accesses is
//     never dropped), and the same holds of the site whose check covers
//     it (its anchor, AnchorOf), which is itself never dropped;
//   - independently of the dataflow, the anchor's check covers the
//     access (VerifyCover): the same address computation, and nothing
//     between them that may release (or acquire, for a write check that
//     follows a read);
//   - the statement (or header expression) holding the access calls
//     nothing that may synchronize and does not communicate
//     (syncFreeStatements): Go leaves the order of a plain load relative
//     to the calls of its statement unspecified, so only there can the
//     load not move across a synchronization.
//
// A site is unpublished when every access at it is to an object its
// function has not published yet (Decisions.Unpublished), it has one
// access, and it anchors no check that covers a site that is not
// unpublished itself (that site would lose its check). Unpublished sites
// are never dropped; a field group that holds one checks it instead.

// A Drop is the decision to leave out the checks of a site: the check at
// By covers them.
type Drop struct {
	By SiteKey
	// Before is the index, in the block of both, of a dropped read that
	// runs before its write anchor; -1 otherwise. A race of that read
	// with an earlier write is the one go -race reports first: the
	// write check names it (instrument's "r" site entries).
	Before int
}

// A SiteConfig is how AddFunction analyzes a function.
type SiteConfig struct {
	Mode      mode.Mode // RedCard drops in the modes with plans; groups and unpublished sites with BigFoot's
	Facts     *Facts
	Prover    entail.Prover
	Safe      *SafeVars
	Decisions *Decisions // unpublished objects and covered calls (Decide)
	Ranges    bool       // static loop ranges (LoopSites)
	// Info types the package's syntax: the footprints of range
	// statements (AddFootprints) in the modes with footprints.
	Info *types.Info
}

// siteFacts is what the plan gathers of a package's functions before
// Decide decides their sites.
type siteFacts struct {
	acc      map[SiteKey][]*Access
	local    map[SiteKey][]*Access  // loads and stores of memory no other goroutine can reach (Plan.Local)
	unpubN   map[SiteKey]int        // accesses of each site to unpublished objects
	syncFree map[SiteKey]bool       // every access of the site is in a sync-free statement
	anchors  map[SiteKey]bool       // sites that anchor a RedCard check
	cover    map[SiteKey][]SiteKey  // site -> anchors of the checks verified to cover it
	cands    [][]*Access            // the accesses of each field group BigFoot's plans propose
	structs  map[*types.Struct]bool // the structs of the candidates' fields
	merges   []*mergeCand           // the candidates for merged static ranges
	calls    map[token.Pos][2]int   // by position: the SSA calls there that are covered, and all
}

// AddFunction analyzes fn and records what its sites' decisions need;
// Decide decides them once every function of the package is added.
func (p *SitePlan) AddFunction(fn *ssa.Function, cfg SiteConfig) {
	if cfg.Mode.Footprints() {
		p.AddFootprints(fn, cfg.Info, cfg.Mode)
	}
	ks := cfg.Facts.ks
	var merges []*mergeCand
	if cfg.Ranges {
		ls := loopSitesOf(fn, cfg.Facts, cfg.Prover, cfg.Safe)
		p.AddLoopSites(ls.out)
		merges = ls.mergeCandidates()
	}
	var cands []*Plan
	if cfg.Mode.Groups() && mayGroup(fn) {
		bf := Analyze(fn, Config{Mode: mode.BigFoot, Effects: ks, Prover: cfg.Prover, Safe: cfg.Safe, Decisions: cfg.Decisions})
		if bf.Fallback == "" {
			cands = append(cands, bf)
		}
	}
	plan := Analyze(fn, Config{Mode: mode.RedCard, Effects: ks, Prover: cfg.Prover, Safe: cfg.Safe})
	var up map[ssa.Instruction]int
	if cfg.Mode.SafeClass() && cfg.Decisions != nil {
		up = cfg.Decisions.Unpublished(fn)
	}
	units := syncFreeStatements(fn, ks)
	calls := map[token.Pos][2]int{}
	if cfg.Decisions != nil {
		for _, b := range fn.Blocks {
			for _, in := range b.Instrs {
				if c, ok := in.(*ssa.Call); ok && c.Pos().IsValid() {
					n := calls[c.Pos()]
					if d := cfg.Decisions.Call(c); d != nil && d.Cover != nil {
						n[0]++
					}
					n[1]++
					calls[c.Pos()] = n
				}
			}
		}
	}

	p.mu.Lock()
	defer p.mu.Unlock()
	s := &p.facts
	s.merges = append(s.merges, merges...)
	for pos, n := range calls {
		old := s.calls[pos]
		s.calls[pos] = [2]int{old[0] + n[0], old[1] + n[1]}
	}
	for _, bf := range cands {
		s.addGroupCandidates(bf)
	}
	if cfg.Mode.Groups() {
		s.addElementCandidates(plan.Accesses)
	}
	for _, a := range plan.Local {
		k := SiteKey{a.Pos, a.Write}
		s.local[k] = append(s.local[k], a)
	}
	for _, a := range plan.Accesses {
		if !a.Pos.IsValid() {
			continue
		}
		k := SiteKey{a.Pos, a.Write}
		s.acc[k] = append(s.acc[k], a)
		if _, ok := up[a.Instr]; ok {
			s.unpubN[k]++
		}
		free := inSyncFree(units, a.Pos)
		if old, ok := s.syncFree[k]; ok {
			free = free && old
		}
		s.syncFree[k] = free
	}
	if plan.Fallback != "" {
		return
	}
	for _, c := range plan.Checks {
		anchor := AnchorOf(c)
		if anchor == nil {
			continue
		}
		ak := SiteKey{anchor.Pos, anchor.Write}
		s.anchors[ak] = true
		for _, b := range c.Covers {
			if b == anchor || !b.Pos.IsValid() || !VerifyCover(ks, anchor, b, c.Write) {
				continue
			}
			bk := SiteKey{b.Pos, b.Write}
			s.cover[bk] = append(s.cover[bk], ak)
		}
	}
}

// Decide decides the drops, field groups, unpublished sites and merged
// static ranges of the package from what AddFunction gathered, and
// which calls are covered (every SSA call at the position calls the
// callee's F__bfnc copy, Decisions.Call), and forgets that.
func (p *SitePlan) Decide(f *Facts) {
	p.mu.Lock()
	defer p.mu.Unlock()
	s := &p.facts
	one := func(k SiteKey) bool { return len(s.acc[k]) == 1 }
	allUnpub := func(k SiteKey) bool { return s.unpubN[k] > 0 && s.unpubN[k] == len(s.acc[k]) }
	// Anchors of checks that cover other sites: unchecked, they would
	// take the covered sites' checks with them, unless those sites are
	// unpublished too and need none.
	covering := map[SiteKey]bool{}
	for k, anchors := range s.cover {
		if !allUnpub(k) {
			for _, a := range anchors {
				covering[a] = true
			}
		}
	}
	unpub := func(k SiteKey) bool { return allUnpub(k) && !covering[k] && one(k) }

	used := map[SiteKey][]SiteKey{} // anchor -> the sites its check lets drop
	for _, k := range slices.SortedFunc(maps.Keys(s.cover), SiteKey.compare) {
		if unpub(k) || s.anchors[k] || !one(k) || !s.syncFree[k] {
			continue
		}
		for _, ak := range s.cover[k] {
			if one(ak) {
				p.drops[k] = &Drop{By: ak, Before: readBefore(s.acc[k][0], s.acc[ak][0])}
				used[ak] = append(used[ak], k)
				break
			}
		}
	}
	p.decideGroups(f, used)
	for k := range s.unpubN {
		if unpub(k) && p.drops[k] == nil && p.groupAt[k] == nil && p.memberOf[k] == nil {
			p.unpub[k] = true
		}
	}
	p.decideMerges(s.merges)
	p.addGroupFootprints(s.acc)
	p.decideFootprints()
	for pos, n := range s.calls {
		if n[0] > 0 && n[0] == n[1] {
			p.covered[SiteKey{Pos: pos}] = true
		}
	}
	p.notShared = map[SiteKey][]*Access{}
	for k, l := range s.local {
		if len(s.acc[k]) == 0 {
			p.notShared[k] = l // no instance of the site reaches shared memory
		}
	}
	p.access, p.groupStructs = s.acc, s.structs
	p.facts = siteFacts{}
}

// readBefore is the index of the read b in its block if it runs before
// the write a there, or -1.
func readBefore(b, a *Access) int {
	if b.Write || !a.Write || b.Instr.Block() != a.Instr.Block() {
		return -1
	}
	instrs := a.Instr.Block().Instrs
	if i := IndexIn(instrs, b.Instr); i >= 0 && i < IndexIn(instrs, a.Instr) {
		return i
	}
	return -1
}

// A statement is a simple statement, or a header expression of a compound
// one (an if or for condition, a switch tag, a case list, a range
// operand): a span within which Go leaves the order of plain loads
// relative to calls unspecified. free says that no instruction of the
// function at a position within it calls a function (other than a
// builtin) that may synchronize, communicates, or starts or defers a
// call; the statements of go and defer, sends, the comm clauses of select
// and range operands (whose forms the instrumenter rewrites) are never
// free.
type statement struct {
	pos, end token.Pos
	free     bool
}

// syncFreeStatements lists the statements of fn's body (not of the
// function literals in it nor of the bodies of its range-over-func
// loops, which are functions of their own; see inspectOwn).
func syncFreeStatements(fn *ssa.Function, ks *KillSets) []statement {
	var syncAt []token.Pos
	for _, b := range fn.Blocks {
		for _, in := range b.Instrs {
			if in.Pos().IsValid() && mayReorderSync(in, ks) {
				syncAt = append(syncAt, in.Pos())
			}
		}
	}
	var out []statement
	add := func(n ast.Node, free bool) {
		if n == nil {
			return
		}
		for _, p := range syncAt {
			free = free && !(n.Pos() <= p && p < n.End())
		}
		out = append(out, statement{n.Pos(), n.End(), free})
	}
	addExpr := func(e ast.Expr) {
		if e != nil {
			add(e, true)
		}
	}
	inspectOwn(fn, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.RangeStmt:
			add(n.X, false)
		case *ast.ExprStmt, *ast.AssignStmt, *ast.IncDecStmt, *ast.ReturnStmt, *ast.DeclStmt:
			add(n, true)
		case *ast.SendStmt, *ast.GoStmt, *ast.DeferStmt:
			add(n, false)
		case *ast.IfStmt:
			addExpr(n.Cond)
		case *ast.ForStmt:
			addExpr(n.Cond)
		case *ast.SwitchStmt:
			addExpr(n.Tag)
		case *ast.CaseClause:
			for _, e := range n.List {
				addExpr(e)
			}
		case *ast.CommClause:
			if n.Comm != nil {
				add(n.Comm, false)
			}
		}
		return true
	})
	return out
}

// mayReorderSync reports whether a load in the statement of in could move
// across a synchronization in: in calls a function other than a builtin
// that may acquire or release (or an HTTP handler, which the
// instrumenter gives I/O hooks), starts or defers a call, or
// communicates.
func mayReorderSync(in ssa.Instruction, ks *KillSets) bool {
	switch in := in.(type) {
	case *ssa.Call:
		if _, ok := in.Call.Value.(*ssa.Builtin); ok {
			return false
		}
		return ks.Instr(in) != 0 || HandlerCall(in)
	case *ssa.Go, *ssa.Defer, *ssa.Send, *ssa.Select:
		return true
	case *ssa.UnOp:
		return in.Op == token.ARROW
	}
	return false
}

// inSyncFree reports whether the innermost statement holding pos is
// sync-free.
func inSyncFree(stmts []statement, pos token.Pos) bool {
	best := -1
	for i, u := range stmts {
		if u.pos <= pos && pos < u.end && (best < 0 || u.end-u.pos < stmts[best].end-stmts[best].pos) {
			best = i
		}
	}
	return best >= 0 && stmts[best].free
}
