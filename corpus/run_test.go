package corpus

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestPrime: priming builds a copy of the module, so that the timed runs
// find a dependency outside the module compiled (here one the build cache
// cannot have seen: its source is new) and still compile the module's own
// packages, which the go command keys by their directory.
func TestPrime(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the go command")
	}
	root := t.TempDir()
	write := func(path, content string) {
		t.Helper()
		path = filepath.Join(root, path)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("dep/go.mod", "module example.com/dep\n\ngo 1.22\n")
	write("dep/dep.go", fmt.Sprintf("package dep\n\nconst Stamp = %d\n", time.Now().UnixNano()))
	write("mod/go.mod", "module example.com/mod\n\ngo 1.22\n\nrequire example.com/dep v0.0.0\n\nreplace example.com/dep => ../dep\n")
	write("mod/p/p.go", "package p\n\nimport \"example.com/dep\"\n\nconst Stamp = dep.Stamp\n")
	write("mod/p/p_test.go", "package p\n\nimport \"testing\"\n\nfunc TestStamp(t *testing.T) {}\n")
	dir := filepath.Join(root, "mod")
	env := append(os.Environ(), "GOTOOLCHAIN=local", "GOFLAGS=-mod=mod")

	stale := func() map[string]string {
		t.Helper()
		cmd := exec.Command("go", "list", "-deps", "-f", "{{.ImportPath}} {{.Stale}}", "./...")
		cmd.Dir, cmd.Env = dir, env
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("go list: %v", err)
		}
		m := map[string]string{}
		for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
			f := strings.Fields(l)
			m[f[0]] = f[1]
		}
		return m
	}
	if s := stale(); s["example.com/dep"] != "true" {
		t.Fatalf("before priming, example.com/dep is stale %s, want true", s["example.com/dep"])
	}
	opts := Options{Tools: []string{ToolPlain}, Timeout: 5 * time.Minute, Progress: t.Output()}
	if err := prime(context.Background(), opts, env, dir); err != nil {
		t.Fatal(err)
	}
	s := stale()
	if s["example.com/dep"] != "false" || s["example.com/mod/p"] != "true" {
		t.Errorf("after priming, stale: example.com/dep %s, example.com/mod/p %s; want false, true", s["example.com/dep"], s["example.com/mod/p"])
	}
	if entries, err := os.ReadDir(root); err != nil || len(entries) != 2 {
		t.Errorf("priming left %d entries beside the module (%v), want none but dep and mod", len(entries), err)
	}
}
