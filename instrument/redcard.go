package instrument

import (
	"fmt"
	"go/ast"
	"go/build"
	"go/token"
	"go/types"
	"os"

	"golang.org/x/tools/go/packages"
	"golang.org/x/tools/go/ssa"

	"github.com/bigfoot-go/bigfoot/mode"
	"github.com/bigfoot-go/bigfoot/placement"
	"github.com/bigfoot-go/bigfoot/placement/entail"
)

// RedCard emission (-mode=redcard).
//
// The placement package computes a RedCard plan for every function of the
// package (placement.Analyze over the SSA program the escape analysis
// built): checks stay at accesses, and a check covers later accesses of the
// same location with no release in between (and, for a write check, earlier
// reads with no acquire in between). The instrumenter renders each file in
// fasttrack mode first, recording where it wraps an access in R or W; then
// it renders it again, leaving out the wrappers of the accesses that are
// droppable:
//
//   - the AST access maps one-to-one to an SSA access: exactly one wrapper
//     of that kind at that SSA position (Sel of x.f, Lbrack of a[i], Star
//     of *p, the identifier of a variable) and exactly one SSA access of
//     that kind there, whose address has the same shape (field of the same
//     name, index, variable of the same name);
//   - the plan's check that covers it is anchored at another access (the
//     check sits at that access's instruction, with its kind and path),
//     which maps one-to-one too, is emitted, and is never itself dropped;
//   - independently of the plan, their addresses are the same SSA address
//     computation (same pointer register, same field, same index value),
//     and either the two accesses are in one basic block and no
//     instruction between them may release (the check precedes) or
//     acquire (a write check that follows a read), or the check precedes
//     in a block that dominates the access's, lies on no cycle through
//     which the access is reached, and no instruction on any path between
//     them may release (placement.VerifyCover). A write check that follows a read
//     also needs nothing between them that may panic (a recovered panic
//     would leave the read unchecked). A call of a function with the
//     signature of an HTTP handler counts as both acquire and release,
//     since the instrumenter gives such functions I/O hooks the kill sets
//     do not see.
//
// Go leaves the order of a plain load relative to the calls of its
// statement unspecified (the compiler may read after a later call), so an
// access is dropped only if the innermost statement or header expression
// containing it calls nothing but builtins, conversions and functions the
// kill sets find free of synchronization, and does not communicate: within
// it, the load cannot move across a synchronization.
//
// BIGFOOT_RCDEBUG=1 prints what the plans proposed and why pairs were not
// verified or wrappers not dropped.
//
// Anything else keeps its fasttrack check. Only the in-place wrappers of
// reads (x, x.f, a[i], *p) and of written targets are ever dropped; map,
// range, copy/append and variable-declaration checks are left alone.

var rcDebug = os.Getenv("BIGFOOT_RCDEBUG") != ""

// siteKey is an access site: its SSA position and kind.
type siteKey struct {
	pos   token.Pos
	write bool
}

// redcardPkg holds the per-package plan data.
type redcardPkg struct {
	ssaAcc       map[siteKey][]*placement.Access // every SSA access, by site
	anchors      map[siteKey]bool                // sites that anchor a check
	cover        map[siteKey][]siteKey           // site -> anchors of verified covering checks
	plans        int
	fallbk       int
	planned      int // (covered access, anchor) pairs of the plans
	droppedTotal int
	syncCall     map[token.Pos]bool // SSA call position (Lparen) -> may synchronize
	// callSum is the summary of the calls at each SSA call position
	// (Lparen), merged over the instructions there (mergeSummary).
	callSum map[token.Pos]placement.FuncSummary
	fset    *token.FileSet
	// safe is the static safe class (bigfoot mode): variables whose
	// accesses need no check and whose address the emitted code must
	// not take; nil in the other modes.
	safe *placement.SafeVars

	// bigfoot mode: field groups (group.go)
	ks         *placement.KillSets
	groupCands [][]*placement.Access // the accesses of each proposed field group
	// groupStructs: the identities (structID) of the structs of groupCands
	groupStructs map[string]bool
	facts        *placement.Facts // emission proofs: simple callees, spans, struct layout

	// bigfoot mode: placement's decisions on covered calls and
	// unpublished objects (placement.Decide)
	dec *placement.Decisions
	// bigfoot mode: access summaries of the package's functions that get
	// a copy, by the position of their name, and the calls (Lparen) whose
	// every SSA call placement covers (cover.go)
	covers    map[token.Pos]*placement.Cover
	coverCall map[token.Pos]bool
	// bigfoot mode: sites whose every SSA access is to an object the
	// function has not published yet (placement.Unpublished), that
	// anchor no check and belong to no field group
	unpub map[siteKey]bool
	// bigfoot mode: positions (Lparen) of the calls of append whose every
	// SSA call appends to an unpublished object
	unpubAppend map[token.Pos]bool
	// bigfoot mode: the calls (Lparen) that pass an unpublished object
	// to a parameter that does not publish it, with its index; the
	// specialized copies they need (unpublished.go)
	unpubCall map[token.Pos]int
	// bigfoot mode: placement's plan of the package's sites: the static
	// loop ranges (placement.LoopSites), with this package's refusals
	sites    *placement.SitePlan
	cgoFile  map[string]bool         // files that import "C", memoized (copyable)
	upCopies map[token.Pos][]*upCopy // by the position of the function's name
}

// fileRedcard is the per-file state of the two rendering passes.
type fileRedcard struct {
	pkg     *redcardPkg
	emitted map[siteKey]int // pass 1: wrappers emitted (a bad match counts twice)
	drop    map[siteKey]bool
	dropped int
	units   []unit
	file    *ast.File
	info    *types.Info

	selectors map[token.Pos]*ast.SelectorExpr // pass 1: wrapped selectors, by Sel position

	usedAnchors map[siteKey][]siteKey   // anchor -> the wrappers its check lets drop
	readBefore  map[siteKey]token.Pos   // write anchor -> the first read it lets drop that runs before it
	groups      map[siteKey]*fieldGroup // bigfoot: group checks, by anchor
	unpub       map[siteKey]bool        // bigfoot: unpublished sites (unpublished.go), pass 2
}

// rcOptions says what newRedcardPkg computes beyond RedCard's plans.
type rcOptions struct {
	mode    mode.Mode // Groups: BigFoot plans for field groups (group.go); SafeClass: placement.FindSafeVars
	stubbed bool      // the SSA has stubs for functions that do not type-check
	std     bool      // the standard library's packages: no static ranges (pkgRewriter.staticRanges)
	// summaries of the functions of the other packages of the build
	// (summaries.go), for the kill sets.
	summaries placement.FuncSummaries
}

func newRedcardPkg(prog *ssa.Program, spkg *ssa.Package, opts rcOptions) *redcardPkg {
	rc := &redcardPkg{ssaAcc: map[siteKey][]*placement.Access{}, anchors: map[siteKey]bool{}, cover: map[siteKey][]siteKey{},
		syncCall: map[token.Pos]bool{}, callSum: map[token.Pos]placement.FuncSummary{}, cgoFile: map[string]bool{}}
	rc.fset = prog.Fset
	if opts.mode.SafeClass() {
		// Stubs hide stores: package-level variables are then left out.
		rc.safe = placement.FindSafeVars(spkg, placement.SafeOptions{NoGlobals: opts.stubbed})
	}
	groups := opts.mode.Groups()
	ks := placement.NewKillSetsWith(prog, placement.KillSetOptions{Summaries: opts.summaries})
	rc.ks = ks
	sizes := types.SizesFor("gc", build.Default.GOARCH)
	if sizes == nil {
		sizes = types.SizesFor("gc", "amd64")
	}
	rc.facts = placement.NewFacts(ks, sizes)
	prover := entail.NewCached(&entail.Linear{Fallback: entail.NewZ3(1000)})
	// Placement decides covered calls and unpublished objects; this
	// package maps its decisions onto syntax (cover.go, unpublished.go).
	rc.dec = placement.Decide(placement.AnalyzedFunctions(spkg), rc.facts, placement.DecideOptions{
		Covers: opts.mode.StaticRanges(), Unpublished: opts.mode.SafeClass(), Copyable: rc.copyable})
	rc.computeCovers()
	if opts.mode.StaticRanges() && !opts.std {
		rc.sites = placement.NewSitePlan()
		for _, fn := range placement.AnalyzedFunctions(spkg) {
			rc.sites.AddLoopSites(placement.LoopSites(fn, rc.facts, prover, rc.safe))
		}
	}
	unpubN := map[siteKey]int{}
	callN := map[token.Pos][]int{}    // per call position: the parameter of each SSA call (-2: not unpublished)
	appendN := map[token.Pos][2]int{} // append calls: unpublished, all
	for _, fn := range placement.AnalyzedFunctions(spkg) {
		if groups && mayGroup(fn) {
			if bf := placement.Analyze(fn, placement.Config{Mode: mode.BigFoot, Effects: ks, Prover: prover, Safe: rc.safe, Decisions: rc.dec}); bf.Fallback == "" {
				rc.collectGroups(bf)
			}
		}
		plan := placement.Analyze(fn, placement.Config{Mode: mode.RedCard, Effects: ks, Prover: prover, Safe: rc.safe})
		rc.plans++
		for _, b := range fn.Blocks {
			for _, in := range b.Instrs {
				if call, ok := in.(ssa.CallInstruction); ok && call.Pos().IsValid() {
					rc.syncCall[call.Pos()] = rc.syncCall[call.Pos()] || ks.Instr(in) != 0 || placement.HandlerCall(in)
					s := ks.CallSummary(call)
					if old, ok := rc.callSum[call.Pos()]; ok {
						s = mergeSummary(old, s)
					}
					rc.callSum[call.Pos()] = s
				}
			}
		}
		var up map[ssa.Instruction]int
		if opts.mode.SafeClass() {
			up = rc.dec.Unpublished(fn)
			countAppends(fn, up, appendN)
			noteCalls(fn, rc.dec, callN)
		}
		for _, a := range plan.Accesses {
			if a.Pos.IsValid() {
				k := siteKey{a.Pos, a.Write}
				rc.ssaAcc[k] = append(rc.ssaAcc[k], a)
				if _, ok := up[a.Instr]; ok {
					unpubN[k]++
				}
			}
		}
		if plan.Fallback != "" {
			rc.fallbk++
			continue
		}
		for _, c := range plan.Checks {
			anchor := placement.AnchorOf(c)
			if anchor == nil {
				if rcDebug {
					fmt.Fprintf(os.Stderr, "rcdebug: %v: no anchor for %v (covers %d) %v\n", prog.Fset.Position(c.At.Pos()), c, len(c.Covers), c.Covers)
				}
				continue
			}
			ak := siteKey{anchor.Pos, anchor.Write}
			rc.anchors[ak] = true
			for _, b := range c.Covers {
				if b == anchor || !b.Pos.IsValid() {
					continue
				}
				rc.planned++
				if !placement.VerifyCover(ks, anchor, b, c.Write) {
					if rcDebug {
						fmt.Fprintf(os.Stderr, "rcdebug: %v: %v not verified (anchor %v at %v, sameblock=%v)\n", prog.Fset.Position(b.Pos), b, anchor, prog.Fset.Position(anchor.Pos), b.Instr.Block() == anchor.Instr.Block())
					}
					continue
				}
				bk := siteKey{b.Pos, b.Write}
				rc.cover[bk] = append(rc.cover[bk], ak)
			}
		}
	}
	rc.unpub = rc.unpublishedSites(unpubN)
	rc.planUnpublishedCalls(callN)
	rc.unpubAppend = map[token.Pos]bool{}
	for pos, n := range appendN {
		if n[0] == n[1] {
			rc.unpubAppend[pos] = true
		}
	}
	return rc
}

// ssaPos is the position go/ssa gives the load or store of the addressable
// expression e.
func ssaPos(e ast.Expr) token.Pos {
	switch e := ast.Unparen(e).(type) {
	case *ast.SelectorExpr:
		return e.Sel.Pos()
	case *ast.IndexExpr:
		return e.Lbrack
	case *ast.StarExpr:
		return e.Star
	case *ast.Ident:
		return e.Pos()
	}
	return token.NoPos
}

// shapeMatches reports whether the SSA access a plausibly is the access of
// the expression e: a field of that name, an index, a variable of that
// name, or a dereference.
func shapeMatches(e ast.Expr, a *placement.Access) bool {
	addr := placement.AddrOf(a.Instr)
	if addr == nil {
		return false
	}
	switch e := ast.Unparen(e).(type) {
	case *ast.SelectorExpr:
		if fa, ok := addr.(*ssa.FieldAddr); ok {
			st, ok := fa.X.Type().Underlying().(*types.Pointer)
			if !ok {
				return false
			}
			s, ok := st.Elem().Underlying().(*types.Struct)
			return ok && s.Field(fa.Field).Name() == e.Sel.Name
		}
		if g, ok := addr.(*ssa.Global); ok {
			return g.Name() == e.Sel.Name // qualified identifier
		}
		return false
	case *ast.IndexExpr:
		_, ok := addr.(*ssa.IndexAddr)
		return ok
	case *ast.StarExpr:
		return true
	case *ast.Ident:
		switch v := addr.(type) {
		case *ssa.Global:
			return v.Name() == e.Name
		case *ssa.Alloc:
			return v.Comment == e.Name
		case *ssa.FreeVar:
			return v.Name() == e.Name
		}
	}
	return false
}

// record notes, in pass 1, a wrapper of kind write around e.
func (f *fileRedcard) record(e ast.Expr, write bool) {
	pos := ssaPos(e)
	if !pos.IsValid() {
		return
	}
	k := siteKey{pos, write}
	f.emitted[k]++
	if sel, ok := ast.Unparen(e).(*ast.SelectorExpr); ok {
		f.selectors[pos] = sel
	}
	if accs := f.pkg.ssaAcc[k]; len(accs) != 1 || !shapeMatches(e, accs[0]) {
		f.emitted[k] += 2 // never a one-to-one match
	}
}

// oneToOne reports whether the site k has exactly one wrapper in the file
// and exactly one SSA access in the package, of matching shape.
func (f *fileRedcard) oneToOne(k siteKey) bool {
	return f.emitted[k] == 1 && len(f.pkg.ssaAcc[k]) == 1
}

// plan computes the drop set from pass 1.
func (f *fileRedcard) plan() {
	f.drop = map[siteKey]bool{}
	f.usedAnchors = map[siteKey][]siteKey{}
	one := f.oneToOne
	for k, anchors := range f.pkg.cover {
		if f.pkg.unpub[k] && one(k) {
			continue // unchecked as unpublished below, not covered by an anchor's check
		}
		if f.pkg.anchors[k] || !one(k) || !inSyncFreeUnit(f.units, k.pos) {
			if rcDebug {
				fmt.Fprintf(os.Stderr, "rcdebug: %v %v: not dropped: emitted=%d ssa=%d unitfree=%v anchor=%v\n", f.pkg.fset.Position(k.pos), k.write, f.emitted[k], len(f.pkg.ssaAcc[k]), inSyncFreeUnit(f.units, k.pos), f.pkg.anchors[k])
			}
			continue
		}
		for _, ak := range anchors {
			if one(ak) {
				f.drop[k] = true
				f.usedAnchors[ak] = append(f.usedAnchors[ak], k)
				break
			}
		}
		if rcDebug && !f.drop[k] {
			fmt.Fprintf(os.Stderr, "rcdebug: %v: not dropped: emitted=%d ssa=%d unitfree=%v anchor=%v\n", k.pos, f.emitted[k], len(f.pkg.ssaAcc[k]), inSyncFreeUnit(f.units, k.pos), f.pkg.anchors[k])
		}
	}
	f.planReadsBefore()
	if len(f.pkg.groupCands) > 0 {
		f.planGroups()
	}
	f.unpub = map[siteKey]bool{}
	grouped := map[siteKey]bool{} // anchors and members of the file's group checks
	for ak, g := range f.groups {
		grouped[ak] = true
		for _, m := range g.members {
			grouped[m] = true
		}
	}
	for k := range f.pkg.unpub {
		if one(k) && !f.drop[k] && !grouped[k] {
			f.unpub[k] = true
		}
	}
}

// dropCheck reports whether the wrapper of kind write around e is left
// out (pass 2), and records it (pass 1).
func (r *fileRewriter) dropCheck(e ast.Expr, write bool) bool {
	if r.nocheck != nil {
		if pos := ssaPos(e); pos.IsValid() && r.nocheck[siteKey{pos, write}] {
			return true
		}
	}
	rc := r.rc
	if rc == nil {
		return false
	}
	if rc.drop == nil {
		rc.record(e, write)
		return false
	}
	if r.unpublished(e, write) {
		return true
	}
	if r.upSites[siteKey{ssaPos(e), write}] {
		return true
	}
	if pos := ssaPos(e); pos.IsValid() && rc.drop[siteKey{pos, write}] {
		rc.dropped++
		rc.pkg.droppedTotal++
		return true
	}
	r.coverage = siteCoverage{}
	if pos := ssaPos(e); pos.IsValid() {
		if rp, ok := rc.readBefore[siteKey{pos, write}]; ok {
			p := r.tf.Position(rp)
			r.coverage = siteCoverage{e.Pos(), fmt.Sprintf("r%d:%d", p.Line, p.Column)}
		} else if fc := r.fieldCoverage(e); fc != "" {
			r.coverage = siteCoverage{e.Pos(), fc}
		}
	}
	return false
}

// safeRedcardPkg computes the plans of spkg; if the analysis panics, the
// package keeps its fasttrack checks (noted).
func safeRedcardPkg(prog *ssa.Program, spkg *ssa.Package, id string, opts rcOptions, res *Result) (rc *redcardPkg) {
	defer func() {
		if e := recover(); e != nil {
			rc = nil
			res.Notes = append(res.Notes, fmt.Sprintf("%s: redcard placement failed (%v): fasttrack checks", id, e))
		}
	}()
	return newRedcardPkg(prog, spkg, opts)
}

// A unit is a simple statement, or a header expression of a compound one
// (an if or for condition, a switch tag, a case list, a range operand):
// a span within which Go leaves the order of plain loads relative to calls
// unspecified. syncFree says it calls no function other than a builtin, a
// conversion or a function the kill sets find synchronization-free (matched
// by the position of its left parenthesis, go/ssa's position of a call),
// and does not send or receive.
type unit struct {
	pos, end token.Pos
	syncFree bool
}

// units lists the units of the file.
func (r *fileRewriter) units() []unit {
	var out []unit
	add := func(n ast.Node, extra bool) {
		if n == nil || n == ast.Node(nil) {
			return
		}
		free := !extra
		if free {
			ast.Inspect(n, func(m ast.Node) bool {
				switch m := m.(type) {
				case *ast.FuncLit:
					return false
				case *ast.SendStmt, *ast.GoStmt, *ast.DeferStmt:
					free = false
				case *ast.CallExpr:
					if !r.info.Types[m.Fun].IsType() && r.builtinName(m.Fun) == "" {
						// A call go/ssa has at this position and the
						// kill sets find synchronization-free is harmless.
						if mayBeSync, known := r.rc.pkg.syncCall[m.Lparen]; !known || mayBeSync {
							free = false
						}
					}
				case *ast.UnaryExpr:
					if m.Op == token.ARROW {
						free = false
					}
				}
				return free
			})
		}
		out = append(out, unit{n.Pos(), n.End(), free})
	}
	addExpr := func(e ast.Expr) {
		if e != nil {
			add(e, false)
		}
	}
	ast.Inspect(r.file, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.ExprStmt, *ast.AssignStmt, *ast.IncDecStmt, *ast.ReturnStmt, *ast.DeclStmt:
			add(n, false)
		case *ast.SendStmt, *ast.GoStmt, *ast.DeferStmt:
			add(n, true)
		case *ast.IfStmt:
			addExpr(n.Cond)
		case *ast.ForStmt:
			addExpr(n.Cond)
		case *ast.SwitchStmt:
			addExpr(n.Tag)
		case *ast.RangeStmt:
			add(n.X, true) // range forms are rewritten; never drop there
		case *ast.CaseClause:
			for _, e := range n.List {
				addExpr(e)
			}
		case *ast.CommClause:
			if n.Comm != nil {
				add(n.Comm, true)
			}
		}
		return true
	})
	return out
}

// inSyncFreeUnit reports whether the innermost unit containing pos is
// sync-free.
func inSyncFreeUnit(units []unit, pos token.Pos) bool {
	best := -1
	for i, u := range units {
		if u.pos <= pos && pos < u.end && (best < 0 || u.end-u.pos < units[best].end-units[best].pos) {
			best = i
		}
	}
	return best >= 0 && units[best].syncFree
}

// stubbedSSA builds pkg with go/ssa after replacing, for the duration of
// the build and of fn, the bodies of the functions that do not type-check
// (calls of runtime.RaceXxx, which exists only in -race builds) with
// `select {}`: a body go/ssa can build that the kill sets treat as may
// acquire and release (a Select), so callers stay conservative. Those
// functions (and their closures) get no plan, and keep every check.
func stubbedSSA(pkg *packages.Package, fn func(prog *ssa.Program, spkg *ssa.Package)) error {
	type saved struct {
		body *ast.BlockStmt
		list []ast.Stmt
	}
	var restore []saved
	defer func() {
		for _, s := range restore {
			s.body.List = s.list
		}
	}()
	for _, f := range pkg.Syntax {
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Body == nil || !hasInvalidCall(pkg.TypesInfo, fd.Body) {
				continue
			}
			restore = append(restore, saved{fd.Body, fd.Body.List})
			fd.Body.List = []ast.Stmt{&ast.SelectStmt{Select: fd.Body.Lbrace, Body: &ast.BlockStmt{Lbrace: fd.Body.Lbrace, Rbrace: fd.Body.Lbrace}}}
		}
	}
	if len(restore) == 0 {
		return fmt.Errorf("no function to stub")
	}
	_, prog, spkg, err := buildSSA(pkg)
	if err != nil {
		return err
	}
	fn(prog, spkg)
	return nil
}

func hasInvalidCall(info *types.Info, body ast.Node) bool {
	found := false
	ast.Inspect(body, func(n ast.Node) bool {
		if c, ok := n.(*ast.CallExpr); ok {
			tv, ok := info.Types[c.Fun]
			if !ok || tv.Type == nil || tv.Type == types.Typ[types.Invalid] {
				found = true
			}
		}
		return !found
	})
	return found
}
