package placement

import (
	"fmt"
	"go/ast"
	"go/types"
	"path/filepath"
	"regexp"
	"sort"
	"testing"

	"github.com/bigfoot-go/bigfoot/mode"
	"github.com/bigfoot-go/bigfoot/placement/entail"
)

// rangeRE matches the expectations of TestLoopSites: each
// `// range "K x[i]: decision"` comment states LoopSites' decision on an
// access of kind K (R or W) at its line, exactly (a line with decisions
// and no comment fails).
var rangeRE = regexp.MustCompile(`\brange((?:\s+"[^"]*")+)`)

// TestLoopSites is the golden test of the static loop ranges' hazards
// (testdata/src/looprange): statements that may panic after an access,
// operands changed through pointers and calls, and control flow.
func TestLoopSites(t *testing.T) {
	pkg, fset, files := loadCase(t, "looprange")
	want := map[string][]string{}
	exprs := map[string]string{} // "file:line:col" of a bracket -> the index expression
	for _, f := range files {
		for _, cg := range f.Comments {
			for _, c := range cg.List {
				pos := fset.Position(c.Pos())
				key := fmt.Sprintf("%s:%d", filepath.Base(pos.Filename), pos.Line)
				for _, m := range rangeRE.FindAllStringSubmatch(c.Text, -1) {
					for _, s := range strRE.FindAllStringSubmatch(m[1], -1) {
						want[key] = append(want[key], s[1])
					}
				}
			}
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if ix, ok := n.(*ast.IndexExpr); ok {
				pos := fset.Position(ix.Lbrack)
				exprs[fmt.Sprintf("%s:%d:%d", filepath.Base(pos.Filename), pos.Line, pos.Column)] = types.ExprString(ix)
			}
			return true
		})
	}
	facts := NewFacts(NewKillSets(pkg.Prog), nil)
	prover := entail.NewCached(&entail.Linear{Fallback: entail.NewZ3(1000)})
	got := map[string][]string{}
	for _, fn := range AnalyzedFunctions(pkg) {
		for k, s := range LoopSites(fn, facts, prover, FindSafeVars(pkg, SafeOptions{})) {
			pos := fset.Position(k.Pos)
			line := fmt.Sprintf("%s:%d", filepath.Base(pos.Filename), pos.Line)
			kind := "R"
			if k.Write {
				kind = "W"
			}
			got[line] = append(got[line], fmt.Sprintf("%s %s: %s", kind, exprs[fmt.Sprintf("%s:%d", line, pos.Column)], s))
		}
	}
	for _, m := range []map[string][]string{want, got} {
		for k := range m {
			sort.Strings(m[k])
		}
	}
	compare(t, mode.BigFoot, want, got)
}
