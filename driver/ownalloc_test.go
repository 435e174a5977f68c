package driver

import (
	"go/build"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The allocation-statistics patches keep the lines of the files they
// patch, and a runtime without one of the patched lines as expected
// takes none of them.
func TestOwnAllocFiles(t *testing.T) {
	dir := filepath.Join(build.Default.GOROOT, "src", "runtime")
	files, err := ownAllocFiles(dir, nil)
	if err != nil {
		t.Fatalf("this toolchain's runtime: %v", err)
	}
	names := []string{"malloc.go", "mstats.go", "metrics.go", "mheap.go", "mgcpacer.go", "mgcsweep.go"}
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
		if _, err := ownAllocFiles(tmp, nil); err == nil {
			t.Errorf("%s without %q: patched", p.file, firstLine(p.decl))
		}
	}
}

// The allocation-statistics patches of mheap.go and mgcsweep.go go on top
// of the allocation versions' patches of the same files: a build has both.
func TestOwnAllocOnVersions(t *testing.T) {
	dir := filepath.Join(build.Default.GOROOT, "src", "runtime")
	files, err := runtimePatches(dir, true)
	if err != nil {
		t.Fatal(err)
	}
	for name, calls := range map[string][]string{
		"mheap.go":    {"bigfootVers ", "bigfootOwn "},
		"mgcsweep.go": {"bigfootSwept(s)", "bigfootOwnSwept(s)"},
	} {
		for _, call := range calls {
			if !strings.Contains(string(files[filepath.Join(dir, name)]), call) {
				t.Errorf("patched %s has no %s", name, call)
			}
		}
	}
}
