package driver

import (
	"go/build"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The cleanup hooks keep the lines of mfinal.go and mcleanup.go (the
// runtime's positions in traces stay the toolchain's), and a runtime
// without one of the patched lines as expected takes none of them.
func TestCleanupHookFiles(t *testing.T) {
	dir := filepath.Join(build.Default.GOROOT, "src", "runtime")
	files, err := cleanupHookFiles(dir)
	if err != nil {
		t.Fatalf("this toolchain's runtime: %v", err)
	}
	for _, name := range []string{"mfinal.go", "mcleanup.go"} {
		src, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		got := files[filepath.Join(dir, name)]
		if n, m := strings.Count(string(got), "\n"), strings.Count(string(src), "\n"); n != m {
			t.Errorf("patched %s has %d lines, the toolchain's %d", name, n, m)
		}
	}
	// A runtime lacking any one of the patched lines takes no patch.
	for _, p := range cleanupPatches {
		tmp := t.TempDir()
		for _, name := range []string{"mfinal.go", "mcleanup.go"} {
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
		if _, err := cleanupHookFiles(tmp); err == nil {
			t.Errorf("%s without %q: patched", p.file, p.decl)
		}
	}
}

// The sweep hook's file is added where the runtime declares sweepone as
// it calls it, and not elsewhere.
func TestSweepHookFiles(t *testing.T) {
	dir := filepath.Join(build.Default.GOROOT, "src", "runtime")
	files, err := sweepHookFiles(dir)
	if err != nil {
		t.Fatalf("this toolchain's runtime: %v", err)
	}
	if src := string(files[filepath.Join(dir, sweepHookFile)]); !strings.Contains(src, "//go:linkname bigfootFinishSweep "+sweepHookTarget+"\n") {
		t.Errorf("the file does not linkname the shadow's variable:\n%s", src)
	}
	tmp := t.TempDir()
	src, err := os.ReadFile(filepath.Join(dir, "mgcsweep.go"))
	if err != nil {
		t.Fatal(err)
	}
	src = []byte(strings.Replace(string(src), "func sweepone() uintptr {", "func sweepOne() uintptr {", 1))
	if err := os.WriteFile(filepath.Join(tmp, "mgcsweep.go"), src, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := sweepHookFiles(tmp); err == nil {
		t.Error("a runtime without sweepone: patched")
	}
}
