package driver

import (
	"go/build"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The goroutine hooks keep the lines of proc.go (the runtime's positions in
// traces stay the toolchain's), and a proc.go without newproc1's or
// goexit1's lines as expected takes no patch, so that a build has all of
// the runtime's hooks or none.
func TestPatchGoroutines(t *testing.T) {
	src, err := os.ReadFile(filepath.Join(build.Default.GOROOT, "src", "runtime", "proc.go"))
	if err != nil {
		t.Fatal(err)
	}
	got, err := patchGoroutines(string(src))
	if err != nil {
		t.Fatalf("this toolchain's proc.go: %v", err)
	}
	if n, m := strings.Count(got, "\n"), strings.Count(string(src), "\n"); n != m {
		t.Errorf("patched proc.go has %d lines, the toolchain's %d", n, m)
	}
	for _, decl := range []string{newprocRaceDecl, goexit1Decl} {
		without := strings.Replace(string(src), decl, strings.ToUpper(decl), 1)
		if _, err := patchGoroutines(without); err == nil {
			t.Errorf("proc.go without %q: patched", strings.SplitN(decl, "\n", 2)[0])
		}
	}
	if _, err := runtimeHookFiles(t.TempDir()); err == nil {
		t.Error("a directory without proc.go: no error")
	}
}
