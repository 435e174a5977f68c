package driver

import (
	"go/build"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The allocation-statistics patches keep the lines of malloc.go,
// mstats.go and metrics.go, and a runtime without one of the patched lines as expected
// takes none of them.
func TestOwnAllocFiles(t *testing.T) {
	dir := filepath.Join(build.Default.GOROOT, "src", "runtime")
	files, err := ownAllocFiles(dir)
	if err != nil {
		t.Fatalf("this toolchain's runtime: %v", err)
	}
	names := []string{"malloc.go", "mstats.go", "metrics.go"}
	for _, name := range names {
		src, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		got := files[filepath.Join(dir, name)]
		if n, m := strings.Count(string(got), "\n"), strings.Count(string(src), "\n"); n != m {
			t.Errorf("patched %s has %d lines, the toolchain's %d", name, n, m)
		}
		if string(got) == string(src) {
			t.Errorf("%s not patched", name)
		}
	}
	for _, p := range ownAllocPatches {
		tmp := t.TempDir()
		for _, name := range names {
			src, err := os.ReadFile(filepath.Join(dir, name))
			if err != nil {
				t.Fatal(err)
			}
			if name == p.file {
				src = []byte(strings.Replace(string(src), p.decl, strings.ToUpper(p.decl), 1))
			}
			if err := os.WriteFile(filepath.Join(tmp, name), src, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := ownAllocFiles(tmp); err == nil {
			t.Errorf("%s without %q: patched", p.file, firstLine(p.decl))
		}
	}
}
