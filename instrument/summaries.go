package instrument

import (
	"go/ast"
	"go/token"

	"golang.org/x/tools/go/packages"
	"golang.org/x/tools/go/ssa"

	"github.com/bigfoot-go/bigfoot/placement"
)

// Effect summaries across the packages of one build (docs/placement.md,
// "Effect summaries"). Each package is built into its own SSA program with
// its imports from export data, so the kill sets see no body of another
// package. Before rendering, summarize builds the SSA of every package the
// run instruments in import order and exports the summaries of its
// functions (placement.KillSets.Export), computed with the summaries of
// the packages it imports; the kill sets of every package then know, for
// a call into another package of the build, whether it may synchronize,
// panic or fail to return. A package that does not build into SSA exports
// nothing: calls into it stay unknown. Packages instrumented by earlier
// runs of the same build (the standard library's, the dependencies') pass
// their summaries in as facts (Config.Facts, Result.Facts: facts.go);
// calls into packages that no run summarized (the standard library's
// uninstrumented packages, a dependency left as it is) stay unknown but
// for the kill sets' own tables.

// summaries holds the run's summary table and the SSA it built, which
// instrumentPackage reuses.
type summaries struct {
	tab     placement.FuncSummaries
	built   map[*packages.Package]builtSSA
	exports map[string]placement.FuncSummaries // import path -> its own summaries
}

type builtSSA struct {
	heap map[token.Pos]bool
	prog *ssa.Program
	spkg *ssa.Package
	err  error
}

// summarize computes the summaries of pkgs, dependencies first, with the
// imported summaries of packages instrumented by earlier runs.
func summarize(pkgs []*packages.Package, imported placement.FuncSummaries) *summaries {
	s := newSummaries(imported)
	for _, pkg := range importOrder(pkgs) {
		s.add(pkg)
	}
	return s
}

// newSummaries returns a table holding the imported summaries.
func newSummaries(imported placement.FuncSummaries) *summaries {
	s := &summaries{tab: placement.FuncSummaries{}, built: map[*packages.Package]builtSSA{}, exports: map[string]placement.FuncSummaries{}}
	for k, v := range imported {
		s.tab[k] = v
	}
	return s
}

// add builds pkg's SSA, keeps it for ssaOf, and adds the summaries of
// pkg's functions, computed with those already in the table.
func (s *summaries) add(pkg *packages.Package) {
	heap, prog, spkg, err := buildSSA(pkg)
	s.built[pkg] = builtSSA{heap, prog, spkg, err}
	if err != nil {
		return
	}
	defer func() { recover() }() // no summaries: calls into pkg stay unknown
	ks := placement.NewKillSetsWith(prog, placement.KillSetOptions{Summaries: s.tab})
	exp := ks.Export(spkg)
	if pkg.ID == pkg.PkgPath { // not a test variant
		s.exports[pkg.PkgPath] = exp
	}
	for k, v := range exp {
		if old, ok := s.tab[k]; ok {
			// A package and its test variant summarize the
			// same function: keep what both allow.
			v = mergeSummary(old, v)
		}
		s.tab[k] = v
	}
}

// importOrder returns pkgs with every package after the packages of pkgs
// it imports.
func importOrder(pkgs []*packages.Package) []*packages.Package {
	byID := map[string]*packages.Package{}
	for _, p := range pkgs {
		byID[p.ID] = p
	}
	seen := map[*packages.Package]bool{}
	var out []*packages.Package
	var visit func(p *packages.Package)
	visit = func(p *packages.Package) {
		if seen[p] {
			return
		}
		seen[p] = true
		for _, imp := range p.Imports {
			if q := byID[imp.ID]; q != nil {
				visit(q)
			}
		}
		out = append(out, p)
	}
	for _, p := range pkgs {
		visit(p)
	}
	return out
}

// ssaOf returns the SSA of pkg, built by summarize or now.
func (s *summaries) ssaOf(pkg *packages.Package) (map[token.Pos]bool, *ssa.Program, *ssa.Package, error) {
	if s != nil {
		if b, ok := s.built[pkg]; ok {
			delete(s.built, pkg) // instrumentPackage uses it once
			return b.heap, b.prog, b.spkg, b.err
		}
	}
	return buildSSA(pkg)
}

// table returns the summary table (nil if none).
func (s *summaries) table() placement.FuncSummaries {
	if s == nil {
		return nil
	}
	return s.tab
}

// mergeSummary returns what both summaries allow: the union of their
// effects and hazards.
func mergeSummary(a, b placement.FuncSummary) placement.FuncSummary {
	return placement.FuncSummary{
		Effects:      a.Effects | b.Effects,
		MayPanic:     a.MayPanic || b.MayPanic,
		MayNotReturn: a.MayNotReturn || b.MayNotReturn,
		Simple:       a.Simple && b.Simple,
	}
}

// callSummary returns the summary of the call whose left parenthesis is at
// lparen, if the package's SSA has one there.
func (r *fileRewriter) callSummary(lparen token.Pos) (placement.FuncSummary, bool) {
	if r.rc == nil || r.rc.pkg == nil {
		return placement.FuncSummary{}, false
	}
	s, ok := r.rc.pkg.callSum[lparen]
	return s, ok
}

// harmlessCall reports whether the call returns normally without
// synchronizing (placement.FuncSummary.Harmless).
func (r *fileRewriter) harmlessCall(c *ast.CallExpr) bool {
	s, ok := r.callSummary(c.Lparen)
	return ok && s.Harmless()
}
