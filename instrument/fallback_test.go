package instrument

import (
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/tools/go/packages"

	"github.com/bigfoot-go/bigfoot/mode"
)

// TestRewriteFallsBackToPerAccess: when the rendering of placement's
// decisions fails (here a panic in it, as a type parameter's size once
// made one), the file gets fasttrack's per-access checks and a note, not
// its original text: a file left as it was goes unchecked (that failure
// left the standard library's generic sort unchecked in slimstate and
// bigfoot modes).
func TestRewriteFallsBackToPerAccess(t *testing.T) {
	dir := t.TempDir()
	src := "package p\n\nvar x int\n\ntype P struct{ a, b int }\n\nfunc Set(v int, s []int, p *P) {\n\tx = v\n\tfor i := range s {\n\t\ts[i] = i\n\t}\n\tp.a++\n\tp.b++\n}\n"
	os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module example.com/p\n\ngo 1.24\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "p.go"), []byte(src), 0o644)
	pkgs, err := packages.Load(&packages.Config{Mode: loadMode, Dir: dir}, ".")
	if err != nil || len(pkgs) != 1 || len(pkgs[0].Errors) > 0 {
		t.Fatalf("load: %v %v", err, pkgs)
	}
	pkg := pkgs[0]
	testHookPlanned = func(string) { panic("planned rendering fails") }
	defer func() { testHookPlanned = nil }()
	path := pkg.CompiledGoFiles[0]
	for _, m := range []mode.Mode{mode.BigFoot, mode.SlimState, mode.RedCard} {
		p := &pkgRewriter{pkg: pkg, info: pkg.TypesInfo, heap: map[token.Pos]bool{}, mode: m, rc: &redcardPkg{}}
		if _, _, err := p.rewriteFile(path, pkg.Syntax[0], []byte(src)); err == nil {
			t.Fatalf("%v: the planned rendering did not fail", m)
		}
		out, notes, planned, err := p.rewriteOrFallback(path, pkg.Syntax[0], []byte(src))
		if err != nil || planned {
			t.Fatalf("%v: rewriteOrFallback: planned %v, %v", m, planned, err)
		}
		ft := &pkgRewriter{pkg: pkg, info: pkg.TypesInfo, heap: map[token.Pos]bool{}, mode: mode.FastTrack}
		want, _, err := ft.rewriteFile(path, pkg.Syntax[0], []byte(src))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(want), "__bf.") {
			t.Fatalf("fasttrack's rendering has no check:\n%s", want)
		}
		if string(out) != string(want) {
			t.Errorf("%v: the fallback is not fasttrack's rendering:\n%s\nwant\n%s", m, out, want)
		}
		if len(notes) == 0 || !strings.Contains(notes[len(notes)-1], "per-access checks (fasttrack)") {
			t.Errorf("%v: no note of the fallback: %q", m, notes)
		}
	}
}
