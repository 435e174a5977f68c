package placement

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"golang.org/x/tools/go/ssa"
)

var unpubRE = regexp.MustCompile(`// (unpub|pub)$`)

// TestUnpublished checks Unpublished on testdata/unpublished: on a line
// marked `// unpub` every access is unpublished, on a line marked `// pub`
// none is.
func TestUnpublished(t *testing.T) {
	pkg, fset, files := loadCase(t, "../unpublished")
	marks := map[string][]string{}
	for _, f := range files {
		for _, cg := range f.Comments {
			for _, c := range cg.List {
				if m := unpubRE.FindStringSubmatch(c.Text); m != nil {
					p := fset.Position(c.Pos())
					marks[fmt.Sprintf("%s:%d", filepath.Base(p.Filename), p.Line)] = strings.Fields(m[1])
				}
			}
		}
	}
	got := map[string][]bool{}
	var fns []*ssa.Function
	for _, m := range pkg.Members {
		if fn, ok := m.(*ssa.Function); ok {
			fns = append(fns, fn)
		}
	}
	ne := FindNoEscape(fns)
	for _, m := range pkg.Members {
		fn, ok := m.(*ssa.Function)
		if !ok || fn.Synthetic != "" {
			continue
		}
		up := Unpublished(fn, ne)
		for _, b := range fn.Blocks {
			for _, in := range b.Instrs {
				if AddrOf(in) == nil || !in.Pos().IsValid() {
					continue
				}
				p := fset.Position(in.Pos())
				k := fmt.Sprintf("%s:%d", filepath.Base(p.Filename), p.Line)
				_, u := up[in]
				got[k] = append(got[k], u)
			}
		}
	}
	for k, want := range marks {
		g := got[k]
		if want[0] == "pub" {
			for _, u := range g {
				if u {
					t.Errorf("%s: an access is unpublished, want none", k)
				}
			}
			continue
		}
		if len(g) == 0 {
			t.Errorf("%s: no access", k)
		}
		for _, u := range g {
			if !u {
				t.Errorf("%s: an access is published, want all unpublished", k)
			}
		}
	}
}
