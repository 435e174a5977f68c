package placement

import (
	"strings"
	"testing"

	"github.com/bigfoot-go/bigfoot/mode"
)

// TestFormatNilConst checks that paths through a nil constant (a nil slice
// or pointer variable never assigned) print as nil: bigfoot analyze -json
// crashed on them.
func TestFormatNilConst(t *testing.T) {
	pkg, _, _ := loadCase(t, "nilbase")
	ks := NewKillSets(pkg.Prog)
	n := 0
	for _, fn := range AnalyzedFunctions(pkg) {
		for _, a := range Analyze(fn, Config{Mode: mode.BigFoot, Effects: ks}).Accesses {
			if s := a.Path.String(); !strings.Contains(s, "nil") {
				t.Errorf("%s: access %s, want a path through nil", fn.Name(), s)
			}
			n++
		}
	}
	if n != 2 {
		t.Errorf("%d accesses, want 2", n)
	}
}
