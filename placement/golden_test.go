package placement

import (
	"fmt"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"golang.org/x/tools/go/ssa"
	"golang.org/x/tools/go/ssa/ssautil"

	"github.com/bigfoot-go/bigfoot/mode"
	"github.com/bigfoot-go/bigfoot/placement/entail"
)

// The golden tests follow x/tools' analysistest: each directory
// testdata/src/<case> is a package whose comments state the checks placed
// at their line (see doc.go, "Golden tests"):
//
//	// want "W p.x,p.y,p.z"        BigFoot checks at this line
//	// redcard "W p.x" "R q.f"     RedCard checks at this line
//	// want "fallback <reason>"    on a func line: the analysis gave up
//	// want "unpub W k.a"          an unpublished access: no check (Plan.Notes)
//	// want "call f__bfnc covers …" a call of a copy (Plan.Notes); "copy f__bfnc" on a func line
//
// BigFoot expectations are exact for every case: a line with checks and no
// want comment fails, as does a want with no check. RedCard expectations
// are exact for the cases that have at least one redcard comment.

var wantRE = regexp.MustCompile(`\b(want|redcard)((?:\s+"[^"]*")+)`)
var strRE = regexp.MustCompile(`"([^"]*)"`)

// loadCase parses and type-checks testdata/src/<name> and builds its SSA.
func loadCase(t *testing.T, name string) (*ssa.Package, *token.FileSet, []*ast.File) {
	t.Helper()
	dir := filepath.Join("testdata", "src", name)
	fset := token.NewFileSet()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var files []*ast.File
	for _, e := range ents {
		if !strings.HasSuffix(e.Name(), ".go") {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, e.Name()), nil, parser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	pkg := types.NewPackage(name, files[0].Name.Name)
	conf := &types.Config{Importer: importer.Default()}
	ssapkg, _, err := ssautil.BuildPackage(conf, fset, pkg, files, ssa.SanityCheckFunctions|ssa.InstantiateGenerics)
	if err != nil {
		t.Fatal(err)
	}
	return ssapkg, fset, files
}

// expectations maps "file:line" to the sorted expected checks, per mode.
func expectations(fset *token.FileSet, files []*ast.File) (bf, rc map[string][]string, hasRC bool) {
	bf, rc = make(map[string][]string), make(map[string][]string)
	for _, f := range files {
		for _, cg := range f.Comments {
			for _, c := range cg.List {
				pos := fset.Position(c.Pos())
				key := fmt.Sprintf("%s:%d", filepath.Base(pos.Filename), pos.Line)
				for _, m := range wantRE.FindAllStringSubmatch(c.Text, -1) {
					for _, s := range strRE.FindAllStringSubmatch(m[2], -1) {
						if m[1] == "want" {
							bf[key] = append(bf[key], s[1])
						} else {
							rc[key] = append(rc[key], s[1])
							hasRC = true
						}
					}
				}
			}
		}
	}
	for _, m := range []map[string][]string{bf, rc} {
		for k := range m {
			sort.Strings(m[k])
		}
	}
	return bf, rc, hasRC
}

// analyzeCase runs Analyze on every function of pkg and returns the checks
// by "file:line", checking on the way that every access is covered.
func analyzeCase(t *testing.T, pkg *ssa.Package, fset *token.FileSet, m mode.Mode, prover entail.Prover) map[string][]string {
	t.Helper()
	return analyzeCaseWith(t, pkg, fset, m, prover, NewKillSets(pkg.Prog))
}

// analyzeCaseWith is analyzeCase with the given kill sets.
func analyzeCaseWith(t *testing.T, pkg *ssa.Package, fset *token.FileSet, m mode.Mode, prover entail.Prover, ks *KillSets) map[string][]string {
	t.Helper()
	got := make(map[string][]string)
	safe := caseSafeVars(pkg, m)
	var dec *Decisions
	if m == mode.BigFoot {
		dec = Decide(AnalyzedFunctions(pkg), NewFacts(ks, nil), DecideOptions{Covers: true, Unpublished: true})
	}
	for _, fn := range AnalyzedFunctions(pkg) {
		plan := Analyze(fn, Config{Mode: m, Effects: ks, Prover: prover, Safe: safe, Decisions: dec})
		if plan.Fallback != "" {
			// Expected as `// want "fallback <reason>"` on the func line.
			pos := fset.Position(fn.Pos())
			key := fmt.Sprintf("%s:%d", filepath.Base(pos.Filename), pos.Line)
			got[key] = append(got[key], "fallback "+plan.Fallback)
			if len(plan.Checks) != len(plan.Accesses) {
				t.Errorf("%s: fallback plan has %d checks for %d accesses", fn, len(plan.Checks), len(plan.Accesses))
			}
			continue
		}
		if err := Verify(plan); err != nil {
			t.Errorf("%s: %v", m, err)
		}
		for _, c := range plan.Checks {
			pos := fset.Position(c.At.Pos())
			key := fmt.Sprintf("%s:%d", filepath.Base(pos.Filename), pos.Line)
			got[key] = append(got[key], c.String())
		}
		for _, n := range plan.Notes() {
			if !n.Pos.IsValid() {
				continue
			}
			pos := fset.Position(n.Pos)
			key := fmt.Sprintf("%s:%d", filepath.Base(pos.Filename), pos.Line)
			got[key] = append(got[key], n.Text)
		}
	}
	for k := range got {
		sort.Strings(got[k])
	}
	return got
}

// caseSafeVars is the static safe class the instrumenter applies in mode:
// in BigFoot mode (-mode=bigfoot), none in the others.
func caseSafeVars(pkg *ssa.Package, m mode.Mode) *SafeVars {
	if m != mode.BigFoot {
		return nil
	}
	return FindSafeVars(pkg, SafeOptions{})
}

func compare(t *testing.T, m mode.Mode, want, got map[string][]string) {
	t.Helper()
	var keys []string
	for k := range want {
		keys = append(keys, k)
	}
	for k := range got {
		if _, ok := want[k]; !ok {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		w, g := strings.Join(want[k], " ; "), strings.Join(got[k], " ; ")
		if w != g {
			t.Errorf("%s %s: got checks [%s], want [%s]", m, k, g, w)
		}
	}
}

var cases = []string{
	"fig31", "fig33", "fig36a", "fig36b",
	"rel", "acq", "readwrite", "ifrule", "looprule", "call", "unknown",
	"selectcase", "deferred", "closures", "ranges", "labels", "switches",
	"panics", "generics", "methodvalue", "alias", "unbounded", "coalesce",
	"extended", "fresh", "syncs", "loops2", "stride", "safevars", "owner",
	"nonlinear",
}

func TestGolden(t *testing.T) {
	prover := entail.NewCached(&entail.Linear{Fallback: entail.NewZ3(1000)})
	for _, name := range cases {
		t.Run(name, func(t *testing.T) {
			pkg, fset, files := loadCase(t, name)
			bf, rc, hasRC := expectations(fset, files)
			compare(t, mode.BigFoot, bf, analyzeCase(t, pkg, fset, mode.BigFoot, prover))
			if hasRC {
				compare(t, mode.RedCard, rc, analyzeCase(t, pkg, fset, mode.RedCard, prover))
			} else {
				analyzeCase(t, pkg, fset, mode.RedCard, prover) // coverage only
			}
		})
	}
	t.Logf("prover: %+v", prover.Stats())
}

// TestNonlinearZ3 checks that the product case reaches Z3: sameCell's
// two writes are one check only because Z3 proves i = 2 ⊢ i*n = 2n.
func TestNonlinearZ3(t *testing.T) {
	pkg, _, _ := loadCase(t, "nonlinear")
	sum, _ := Summarize(pkg, NewKillSets(pkg.Prog))
	if sum.Z3Calls == 0 {
		t.Errorf("Summarize made no Z3 call; prover stats %+v", sum.Prover)
	}
}

// TestFastTrack checks the trivial plan: one check per access, in place.
func TestFastTrack(t *testing.T) {
	pkg, fset, _ := loadCase(t, "fig31")
	ks := NewKillSets(pkg.Prog)
	for fn := range allFunctions(pkg.Prog) {
		if fn.Pkg != pkg {
			continue
		}
		plan := Analyze(fn, Config{Mode: mode.FastTrack, Effects: ks})
		if len(plan.Checks) != len(plan.Accesses) {
			t.Errorf("%s: %d checks for %d accesses", fn, len(plan.Checks), len(plan.Accesses))
		}
		for i, c := range plan.Checks {
			if c.Covers[0] != plan.Accesses[i] || c.Why != AtAccess {
				t.Errorf("%s: check %d at %v does not check access %d in place", fn, i, fset.Position(c.At.Pos()), i)
			}
		}
	}
}

// TestConcurrent analyzes the functions of a case from several goroutines
// sharing one KillSets and one prover (as a parallel driver would) and
// expects the sequential result.
func TestConcurrent(t *testing.T) {
	pkg, _, _ := loadCase(t, "methodvalue") // exercises KillSets' lazy wrappers
	ks := NewKillSets(pkg.Prog)
	prover := entail.NewCached(&entail.Linear{Fallback: entail.NewZ3(1000)})
	fns := AnalyzedFunctions(pkg)
	render := func(p *Plan) string { return fmt.Sprint(p.Checks) }
	want := make([]string, len(fns))
	for i, fn := range fns {
		want[i] = render(Analyze(fn, Config{Mode: mode.BigFoot, Effects: NewKillSets(pkg.Prog), Prover: prover}))
	}
	got := make([]string, len(fns))
	done := make(chan bool)
	for i, fn := range fns {
		go func() {
			got[i] = render(Analyze(fn, Config{Mode: mode.BigFoot, Effects: ks, Prover: prover}))
			done <- true
		}()
	}
	for range fns {
		<-done
	}
	for i := range fns {
		if got[i] != want[i] {
			t.Errorf("%s: concurrent %s, sequential %s", fns[i], got[i], want[i])
		}
	}
}

// TestFormatAndValues checks the report format and the values a check
// names on Figure 3.6(b).
func TestFormatAndValues(t *testing.T) {
	pkg, fset, _ := loadCase(t, "fig36b")
	fn := pkg.Func("fig36b")
	plan := Analyze(fn, Config{Mode: mode.BigFoot, Effects: NewKillSets(pkg.Prog)})
	var b strings.Builder
	plan.Format(&b, fset)
	for _, want := range []string{"fig36b.fig36b: 2 accesses, bigfoot: 2 checks", "W a[0..i]", "R b.f if 0<i", "covers W a[i] at fig36b.go:11"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("Format output lacks %q:\n%s", want, b.String())
		}
	}
	for _, c := range plan.Checks {
		var names []string
		for _, v := range c.Values() {
			names = append(names, v.Name())
		}
		sort.Strings(names)
		got := strings.Join(names, ",")
		want := map[string]string{"W a[0..i]": "a,t0", "R b.f if 0<i": "b,t0"}[c.String()]
		if got != want {
			t.Errorf("%v: Values = %s, want %s", c, got, want)
		}
	}
}
