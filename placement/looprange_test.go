package placement

import (
	"fmt"
	"go/ast"
	"go/token"
	"go/types"
	"path/filepath"
	"regexp"
	"slices"
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

// TestSitePlan checks the site plan's bookkeeping on testdata/src/looprange:
// every admitted range names the innermost loop statement whose body holds
// its accesses; LoopKeys lists a loop's admitted ranges; Refuse (the first
// reason standing) and Render are what Ranges reports, and a refusal of
// placement's own stands over the instrumenter's.
func TestSitePlan(t *testing.T) {
	pkg, fset, files := loadCase(t, "looprange")
	facts := NewFacts(NewKillSets(pkg.Prog), nil)
	prover := entail.NewCached(&entail.Linear{Fallback: entail.NewZ3(1000)})
	plan := NewSitePlan()
	for _, fn := range AnalyzedFunctions(pkg) {
		plan.AddLoopSites(LoopSites(fn, facts, prover, FindSafeVars(pkg, SafeOptions{})))
	}
	var loops []ast.Node // every for and range statement
	for _, f := range files {
		ast.Inspect(f, func(n ast.Node) bool {
			switch n.(type) {
			case *ast.ForStmt, *ast.RangeStmt:
				loops = append(loops, n)
			}
			return true
		})
	}
	innermost := func(pos token.Pos) token.Pos {
		var in ast.Node
		for _, l := range loops {
			if l.Pos() <= pos && pos < l.End() && (in == nil || l.Pos() > in.Pos()) {
				in = l
			}
		}
		if in == nil {
			return token.NoPos
		}
		return in.Pos()
	}
	var admitted []SiteKey
	for k, s := range plan.loops {
		if s.Refused != "" {
			continue
		}
		admitted = append(admitted, k)
		if len(s.Sites) == 0 {
			t.Errorf("%v: an admitted range with no access", fset.Position(k.Pos))
		}
		for _, a := range s.Sites {
			if got := innermost(a.Pos); got != s.Loop {
				t.Errorf("%v: range of the loop at %v, want %v", fset.Position(a.Pos), fset.Position(s.Loop), fset.Position(got))
			}
		}
	}
	slices.SortFunc(admitted, SiteKey.compare)
	if len(admitted) < 2 {
		t.Fatalf("%d admitted ranges, want 2 or more", len(admitted))
	}
	rendered, refused := admitted[0], admitted[1]
	if keys := plan.LoopKeys(plan.Loop(rendered).Loop); !slices.Contains(keys, rendered) {
		t.Errorf("LoopKeys(%v) = %v, lacks %v", fset.Position(plan.Loop(rendered).Loop), keys, rendered)
	}
	for _, k := range admitted {
		for _, l := range plan.LoopKeys(plan.Loop(k).Loop) {
			if plan.Loop(l).Loop != plan.Loop(k).Loop || plan.Loop(l).Refused != "" {
				t.Errorf("LoopKeys(%v) has %v, of another loop or refused", fset.Position(plan.Loop(k).Loop), fset.Position(l.Pos))
			}
		}
	}
	plan.Render(EntryRange, rendered)
	plan.Refuse(EntryRange, refused, "no form for it")
	plan.Refuse(EntryRange, refused, "a second reason")
	var placementRefused SiteKey
	for k, s := range plan.loops {
		if s.Refused != "" {
			placementRefused = k
			plan.Refuse(EntryRange, k, "the instrumenter's")
			break
		}
	}
	is := func(d RangeDecision, k SiteKey) bool { return d.Pos == fset.Position(k.Pos) && d.Write == k.Write }
	for _, d := range plan.Ranges(fset) {
		var want RangeDecision
		switch {
		case is(d, rendered):
			want.Rendered = true
		case is(d, refused):
			want.Refused = "no form for it"
		case is(d, placementRefused) && d.Admitted():
			t.Errorf("%v: admitted, want placement's refusal", d)
		}
		if d.Rendered != want.Rendered || d.Refused != want.Refused {
			t.Errorf("%v %v: rendered %v, refused %q; want %v, %q", d.Pos, d.Write, d.Rendered, d.Refused, want.Rendered, want.Refused)
		}
	}
}
