package placement

import (
	"fmt"
	"os"
	"sort"
	"testing"

	"github.com/bigfoot-go/bigfoot/mode"
)

// TestDump prints every check of one golden case in both modes, to write
// or review its expectations:
//
//	BIGFOOT_CASE=fig36b go test -run TestDump -v ./placement
func TestDump(t *testing.T) {
	name := os.Getenv("BIGFOOT_CASE")
	if name == "" {
		t.Skip("set BIGFOOT_CASE to a directory of testdata/src")
	}
	pkg, fset, _ := loadCase(t, name)
	ks := NewKillSets(pkg.Prog)
	var lines []string
	for _, fn := range AnalyzedFunctions(pkg) {
		for _, m := range []mode.Mode{mode.BigFoot, mode.RedCard} {
			p := Analyze(fn, Config{Mode: m, Effects: ks, Safe: caseSafeVars(pkg, m)})
			if p.Fallback != "" {
				lines = append(lines, fmt.Sprintf("%s %s fallback: %s", fn, m, p.Fallback))
				continue
			}
			for _, c := range p.Checks {
				lines = append(lines, fmt.Sprintf("%v %s %-40s %s at=%v covers=%d why=%v",
					fset.Position(c.At.Pos()), m, c, fn, c.At, len(c.Covers), c.Why))
			}
		}
	}
	sort.Strings(lines)
	for _, l := range lines {
		fmt.Println(l)
	}
}
