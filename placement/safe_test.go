package placement

import (
	"fmt"
	"go/token"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// safeRE matches the static safe class annotations of the safevars and
// safeglobals cases: `// safe` or `// unsafe "reason"` on the line that
// declares the variable (several variables on one line share it).
var safeRE = regexp.MustCompile(`//\s*(safe|unsafe "([^"]*)")(\s|$)`)

// TestSafeVars checks FindSafeVars against the annotations: every
// variable the analysis considers (captured locals and unexported
// package-level variables) is annotated on its line, safe or unsafe with a
// substring of the reason, and every annotation names a considered
// variable.
func TestSafeVars(t *testing.T) {
	for _, name := range []string{"safevars", "safeglobals"} {
		t.Run(name, func(t *testing.T) {
			pkg, fset, files := loadCase(t, name)
			type note struct {
				safe   bool
				reason string
				used   bool
			}
			notes := map[string]*note{}
			for _, f := range files {
				for _, cg := range f.Comments {
					for _, c := range cg.List {
						if m := safeRE.FindStringSubmatch(c.Text); m != nil {
							notes[lineKey(fset, c.Pos())] = &note{safe: m[1] == "safe", reason: m[2]}
						}
					}
				}
			}
			s := FindSafeVars(pkg, SafeOptions{})
			got := map[token.Pos]string{} // considered variable → "" (safe) or why
			for pos := range s.decls {
				got[pos] = ""
			}
			for v := range s.globals {
				got[v.Pos()] = ""
			}
			for pos, why := range s.why {
				got[pos] = why
			}
			for pos, why := range got {
				k := lineKey(fset, pos)
				n := notes[k]
				switch {
				case n == nil:
					t.Errorf("%s: variable considered (%s) but not annotated", k, orSafe(why))
				case n.safe && why != "":
					t.Errorf("%s: unsafe (%s), annotated safe", k, why)
				case !n.safe && why == "":
					t.Errorf("%s: safe, annotated unsafe %q", k, n.reason)
				case !n.safe && !strings.Contains(why, n.reason):
					t.Errorf("%s: unsafe (%s), annotated unsafe %q", k, why, n.reason)
				}
				if n != nil {
					n.used = true
				}
			}
			for k, n := range notes {
				if !n.used {
					t.Errorf("%s: annotation names no variable the analysis considered", k)
				}
			}
		})
	}
}

func orSafe(why string) string {
	if why == "" {
		return "safe"
	}
	return why
}

func lineKey(fset *token.FileSet, pos token.Pos) string {
	p := fset.Position(pos)
	return fmt.Sprintf("%s:%d", filepath.Base(p.Filename), p.Line)
}
