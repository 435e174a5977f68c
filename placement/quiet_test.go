package placement

import (
	"strings"
	"testing"

	"golang.org/x/tools/go/ssa"
)

// TestQuietWith checks each function of testdata/quiet against the
// comment on its declaration line ("quiet" or "loud").
func TestQuietWith(t *testing.T) {
	pkg, fset, files := loadCase(t, "../quiet")
	want := map[int]bool{} // line -> quiet
	for _, f := range files {
		for _, cg := range f.Comments {
			for _, c := range cg.List {
				switch {
				case strings.HasPrefix(c.Text, "// quiet"):
					want[fset.Position(c.Pos()).Line] = true
				case strings.HasPrefix(c.Text, "// loud"):
					want[fset.Position(c.Pos()).Line] = false
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
		w, ok := want[fset.Position(fn.Pos()).Line]
		if !ok {
			t.Errorf("%s has no quiet/loud comment", fn.Name())
			continue
		}
		n++
		if got := facts.QuietWith(fn, 0); got != w {
			t.Errorf("QuietWith(%s, 0) = %v, want %v", fn.Name(), got, w)
		}
	}
	if n != len(want) {
		t.Errorf("checked %d functions, %d comments", n, len(want))
	}
}
