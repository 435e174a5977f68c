package placement

import (
	"fmt"
	"go/types"
	"testing"
)

// TestSimple checks which callees a field group may span: those that
// return, without panicking or synchronizing, on every path.
func TestSimple(t *testing.T) {
	pkg, _, _ := loadCase(t, "facts")
	f := NewFacts(NewKillSets(pkg.Prog), types.SizesFor("gc", "amd64"))
	want := map[string]bool{
		"pure": true, "byConst": true, "calls": true, "sqrt": true, "arr": true, "branches": true,
		"loops": false, "divides": false, "rec": false, "deref": false, "iface": false,
		"index": false, "panics": false,
	}
	for name, w := range want {
		fn := pkg.Func(name)
		if fn == nil {
			t.Fatalf("no function %s", name)
		}
		if got := f.Simple(fn); got != w {
			t.Errorf("Simple(%s) = %v, want %v", name, got, w)
		}
	}
}

// TestContiguousRuns checks the runs of fields a group check may cover:
// consecutive, without padding, not of size zero.
func TestContiguousRuns(t *testing.T) {
	pkg, _, _ := loadCase(t, "facts")
	f := NewFacts(NewKillSets(pkg.Prog), types.SizesFor("gc", "amd64"))
	st := pkg.Pkg.Scope().Lookup("padded").Type().Underlying().(*types.Struct)
	for _, c := range []struct {
		fields []int
		want   string
	}{
		{[]int{0, 1}, "[]"},                  // padding between a and b
		{[]int{1, 2, 3}, "[[1 2 3]]"},        // b, c, d adjacent
		{[]int{2, 3, 4, 5}, "[[2 3] [4 5]]"}, // e (size zero) ends the run of c, d
		{[]int{0, 2}, "[]"},                  // not consecutive
		{[]int{3}, "[]"},                     // one field is no group
	} {
		if got := fmt.Sprint(f.ContiguousRuns(st, c.fields)); got != c.want {
			t.Errorf("ContiguousRuns(%v) = %s, want %s", c.fields, got, c.want)
		}
	}
}
