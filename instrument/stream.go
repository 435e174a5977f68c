package instrument

import (
	"go/types"

	"golang.org/x/tools/go/packages"

	"github.com/bigfoot-go/bigfoot/placement"
)

// Streaming (docs/build.md, "Build cost"). A run over many packages (the
// dependency modules of a large module, the standard library) used to
// build the SSA of every package for the effect summaries, keep it, and
// then render the packages one by one: the SSA programs of all packages,
// each with its imports' members, and their syntax and type information
// were alive together. When every package of the run is loaded once (no
// test variants), a package's summaries are final as soon as it is
// summarized, so streamPackages summarizes each package, renders it at
// once from the same SSA, and drops the package's syntax and type
// information: at any time the run holds the SSA of one package.

// oneVariantEach reports whether no two of pkgs are variants of one
// package (a package and its test variant, which summarize the same
// functions) and none has test files, whose generated TestMain is
// assembled across the packages of a directory.
func oneVariantEach(pkgs []*packages.Package) bool {
	seen := map[string]bool{}
	for _, p := range pkgs {
		if seen[p.PkgPath] || isTestVariant(p) {
			return false
		}
		seen[p.PkgPath] = true
		for _, f := range p.CompiledGoFiles {
			if isTestFile(f) {
				return false
			}
		}
	}
	return true
}

// streamPackages summarizes (if plans) and renders each of pkgs, every
// package after those it depends on, and releases each package's syntax
// and type information once it is rendered. The result is what
// summarizing every package first and then rendering them in the order of
// pkgs gives: the summaries a package's rendering reads, its own and its
// dependencies', are final when it is rendered (no other package
// summarizes their functions), and the merged ranges, the one part of
// the plan that is not sorted by position afterwards, are kept in the
// order of pkgs.
func streamPackages(pkgs []*packages.Package, plans bool, imported placement.FuncSummaries, res *Result, instrument func(*packages.Package, *summaries)) {
	var sums *summaries
	if plans {
		sums = newSummaries(imported)
	}
	index := make(map[*packages.Package]int, len(pkgs))
	for i, p := range pkgs {
		index[p] = i
	}
	merges := make([][]placement.MergeDecision, len(pkgs))
	for _, pkg := range dependencyOrder(pkgs) {
		if plans {
			sums.add(pkg)
		}
		n := len(res.Plan.Merges)
		instrument(pkg, sums)
		merges[index[pkg]] = append([]placement.MergeDecision(nil), res.Plan.Merges[n:]...)
		res.Plan.Merges = res.Plan.Merges[:n]
		pkg.Syntax, pkg.TypesInfo = nil, nil
	}
	for _, m := range merges {
		res.Plan.Merges = append(res.Plan.Merges, m...)
	}
	if plans {
		res.Facts = sums.encodeExports()
	}
}

// dependencyOrder returns pkgs with every package after the packages of
// pkgs it depends on, directly or through packages outside pkgs (whose
// exported types can make a package call a method of one it does not
// import): the import graph of the packages' types. pkgs have distinct
// import paths (oneVariantEach).
func dependencyOrder(pkgs []*packages.Package) []*packages.Package {
	byPath := make(map[string]*packages.Package, len(pkgs))
	for _, p := range pkgs {
		byPath[p.PkgPath] = p
	}
	seen := map[string]bool{}
	var out []*packages.Package
	var visit func(t *types.Package)
	visit = func(t *types.Package) {
		if seen[t.Path()] {
			return
		}
		seen[t.Path()] = true
		for _, imp := range t.Imports() {
			visit(imp)
		}
		if p := byPath[t.Path()]; p != nil {
			out = append(out, p)
		}
	}
	for _, p := range pkgs {
		if p.Types != nil {
			visit(p.Types)
		} else if !seen[p.PkgPath] {
			seen[p.PkgPath] = true
			out = append(out, p)
		}
	}
	return out
}
