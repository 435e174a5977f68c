package placement

import (
	"fmt"
	"path/filepath"
	"regexp"
	"testing"

	"golang.org/x/tools/go/ssa"
)

var coverRE = regexp.MustCompile(`// cover "([^"]*)"`)

// TestCoverOf checks the access summaries of testdata/src/cover against
// the `// cover "..."` comment on each function's line.
func TestCoverOf(t *testing.T) {
	pkg, fset, files := loadCase(t, "../cover")
	want := map[string]string{}
	for _, f := range files {
		for _, cg := range f.Comments {
			for _, c := range cg.List {
				if m := coverRE.FindStringSubmatch(c.Text); m != nil {
					p := fset.Position(c.Pos())
					want[fmt.Sprintf("%s:%d", filepath.Base(p.Filename), p.Line)] = m[1]
				}
			}
		}
	}
	facts := NewFacts(NewKillSets(pkg.Prog), nil)
	n := 0
	for _, m := range pkg.Members {
		fn, ok := m.(*ssa.Function)
		if !ok || fn.Synthetic != "" || fn.Name() == "init" {
			continue
		}
		p := fset.Position(fn.Pos())
		key := fmt.Sprintf("%s:%d", filepath.Base(p.Filename), p.Line)
		w, ok := want[key]
		if !ok {
			t.Errorf("%s: %s has no cover comment", key, fn.Name())
			continue
		}
		n++
		got := "none"
		if c := facts.CoverOf(fn); c != nil {
			got = c.String()
		}
		if got != w {
			t.Errorf("%s: CoverOf(%s) = %q, want %q", key, fn.Name(), got, w)
		}
	}
	if n != len(want) {
		t.Errorf("checked %d functions, %d comments", n, len(want))
	}
}
