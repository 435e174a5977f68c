package placement

import (
	"fmt"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"maps"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"golang.org/x/tools/go/ssa"

	"github.com/bigfoot-go/bigfoot/mode"
)

var fpRE = regexp.MustCompile(`// fp (-|([RW])((?: [A-Z])+))$`)

// TestFootprints checks the plan's footprints on testdata/src/footprints
// in -mode=bigfoot: on a line marked `// fp K X Y`, the accesses of kind
// K (R or W) record into the footprints X and Y, and lines that name a
// footprint by the same letter share it; on a line marked `// fp -` no
// access records into one.
func TestFootprints(t *testing.T) {
	sp, fset, f := footprintPlan(t, "footprints")

	// got: per line and kind, the footprints of its sites.
	got := map[string][]*Footprint{}
	for _, fp := range sp.footprints {
		for _, s := range fp.Sites {
			k := fmt.Sprintf("%d %s", fset.Position(s.Pos).Line, kindLetter(s.Write))
			got[k] = append(got[k], fp)
		}
	}
	label := map[string]*Footprint{}
	owner := map[*Footprint]string{}
	for _, cg := range f.Comments {
		for _, c := range cg.List {
			m := fpRE.FindStringSubmatch(c.Text)
			if m == nil {
				continue
			}
			line := fset.Position(c.Pos()).Line
			if m[1] == "-" {
				for _, kind := range []string{"R", "W"} {
					if fps := got[fmt.Sprintf("%d %s", line, kind)]; len(fps) > 0 {
						t.Errorf("line %d: %s accesses in footprint %q, want none", line, kind, fps[0].Key)
					}
				}
				continue
			}
			fps := got[fmt.Sprintf("%d %s", line, m[2])]
			slices.SortFunc(fps, func(a, b *Footprint) int { return a.ID - b.ID })
			fps = slices.Compact(fps)
			want := strings.Fields(m[3])
			if len(fps) != len(want) {
				var keys []string
				for _, fp := range fps {
					keys = append(keys, fp.Key)
				}
				t.Errorf("line %d: %s accesses in %d footprints %q, want %d", line, m[2], len(fps), keys, len(want))
				continue
			}
			for _, w := range want {
				fp := label[w]
				if fp == nil {
					for _, c := range fps {
						if owner[c] == "" {
							fp = c
							break
						}
					}
					if fp == nil {
						t.Errorf("line %d: footprint %s: every footprint of the line has another letter", line, w)
						continue
					}
					label[w], owner[fp] = fp, w
				}
				if !slices.Contains(fps, fp) {
					t.Errorf("line %d: %s accesses not in footprint %s (%q)", line, m[2], w, fp.Key)
				}
			}
		}
	}
	if len(label) == 0 {
		t.Fatal("no footprint marks")
	}
}

func kindLetter(write bool) string {
	if write {
		return "W"
	}
	return "R"
}

// footprintPlan builds testdata/src/<name>/f.go in SSA and returns the
// plan of its footprints in -mode=bigfoot.
func footprintPlan(t *testing.T, name string) (*SitePlan, *token.FileSet, *ast.File) {
	t.Helper()
	dir := filepath.Join("testdata", "src", name)
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, filepath.Join(dir, "f.go"), nil, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	info := &types.Info{Types: map[ast.Expr]types.TypeAndValue{}, Defs: map[*ast.Ident]types.Object{},
		Uses: map[*ast.Ident]types.Object{}, Implicits: map[ast.Node]types.Object{},
		Selections: map[*ast.SelectorExpr]*types.Selection{}, Scopes: map[ast.Node]*types.Scope{}, Instances: map[*ast.Ident]types.Instance{}}
	tpkg, err := (&types.Config{Importer: importer.Default()}).Check(name, fset, []*ast.File{f}, info)
	if err != nil {
		t.Fatal(err)
	}
	prog := ssa.NewProgram(fset, ssa.SanityCheckFunctions)
	for _, imp := range tpkg.Imports() {
		prog.CreatePackage(imp, nil, nil, true)
	}
	spkg := prog.CreatePackage(tpkg, []*ast.File{f}, info, false)
	spkg.Build()
	sp := NewSitePlan()
	for _, fn := range AnalyzedFunctions(spkg) {
		sp.AddFootprints(fn, info, mode.BigFoot)
	}
	sp.DecideFootprints()
	return sp, fset, f
}

var repeatRE = regexp.MustCompile(`// (grow|repeat) ([RW])$`)

// TestFootprintRepeats checks FootprintSite.Repeat on
// testdata/src/fprepeat: a site that accesses the element a dominating
// site of its footprint accessed, from the same values, is a repeat.
func TestFootprintRepeats(t *testing.T) {
	sp, fset, f := footprintPlan(t, "fprepeat")
	got := map[string]bool{} // "line kind" -> Repeat
	for _, fp := range sp.footprints {
		for _, s := range fp.Sites {
			got[fmt.Sprintf("%d %s", fset.Position(s.Pos).Line, kindLetter(s.Write))] = s.Repeat
		}
	}
	n := 0
	for _, cg := range f.Comments {
		for _, c := range cg.List {
			m := repeatRE.FindStringSubmatch(c.Text)
			if m == nil {
				continue
			}
			n++
			k := fmt.Sprintf("%d %s", fset.Position(c.Pos()).Line, m[2])
			rep, ok := got[k]
			switch {
			case !ok:
				t.Errorf("line %s: no footprint site", k)
			case rep != (m[1] == "repeat"):
				t.Errorf("line %s: Repeat = %v, want %s", k, rep, m[1])
			}
		}
	}
	if n == 0 {
		t.Fatal("no marks")
	}
	// The footprints that log their sites: those with two sites that
	// grow the range at one offset.
	logs := map[string]bool{}
	for _, fp := range sp.footprints {
		if fp.LogsSites() {
			logs[fp.Func] = true
		}
	}
	want := map[string]bool{"fprepeat.merge": true, "fprepeat.branches": true}
	if !maps.Equal(logs, want) {
		t.Errorf("functions with footprints that log sites: %v, want %v", logs, want)
	}
}
