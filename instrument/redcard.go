package instrument

import (
	"fmt"
	"go/ast"
	"go/build"
	"go/token"
	"go/types"

	"golang.org/x/tools/go/packages"
	"golang.org/x/tools/go/ssa"

	"github.com/bigfoot-go/bigfoot/mode"
	"github.com/bigfoot-go/bigfoot/placement"
	"github.com/bigfoot-go/bigfoot/placement/entail"
)

// Rendering the site plan's drops, groups and unpublished sites.
//
// Placement decides, per site, which checks are dropped (covered by
// which check), which accesses make a field group's check and which are
// left out for it, and which sites are unpublished
// (placement.SitePlan.AddFunction, Decide). The instrumenter renders each
// file in fasttrack mode first, recording where it wraps an access in R
// or W; then it renders it again, leaving out the wrappers of the sites
// the plan says need no check of their own. It renders a decision only
// where the access maps one-to-one to its wrapper: exactly one wrapper
// of that kind at that SSA position (Sel of x.f, Lbrack of a[i], Star of
// *p, the identifier of a variable) for the one SSA access of that kind
// there, whose address has the same shape (field of the same name,
// index, variable of the same name); so must the access whose check
// covers a dropped site, and a group's anchor must select its field
// directly. Anything else it refuses, with the reason, in the plan, and
// keeps the access's own check. Only the in-place wrappers of reads (x,
// x.f, a[i], *p) and of written targets are ever left out; map, range,
// copy/append and variable-declaration checks are left alone.

// siteKey is an access site: its SSA position and kind.
type siteKey struct {
	pos   token.Pos
	write bool
}

// planKey and fromPlan convert between the instrumenter's site keys and
// placement's.
func planKey(k siteKey) placement.SiteKey { return placement.SiteKey{Pos: k.pos, Write: k.write} }

func fromPlan(k placement.SiteKey) siteKey { return siteKey{k.Pos, k.Write} }

// redcardPkg holds the per-package plan data.
type redcardPkg struct {
	// callSum is the summary of the calls at each SSA call position
	// (Lparen), merged over the instructions there (mergeSummary).
	callSum map[token.Pos]placement.FuncSummary
	fset    *token.FileSet
	// safe is the static safe class (bigfoot mode): variables whose
	// accesses need no check and whose address the emitted code must
	// not take; nil in the other modes.
	safe  *placement.SafeVars
	facts *placement.Facts // emission proofs: simple callees, spans, struct layout

	// bigfoot mode: placement's decisions on covered calls and
	// unpublished objects (placement.Decide)
	dec *placement.Decisions
	// bigfoot mode: access summaries of the package's functions that get
	// a copy, by the position of their name (cover.go)
	covers map[token.Pos]*placement.Cover
	// bigfoot mode: positions (Lparen) of the calls of append whose every
	// SSA call appends to an unpublished object
	unpubAppend map[token.Pos]bool
	// bigfoot mode: the calls (Lparen) that pass an unpublished object
	// to a parameter that does not publish it, with its index; the
	// specialized copies they need (unpublished.go)
	unpubCall map[token.Pos]int
	// placement's plan of the package's sites: drops, field groups,
	// unpublished sites and (bigfoot mode) static loop ranges, with
	// this package's refusals
	sites *placement.SitePlan
	// groupStructs: the identities (structID) of the structs whose
	// fields the plans group
	groupStructs map[string]bool
	cgoFile      map[string]bool         // files that import "C", memoized (copyable)
	upCopies     map[token.Pos][]*upCopy // by the position of the function's name
}

// fileRedcard is the per-file state of the two rendering passes.
type fileRedcard struct {
	pkg     *redcardPkg
	emitted map[siteKey]int // pass 1: wrappers emitted (a bad match counts twice)
	// pass 2: the wrappers left out (dropped sites and group members),
	// the members among them, and the unpublished sites
	drop    map[siteKey]bool
	member  map[siteKey]bool
	unpub   map[siteKey]bool
	local   map[siteKey]bool // sites the plan states not shared
	dropped int
	file    *ast.File
	info    *types.Info

	wrapped map[token.Pos]ast.Expr // pass 1: wrapped selectors and index expressions, by SSA position

	readBefore map[siteKey]token.Pos        // write anchor -> the first read it lets drop that runs before it
	groups     map[siteKey]*placement.Group // group checks, by anchor
}

// rcOptions says what newRedcardPkg computes beyond RedCard's plans.
type rcOptions struct {
	mode    mode.Mode // Groups: field groups; SafeClass: placement.FindSafeVars
	stubbed bool      // the SSA has stubs for functions that do not type-check
	std     bool      // the standard library's packages: no static ranges (pkgRewriter.staticRanges)
	// summaries of the functions of the other packages of the build
	// (summaries.go), for the kill sets.
	summaries placement.FuncSummaries
	info      *types.Info // types the package's syntax (the footprints' range statements)
}

func newRedcardPkg(prog *ssa.Program, spkg *ssa.Package, opts rcOptions) *redcardPkg {
	rc := &redcardPkg{callSum: map[token.Pos]placement.FuncSummary{}, cgoFile: map[string]bool{}}
	rc.fset = prog.Fset
	if opts.mode.SafeClass() {
		// Stubs hide stores: package-level variables are then left out.
		rc.safe = placement.FindSafeVars(spkg, placement.SafeOptions{NoGlobals: opts.stubbed})
	}
	ks := placement.NewKillSetsWith(prog, placement.KillSetOptions{Summaries: opts.summaries})
	sizes := types.SizesFor("gc", build.Default.GOARCH)
	if sizes == nil {
		sizes = types.SizesFor("gc", "amd64")
	}
	rc.facts = placement.NewFacts(ks, sizes)
	prover := entail.NewCached(&entail.Linear{Fallback: entail.SharedZ3()})
	// Placement decides covered calls and unpublished objects; this
	// package maps its decisions onto syntax (cover.go, unpublished.go).
	rc.dec = placement.Decide(placement.AnalyzedFunctions(spkg), rc.facts, placement.DecideOptions{
		Covers: opts.mode.StaticRanges(), Unpublished: opts.mode.SafeClass(), Copyable: rc.copyable})
	rc.computeCovers()
	rc.sites = placement.NewSitePlan()
	cfg := placement.SiteConfig{Mode: opts.mode, Facts: rc.facts, Prover: prover, Safe: rc.safe, Decisions: rc.dec,
		Ranges: opts.mode.StaticRanges() && !opts.std, Info: opts.info}
	callN := map[token.Pos][]int{}    // per call position: the parameter of each SSA call (-2: not unpublished)
	appendN := map[token.Pos][2]int{} // append calls: unpublished, all
	for _, fn := range placement.AnalyzedFunctions(spkg) {
		rc.sites.AddFunction(fn, cfg)
		for _, b := range fn.Blocks {
			for _, in := range b.Instrs {
				if call, ok := in.(ssa.CallInstruction); ok && call.Pos().IsValid() {
					s := ks.CallSummary(call)
					if old, ok := rc.callSum[call.Pos()]; ok {
						s = mergeSummary(old, s)
					}
					rc.callSum[call.Pos()] = s
				}
			}
		}
		if opts.mode.SafeClass() {
			countAppends(fn, rc.dec.Unpublished(fn), appendN)
			noteCalls(fn, rc.dec, callN)
		}
	}
	rc.sites.Decide(rc.facts)
	rc.groupStructs = map[string]bool{}
	for _, st := range rc.sites.GroupStructs() {
		rc.groupStructs[structID(st)] = true
	}
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
	switch x := ast.Unparen(e).(type) {
	case *ast.SelectorExpr, *ast.IndexExpr:
		f.wrapped[pos] = x
	}
	if accs := f.siteAccesses(k); len(accs) != 1 || !shapeMatches(e, accs[0]) {
		f.emitted[k] += 2 // never a one-to-one match
	}
}

// siteAccesses returns the SSA accesses of site k, or, at a site the plan
// states not shared, its loads or stores.
func (f *fileRedcard) siteAccesses(k siteKey) []*placement.Access {
	if accs := f.pkg.sites.Accesses(planKey(k)); len(accs) > 0 {
		return accs
	}
	return f.pkg.sites.LocalAccesses(planKey(k))
}

// unrenderable says why the site k does not map one-to-one to its
// wrapper in the file ("" if it does): exactly one wrapper in the file
// and exactly one SSA access in the package, of matching shape.
func (f *fileRedcard) unrenderable(k siteKey) string {
	switch n := f.emitted[k]; {
	case n == 1 && len(f.siteAccesses(k)) == 1:
		return ""
	case n == 0:
		return "no in-place wrapper of the access"
	case n == 2:
		return "the wrapper's expression is not of the SSA access's shape"
	default:
		return "several wrappers at the site"
	}
}

// plan maps the plan's decisions on the file's sites onto the wrappers
// pass 1 recorded, and writes what it cannot render back into the plan.
func (f *fileRedcard) plan() {
	sp := f.pkg.sites
	f.drop, f.member, f.unpub, f.local = map[siteKey]bool{}, map[siteKey]bool{}, map[siteKey]bool{}, map[siteKey]bool{}
	f.groups = map[siteKey]*placement.Group{}
	used := map[siteKey][]siteKey{} // anchor -> the wrappers its check lets drop
	for _, pk := range sp.Sites(placement.EntryDrop) {
		k, by := fromPlan(pk), fromPlan(sp.Drop(pk).By)
		if !f.inFile(k.pos) {
			continue
		}
		if why := f.unrenderable(k); why != "" {
			sp.Refuse(placement.EntryDrop, pk, why)
		} else if why := f.unrenderable(by); why != "" {
			sp.Refuse(placement.EntryDrop, pk, "the covering check's access: "+why)
		} else {
			f.drop[k] = true
			used[by] = append(used[by], k)
		}
	}
	f.planReadsBefore(used)
	for _, pk := range sp.Sites(placement.EntryGroup) {
		g := sp.GroupAt(pk)
		if !f.inFile(pk.Pos) {
			continue
		}
		if why := f.groupUnrenderable(g); why != "" {
			sp.Refuse(placement.EntryGroup, pk, why)
			for _, m := range g.Members {
				sp.Refuse(placement.EntryMember, m, "its group is not rendered")
			}
			continue
		}
		var members []siteKey
		for _, m := range g.Members {
			if why := f.unrenderable(fromPlan(m)); why != "" {
				sp.Refuse(placement.EntryMember, m, why)
			} else {
				members = append(members, fromPlan(m))
			}
		}
		if len(members) == 0 {
			sp.Refuse(placement.EntryGroup, pk, "no member can be left out")
			continue
		}
		f.groups[fromPlan(pk)] = g
		for _, m := range members {
			f.drop[m] = true
			f.member[m] = true
		}
	}
	for _, pk := range sp.Sites(placement.EntryUnpublished) {
		if k := fromPlan(pk); f.inFile(k.pos) {
			if why := f.unrenderable(k); why != "" {
				sp.Refuse(placement.EntryUnpublished, pk, why)
			} else {
				f.unpub[k] = true
			}
		}
	}
	for _, pk := range sp.Sites(placement.EntryNotShared) {
		k := fromPlan(pk)
		switch {
		case !f.inFile(k.pos) || f.emitted[k] == 0: // nothing to leave out
		case f.unrenderable(k) != "":
			sp.Refuse(placement.EntryNotShared, pk, f.unrenderable(k))
		default:
			f.local[k] = true
		}
	}
}

// withdrawUnrendered withdraws the groups whose anchor the last pass 2
// did not check as the group (groupWrap: a form of the anchor's check
// that renders it alone), with the members it left out for them: the
// next pass checks those where they are. It returns the anchors of the
// groups it withdrew. A member is never left out unless its group's
// check is made.
func (f *fileRedcard) withdrawUnrendered() []token.Pos {
	sp := f.pkg.sites
	var withdrew []token.Pos
	for a, g := range f.groups {
		if pk := planKey(a); !sp.Rendered(placement.EntryGroup, pk) {
			sp.Withdraw(placement.EntryGroup, pk, "its anchor's check is rendered alone")
			for _, m := range g.Members {
				if k := fromPlan(m); f.member[k] {
					sp.Withdraw(placement.EntryMember, m, "its group is not rendered")
					delete(f.drop, k)
					delete(f.member, k)
				}
			}
			delete(f.groups, a)
			withdrew = append(withdrew, a.pos)
		}
	}
	return withdrew
}

// inFile reports whether pos is in the file being rendered.
func (f *fileRedcard) inFile(pos token.Pos) bool {
	return f.file != nil && f.file.Pos() <= pos && pos <= f.file.End()
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
	if r.unpublished(e, write) || r.notShared(e, write) {
		return true
	}
	if r.upSites[siteKey{ssaPos(e), write}] {
		return true
	}
	if k := (siteKey{ssaPos(e), write}); k.pos.IsValid() && rc.drop[k] {
		entry := placement.EntryDrop
		if rc.member[k] {
			entry = placement.EntryMember
		}
		rc.pkg.sites.Render(entry, planKey(k))
		rc.dropped++
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
