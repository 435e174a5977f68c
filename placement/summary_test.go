package placement

import (
	"fmt"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/tools/go/ssa"

	"github.com/bigfoot-go/bigfoot/mode"
	"github.com/bigfoot-go/bigfoot/placement/entail"
)

// The cross-package summary tests: testdata/summary/crosspkg calls
// testdata/summary/dep (import path bigfoottest/dep). The build's view
// (each package its own SSA program, imports without bodies, summaries
// of the imports) must place the checks the want comments say, and the
// same checks as bigfoot analyze's view (one program with both bodies).

const depPath = "bigfoottest/dep"

// parseDir parses the Go files of testdata/summary/<name>.
func parseDir(t *testing.T, fset *token.FileSet, name string) []*ast.File {
	t.Helper()
	matches, err := filepath.Glob(filepath.Join("testdata", "summary", name, "*.go"))
	if err != nil || len(matches) == 0 {
		t.Fatalf("no files for %s: %v", name, err)
	}
	var files []*ast.File
	for _, m := range matches {
		f, err := parser.ParseFile(fset, m, nil, parser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	return files
}

// depImporter resolves bigfoottest/dep to dep and everything else from
// export data.
type depImporter struct{ dep *types.Package }

func (im depImporter) Import(path string) (*types.Package, error) {
	if path == depPath {
		return im.dep, nil
	}
	return importer.Default().Import(path)
}

func typeCheck(t *testing.T, fset *token.FileSet, path string, files []*ast.File, im types.Importer) (*types.Package, *types.Info) {
	t.Helper()
	info := &types.Info{Types: map[ast.Expr]types.TypeAndValue{}, Defs: map[*ast.Ident]types.Object{},
		Uses: map[*ast.Ident]types.Object{}, Implicits: map[ast.Node]types.Object{}, Selections: map[*ast.SelectorExpr]*types.Selection{},
		Scopes: map[ast.Node]*types.Scope{}, Instances: map[*ast.Ident]types.Instance{}, FileVersions: map[*ast.File]string{}}
	pkg, err := (&types.Config{Importer: im}).Check(path, fset, files, info)
	if err != nil {
		t.Fatal(err)
	}
	return pkg, info
}

// program creates an SSA program with bodies for the given packages and
// bodiless packages for everything they import.
func program(fset *token.FileSet, srcs []srcPkg) (*ssa.Program, []*ssa.Package) {
	prog := ssa.NewProgram(fset, ssa.SanityCheckFunctions)
	own := map[*types.Package]bool{}
	for _, s := range srcs {
		own[s.pkg] = true
	}
	created := map[*types.Package]bool{}
	var create func(p *types.Package)
	create = func(p *types.Package) {
		for _, imp := range p.Imports() {
			if !created[imp] && !own[imp] {
				created[imp] = true
				create(imp)
				prog.CreatePackage(imp, nil, nil, true)
			}
		}
	}
	var out []*ssa.Package
	for _, s := range srcs {
		create(s.pkg)
	}
	for _, s := range srcs {
		out = append(out, prog.CreatePackage(s.pkg, s.files, s.info, false))
	}
	prog.Build()
	return prog, out
}

type srcPkg struct {
	pkg   *types.Package
	files []*ast.File
	info  *types.Info
}

func loadSummaryCase(t *testing.T) (fset *token.FileSet, dep, cross srcPkg) {
	fset = token.NewFileSet()
	depFiles := parseDir(t, fset, "dep")
	dp, di := typeCheck(t, fset, depPath, depFiles, importer.Default())
	crossFiles := parseDir(t, fset, "crosspkg")
	cp, ci := typeCheck(t, fset, "crosspkg", crossFiles, depImporter{dp})
	return fset, srcPkg{dp, depFiles, di}, srcPkg{cp, crossFiles, ci}
}

func TestCrossPackageSummaries(t *testing.T) {
	fset, dep, cross := loadSummaryCase(t)
	prover := entail.NewCached(&entail.Linear{Fallback: entail.NewZ3(1000)})

	// The build: dep alone, then crosspkg with dep's summaries.
	depProg, depPkgs := program(fset, []srcPkg{dep})
	sums := NewKillSets(depProg).Export(depPkgs[0])
	buildProg, buildPkgs := program(fset, []srcPkg{cross})
	buildKS := NewKillSetsWith(buildProg, KillSetOptions{Summaries: sums})
	want, _, _ := expectations(fset, cross.files)
	got := analyzeCaseWith(t, buildPkgs[0], fset, mode.BigFoot, prover, buildKS)
	compare(t, mode.BigFoot, want, got)

	// Without the summaries every call of dep is unknown: the pure calls
	// kill the ranges (the test can fail).
	bare := analyzeCaseWith(t, buildPkgs[0], fset, mode.BigFoot, prover, NewKillSets(buildProg))
	if fmt.Sprint(bare) == fmt.Sprint(got) {
		t.Errorf("plans without summaries equal plans with them: %v", bare)
	}

	// bigfoot analyze: one program with both bodies, restricted to the
	// packages of the build (here: both).
	wholeProg, wholePkgs := program(fset, []srcPkg{dep, cross})
	wholeKS := NewKillSetsWith(wholeProg, KillSetOptions{Bodies: func(*ssa.Package) bool { return true }})
	whole := analyzeCaseWith(t, wholePkgs[1], fset, mode.BigFoot, prover, wholeKS)
	if fmt.Sprint(whole) != fmt.Sprint(got) {
		t.Errorf("the build and analyze disagree:\nbuild   %v\nanalyze %v", got, whole)
	}
	// The whole program's summaries of dep are the exported ones.
	for k, s := range wholeKS.Export(wholePkgs[0]) {
		if sums[k] != s {
			t.Errorf("%s: whole-program summary %+v, per-package %+v", k, s, sums[k])
		}
	}
	// Restricting analyze to crosspkg's bodies makes dep unknown, as a
	// build without dep's summaries.
	onlyCross := NewKillSetsWith(wholeProg, KillSetOptions{Bodies: func(p *ssa.Package) bool { return p == wholePkgs[1] }})
	if r := analyzeCaseWith(t, wholePkgs[1], fset, mode.BigFoot, prover, onlyCross); fmt.Sprint(r) != fmt.Sprint(bare) {
		t.Errorf("restricted analyze and the build without summaries disagree:\n%v\n%v", r, bare)
	}
}

// TestSummaries checks each function summary of dep.
func TestSummaries(t *testing.T) {
	fset, dep, _ := loadSummaryCase(t)
	prog, pkgs := program(fset, []srcPkg{dep})
	sums := NewKillSets(prog).Export(pkgs[0])
	want := map[string]string{
		"bigfoottest/dep.Pure":             "none harmless simple",
		"bigfoottest/dep.Mix":              "none loop",
		"bigfoottest/dep.Locks":            "acquire+release panic loop",
		"bigfoottest/dep.Even":             "none panic loop", // recursion
		"bigfoottest/dep.Odd":              "none panic loop",
		"bigfoottest/dep.Down":             "acquire+release panic loop",
		"bigfoottest/dep.AreaOf":           "acquire+release panic loop",
		"bigfoottest/dep.Apply":            "acquire+release panic loop",
		"bigfoottest/dep.Spawn":            "release panic loop",
		"(bigfoottest/dep.V).Dot":          "none harmless simple",
		"(*bigfoottest/dep.Counter).Inc":   "acquire+release panic loop",
		"bigfoottest/dep.lock":             "acquire panic loop",
		"bigfoottest/dep.unlock":           "release panic loop",
		"(*bigfoottest/dep.V).Dot":         "",
		"(bigfoottest/dep.Shape).Area":     "",
		"bigfoottest/dep.init":             "",
		"(*bigfoottest/dep.Counter).Inc$1": "",
	}
	for k, w := range want {
		s, ok := sums[k]
		if w == "" {
			continue
		}
		if !ok {
			t.Errorf("%s: no summary", k)
			continue
		}
		var b strings.Builder
		b.WriteString(s.Effects.String())
		switch {
		case s.Harmless():
			b.WriteString(" harmless")
		default:
			if s.MayPanic {
				b.WriteString(" panic")
			}
			if s.MayNotReturn {
				b.WriteString(" loop")
			}
		}
		if s.Simple {
			b.WriteString(" simple")
		}
		if b.String() != w {
			t.Errorf("%s: %s, want %s", k, b.String(), w)
		}
	}
	for k := range sums {
		if _, ok := want[k]; !ok {
			t.Errorf("unexpected summary of %s", k)
		}
	}
}

// TestMathFacts: a fact from the standard library's run that sees math's
// assembly implementations as unknown (may panic, may not return) does not
// override the rule that math's functions compute and return: dep.Pure,
// which calls math.Sqrt, stays harmless.
func TestMathFacts(t *testing.T) {
	fset, dep, _ := loadSummaryCase(t)
	prog, pkgs := program(fset, []srcPkg{dep})
	facts := FuncSummaries{"math.Sqrt": {MayPanic: true, MayNotReturn: true}}
	sums := NewKillSetsWith(prog, KillSetOptions{Summaries: facts}).Export(pkgs[0])
	if s := sums["bigfoottest/dep.Pure"]; !s.Harmless() || !s.Simple {
		t.Errorf("dep.Pure with a pessimistic fact for math.Sqrt: %+v, want harmless and simple", s)
	}
}
