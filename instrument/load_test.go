package instrument

import (
	"os"
	"path/filepath"
	"testing"
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
