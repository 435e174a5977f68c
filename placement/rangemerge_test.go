package placement

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/bigfoot-go/bigfoot/mode"
	"github.com/bigfoot-go/bigfoot/placement/entail"
)

// mergeRE matches the expectations of TestRangeMerges.
var mergeRE = regexp.MustCompile(`\bmerge((?:\s+"[^"]*")+)`)

// TestRangeMerges is the golden test of the merged static ranges
// (testdata/src/rangemerge): each merge the site plan decides is stated
// at the line of its first member by a `// merge "K members: step S;
// after …; loads …; before …"` comment naming the accesses by their
// expressions (after: the member whose index the extent stored after
// each statement is; loads: each read that stores the extent itself, >
// the member whose index it stores; before: the reads of other ranges
// that must store their own), and a line with a merge and no comment
// fails.
func TestRangeMerges(t *testing.T) {
	pkg, fset, files := loadCase(t, "rangemerge")
	want := map[string][]string{}
	exprs := map[token.Pos]string{} // the access at a position go/ssa gives it
	for _, f := range files {
		for _, cg := range f.Comments {
			for _, c := range cg.List {
				for _, m := range mergeRE.FindAllStringSubmatch(c.Text, -1) {
					for _, s := range strRE.FindAllStringSubmatch(m[1], -1) {
						k := lineKey(fset, c.Pos())
						want[k] = append(want[k], s[1])
					}
				}
			}
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if e, ok := n.(ast.Expr); ok {
				if p := accessPosOf(e); p.IsValid() {
					exprs[p] = strings.ReplaceAll(types.ExprString(e), " ", "")
				}
			}
			return true
		})
	}
	ks := NewKillSets(pkg.Prog)
	facts := NewFacts(ks, TargetSizes())
	fns := AnalyzedFunctions(pkg)
	dec := Decide(fns, facts, DecideOptions{Covers: true, Unpublished: true})
	cfg := SiteConfig{Mode: mode.BigFoot, Facts: facts, Prover: entail.NewCached(&entail.Linear{Fallback: entail.NewZ3(1000)}),
		Safe: FindSafeVars(pkg, SafeOptions{}), Decisions: dec, Ranges: true}
	plan := NewSitePlan()
	for _, fn := range fns {
		plan.AddFunction(fn, cfg)
	}
	plan.Decide(facts)
	got := map[string][]string{}
	names := func(ks []SiteKey) string {
		var out []string
		for _, k := range ks {
			out = append(out, exprs[k.Pos])
		}
		return strings.Join(out, " ")
	}
	loops := map[token.Pos]bool{}
	for _, s := range plan.loops {
		loops[s.Loop] = true
	}
	for loop := range loops {
		for _, m := range plan.Merges(loop) {
			s := fmt.Sprintf("%s %s: step %d", kindName(m.Write), names(m.Members), m.Step)
			var after []SiteKey
			for _, p := range slices.Sorted(func(yield func(token.Pos) bool) {
				for p := range m.After {
					if !yield(p) {
						return
					}
				}
			}) {
				after = append(after, m.After[p])
			}
			s += "; after " + names(after)
			if len(m.Loads) > 0 {
				var loads []string
				for _, k := range m.Members {
					if to, ok := m.Loads[k]; ok {
						loads = append(loads, exprs[k.Pos]+">"+exprs[to.Pos])
					}
				}
				s += "; loads " + strings.Join(loads, " ")
			}
			if len(m.Before) > 0 {
				s += "; before " + names(m.Before)
			}
			k := lineKey(fset, m.First.Pos)
			got[k] = append(got[k], s)
		}
	}
	for k := range mergeKeys(want, got) {
		slices.Sort(want[k])
		slices.Sort(got[k])
		if !slices.Equal(want[k], got[k]) {
			t.Errorf("%s: got %q, want %q", k, got[k], want[k])
		}
	}
}
