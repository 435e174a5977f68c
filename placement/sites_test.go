package placement

import (
	"fmt"
	"regexp"
	"slices"
	"testing"

	"golang.org/x/tools/go/ssa"

	"github.com/bigfoot-go/bigfoot/mode"
	"github.com/bigfoot-go/bigfoot/placement/entail"
)

// siteRE matches the expectations of TestSiteDecisions.
var siteRE = regexp.MustCompile(`\bsite((?:\s+"[^"]*")+)`)

// TestSiteDecisions is the golden test of the site plan's drops, field
// groups, unpublished and not-shared sites (testdata/src/sites,
// testdata/src/notshared): each decision is stated by a `// site "K
// decision"` comment at its line, and a line with decisions and no
// comment fails.
func TestSiteDecisions(t *testing.T) {
	for _, c := range []string{"sites", "notshared"} {
		t.Run(c, func(t *testing.T) { testSiteDecisions(t, c) })
	}
}

func testSiteDecisions(t *testing.T, name string) {
	pkg, fset, files := loadCase(t, name)
	want := map[string][]string{}
	for _, f := range files {
		for _, cg := range f.Comments {
			for _, c := range cg.List {
				for _, m := range siteRE.FindAllStringSubmatch(c.Text, -1) {
					for _, s := range strRE.FindAllStringSubmatch(m[1], -1) {
						k := lineKey(fset, c.Pos())
						want[k] = append(want[k], s[1])
					}
				}
			}
		}
	}
	plan := siteDecisions(pkg, mode.BigFoot)
	got := map[string][]string{}
	add := func(k SiteKey, text string) {
		got[lineKey(fset, k.Pos)] = append(got[lineKey(fset, k.Pos)], kindName(k.Write)+" "+text)
	}
	line := func(k SiteKey) int { return fset.Position(k.Pos).Line }
	for _, k := range plan.Sites(EntryDrop) {
		by := plan.Drop(k).By
		add(k, fmt.Sprintf("dropped by %s %d", kindName(by.Write), line(by)))
	}
	for _, k := range plan.Sites(EntryGroup) {
		add(k, "group "+plan.GroupAt(k).String())
	}
	for _, k := range plan.Sites(EntryMember) {
		add(k, fmt.Sprintf("member of %d", line(plan.MemberOf(k).Anchor)))
	}
	for _, k := range plan.Sites(EntryUnpublished) {
		add(k, "unpublished")
	}
	for _, k := range plan.Sites(EntryNotShared) {
		add(k, "not shared")
	}
	for _, m := range []map[string][]string{want, got} {
		for k := range m {
			slices.Sort(m[k])
		}
	}
	for k := range mergeKeys(want, got) {
		if !slices.Equal(want[k], got[k]) {
			t.Errorf("%s: got %q, want %q", k, got[k], want[k])
		}
	}
}

// TestSiteDecisionsRedCard checks that RedCard mode drops checks but
// decides no group and no unpublished site.
func TestSiteDecisionsRedCard(t *testing.T) {
	pkg, _, _ := loadCase(t, "sites")
	plan := siteDecisions(pkg, mode.RedCard)
	if len(plan.Sites(EntryDrop)) == 0 {
		t.Errorf("no drop in redcard mode")
	}
	for _, e := range []Entry{EntryGroup, EntryMember, EntryUnpublished} {
		if s := plan.Sites(e); len(s) > 0 {
			t.Errorf("redcard mode: %d %s decisions, want none", len(s), e)
		}
	}
}

// siteDecisions makes the site plan of pkg in mode m as the build does.
func siteDecisions(pkg *ssa.Package, m mode.Mode) *SitePlan {
	ks := NewKillSets(pkg.Prog)
	facts := NewFacts(ks, TargetSizes())
	fns := AnalyzedFunctions(pkg)
	dec := Decide(fns, facts, DecideOptions{Covers: m.StaticRanges(), Unpublished: m.SafeClass()})
	cfg := SiteConfig{Mode: m, Facts: facts, Prover: entail.NewCached(&entail.Linear{Fallback: entail.NewZ3(1000)}), Decisions: dec}
	plan := NewSitePlan()
	for _, fn := range fns {
		plan.AddFunction(fn, cfg)
	}
	plan.Decide(facts)
	return plan
}

// TestMayGroup checks the pre-scan that decides whether a function's
// BigFoot plan is computed for its field groups.
func TestMayGroup(t *testing.T) {
	pkg, _, _ := loadCase(t, "sites")
	for name, want := range map[string]bool{"group": true, "padded": true, "readAfterWrite": false, "pure": false} {
		if got := mayGroup(pkg.Func(name)); got != want {
			t.Errorf("mayGroup(%s) = %v, want %v", name, got, want)
		}
	}
}

func mergeKeys(a, b map[string][]string) map[string]bool {
	out := map[string]bool{}
	for k := range a {
		out[k] = true
	}
	for k := range b {
		out[k] = true
	}
	return out
}
