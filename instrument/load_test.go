package instrument

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/bigfoot-go/bigfoot/mode"
	"golang.org/x/tools/go/packages"
)

// TestLoadMainModuleDeps checks that packages of the main module that the
// patterns import are instrumented too, without their tests.
func TestLoadMainModuleDeps(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"go.mod":          "module example.com/dep\n\ngo 1.26\n",
		"lib/lib.go":      "package lib\n\nvar G int\n\nfunc Set(v int) { G = v }\n",
		"lib/lib_test.go": "package lib\n\nimport \"testing\"\n\nfunc TestSet(t *testing.T) { Set(2) }\n",
		"cmd/x/main.go":   "package main\n\nimport \"example.com/dep/lib\"\n\nfunc main() { lib.Set(1); println(lib.G) }\n",
	}
	for name, src := range files {
		os.MkdirAll(filepath.Join(dir, filepath.Dir(name)), 0o755)
		os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644)
	}
	w := newWorkspace(t, dir)
	res := w.instrument(t, true, "./cmd/x")
	if _, ok := res.Replace[filepath.Join(w.mod, "lib", "lib.go")]; !ok {
		t.Errorf("lib/lib.go not instrumented; have %v", keys(res.Replace))
	}
	if _, ok := res.Replace[filepath.Join(w.mod, "lib", "lib_test.go")]; ok {
		t.Errorf("the tests of a dependency were instrumented")
	}
	if out, err := w.goCmd(t, true, "run", "./cmd/x"); err != nil || out != "1\n" {
		t.Errorf("instrumented run: %v: %q", err, out)
	}
}

func keys[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// TestTypecheckCgo checks the loader's cgo route (typecheckCgo): the bit
// below NeedModule is go/packages' unnamed typecheckCgo, a file that
// imports "C" is type-checked from its own syntax and instrumented, its C
// calls synchronize through the C sync object, and the instrumented
// package builds and runs (cgo runs on the overlaid file).
func TestTypecheckCgo(t *testing.T) {
	if s := typecheckCgo.String(); !strings.HasPrefix(s, "LoadMode(") {
		t.Fatalf("typecheckCgo is %s, a named load mode: x/tools changed its bits", s)
	}
	if _, err := exec.LookPath("gcc"); err != nil {
		t.Skip("no C compiler")
	}
	dir := t.TempDir()
	files := map[string]string{
		"go.mod": "module example.com/cgo\n\ngo 1.26\n",
		"main.go": "package main\n\n// static int twice(int x) { return 2 * x; }\nimport \"C\"\n\n" +
			"var G int\n\nfunc main() { G = int(C.twice(C.int(G + 1))); println(G) }\n",
	}
	for name, src := range files {
		os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644)
	}
	w := newWorkspace(t, dir)
	res := w.instrument(t, true, ".")
	out, ok := res.Replace[filepath.Join(w.mod, "main.go")]
	if !ok {
		t.Fatalf("main.go not instrumented; notes %v", res.Notes)
	}
	for _, want := range []string{"__bf.CgoRet(", "__bf.CgoArg(", "__bf.W(", "import \"C\""} {
		if !strings.Contains(string(out), want) {
			t.Errorf("instrumented main.go lacks %s:\n%s", want, out)
		}
	}
	if out, err := w.goCmd(t, true, "run", "."); err != nil || out != "2\n" {
		t.Errorf("instrumented run: %v: %q", err, out)
	}
}

// TestSelfHostSkipsRuntime instruments bigfoot's own module, where the
// runtime's packages are main-module packages: they must be left as they
// are (no check, no file of theirs importing the runtime), or the runtime
// imports itself and every package of `bigfoot test ./...` fails to set
// up.
func TestSelfHostSkipsRuntime(t *testing.T) {
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	env := append(os.Environ(), "GOFLAGS=", "GOWORK=off", "GOPROXY=off")
	res, err := Run(context.Background(), Config{Dir: root, Patterns: []string{"./internal/spin", "./mode"}, Tests: true, Env: env, Mode: mode.FastTrack})
	if err != nil {
		t.Fatalf("instrument: %v", err)
	}
	link := filepath.Join(root, "internal", "spin", "zz_bigfoot_link_test.go")
	for _, files := range []map[string][]byte{res.Replace, res.Add} {
		for path := range files {
			if rel, _ := filepath.Rel(root, path); strings.HasPrefix(filepath.ToSlash(rel), "internal/spin/") && path != link {
				t.Errorf("runtime file %s in the overlay", rel)
			}
		}
	}
	// Its test binary still links the runtime, which the instrumented
	// standard library calls, from an external test file.
	if src, want := string(res.Add[link]), "package spin_test\n\nimport _ \""+RuntimePath+"\"\n"; !strings.HasSuffix(src, want) {
		t.Errorf("internal/spin's link file is %q, want one ending in %q", src, want)
	}
	if _, ok := res.Replace[filepath.Join(root, "mode", "mode.go")]; !ok {
		t.Errorf("mode/mode.go, an ordinary package of the module, not instrumented; have %v", keys(res.Replace))
	}
}

// TestLoadListedGraph checks that a load given the import graph its
// caller listed (Config.Graph: go list -deps -json, as the driver lists
// the build's packages) loads the packages it lists itself: the patterns'
// and the main module's packages they import, with their modules.
func TestLoadListedGraph(t *testing.T) {
	dir, _ := filepath.Abs("testdata/src/layout")
	for _, patterns := range [][]string{{"."}, {"./..."}} {
		for _, tests := range []bool{false, true} {
			args := []string{"list", "-e", "-deps", "-json=ImportPath,Module,DepOnly"}
			if tests {
				args = append(args, "-test")
			}
			cmd := exec.Command("go", append(args, patterns...)...)
			cmd.Dir = dir
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("go list: %v", err)
			}
			var graph []ListedPackage
			for dec := json.NewDecoder(bytes.NewReader(out)); dec.More(); {
				var p struct {
					ImportPath string
					Module     *packages.Module
					DepOnly    bool
				}
				if err := dec.Decode(&p); err != nil {
					t.Fatal(err)
				}
				graph = append(graph, ListedPackage{ID: p.ImportPath, Module: p.Module, Root: !p.DepOnly})
			}
			summary := func(graph []ListedPackage) []string {
				pkgs, _, broken, err := load(context.Background(), Config{Dir: dir, Patterns: patterns, Tests: tests, Graph: graph})
				if err != nil || len(broken) > 0 {
					t.Fatalf("load %v (tests %v): %v %v", patterns, tests, err, broken)
				}
				var out []string
				for _, p := range pkgs {
					out = append(out, fmt.Sprintf("%s module=%s main=%v files=%d", p.ID, p.Module.Path, p.Module.Main, len(p.Syntax)))
				}
				sort.Strings(out)
				return out
			}
			listed, own := summary(graph), summary(nil)
			if !slices.Equal(listed, own) {
				t.Errorf("%v (tests %v): given the graph:\n\t%s\nlisting it:\n\t%s", patterns, tests, strings.Join(listed, "\n\t"), strings.Join(own, "\n\t"))
			}
			if !strings.Contains(strings.Join(own, " "), "example.com/layout/internal/lib module=example.com/layout main=true") {
				t.Errorf("%v (tests %v): loaded %q, want the imported package of the module", patterns, tests, own)
			}
		}
	}
}
