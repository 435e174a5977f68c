package instrument

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/tools/go/packages"
	"golang.org/x/tools/go/ssa"

	"github.com/bigfoot-go/bigfoot/mode"
)

// groupSrc holds functions for the rules a field group's proof relies on.
const groupSrc = `package p

import "math"

type T struct{ x, y, z int }

func pure(a, b int) int          { return a*b + 1 }
func loops(n int) int            { s := 0; for i := 0; i < n; i++ { s += i }; return s }
func divides(a, b int) int       { return a / b }
func byConst(a int) int          { return a/3 + a%7 + a<<2 }
func rec(n int) int              { if n == 0 { return 0 }; return rec(n - 1) }
func calls(a int) int            { return pure(a, a) }
func deref(p *T) int             { return p.x + p.y }
func iface(e error) string       { return e.Error() }
func sqrt(f float64) float64     { return math.Sqrt(f) }
func index(xs []int) int         { return xs[2] }
func arr(xs *[4]int) int         { return len(xs) }
func panics(s string)            { panic(s) }
func branches(a int) int         { if a > 0 { return pure(a, 1) }; return -a }

`

// loadSSA type-checks src as package p in a temporary module and builds
// its SSA.
func loadSSA(t *testing.T, src string) (*ssa.Program, *ssa.Package) {
	t.Helper()
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module example.com/p\n\ngo 1.24\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "p.go"), []byte(src), 0o644)
	pkgs, err := packages.Load(&packages.Config{Mode: loadMode, Dir: dir}, ".")
	if err != nil || len(pkgs) != 1 || len(pkgs[0].Errors) > 0 {
		t.Fatalf("load: %v %v", err, pkgs)
	}
	_, prog, spkg, err := buildSSA(pkgs[0])
	if err != nil {
		t.Fatal(err)
	}
	return prog, spkg
}

// TestSimpleFuncs checks which callees a group may span: those that
// return, without panicking or synchronizing, on every path.
func TestSimpleFuncs(t *testing.T) {
	prog, spkg := loadSSA(t, groupSrc)
	rc := newRedcardPkg(prog, spkg, rcOptions{mode: mode.RedCard})
	want := map[string]bool{
		"pure": true, "byConst": true, "calls": true, "sqrt": true, "arr": true, "branches": true,
		"loops": false, "divides": false, "rec": false, "deref": false, "iface": false,
		"index": false, "panics": false,
	}
	for name, w := range want {
		fn := spkg.Func(name)
		if fn == nil {
			t.Fatalf("no function %s", name)
		}
		if got := rc.facts.Simple(fn); got != w {
			t.Errorf("simple(%s) = %v, want %v", name, got, w)
		}
	}
}

// TestGroupRefusedInPlan checks that a field group placement decides and
// the rendering cannot emit is refused in the plan, with its reason, and
// that its accesses keep their own checks: in the groups corpus, the
// group of promoted(o)'s o.a, o.b would be checked at o.b, which names
// its field through the embedded struct (Offsetof would not be the
// group's); the accesses through o.base are dropped, covered by the
// checks of o.a and o.b.
func TestGroupRefusedInPlan(t *testing.T) {
	w := newWorkspace(t, filepath.Join("testdata", "src", "groups"))
	w.mode = "bigfoot"
	res := w.instrument(t, false)
	main := filepath.Join(w.mod, "main.go")
	got := map[string]string{}
	for _, d := range res.Plan.Sites {
		if d.Pos.Filename == main && 96 <= d.Pos.Line && d.Pos.Line <= 99 {
			got[fmt.Sprintf("%d %s", d.Pos.Line, d.Decision)] = d.String()
		}
	}
	group := got["97 group"]
	if !strings.Contains(group, "not rendered: the anchor's field is promoted") {
		t.Errorf("the group at o.b: %q, want refused as promoted; decisions: %v", group, got)
	}
	for _, k := range []string{"98 dropped", "99 dropped"} {
		if !strings.HasSuffix(got[k], "(rendered)") {
			t.Errorf("%s: %q, want a rendered drop; decisions: %v", k, got[k], got)
		}
	}
	src := string(res.Replace[main])
	for _, want := range []string{"*__bf.W(__bfg, &o.a,", "*__bf.W(__bfg, &o.b,", "\to.base.a = 3\n", "\to.base.b = 4\n"} {
		if !strings.Contains(src, want) {
			t.Errorf("the overlay has no %q", want)
		}
	}
}
