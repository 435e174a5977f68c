package driver

import (
	"go/build"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The patches apply to this toolchain's runtime, once each, and the
// patched files keep everything they had.
func TestAllocVersionFiles(t *testing.T) {
	dir := filepath.Join(build.Default.GOROOT, "src", "runtime")
	files, err := allocVersionFiles(dir)
	if err != nil {
		t.Fatalf("this toolchain's runtime: %v", err)
	}
	if got := string(files[filepath.Join(dir, allocVersionFile)]); got != allocVersionSource {
		t.Errorf("the added file is not allocVersionSource")
	}
	for _, p := range allocVersionPatches {
		path := filepath.Join(dir, p.file)
		orig, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		got := string(files[path])
		if len(got) != len(orig)+len(p.text) || strings.Count(got, p.text) != 1 {
			t.Errorf("%s: patched file is not the original plus the patch once", p.file)
		}
		if strings.Replace(got, p.text, "", 1) != string(orig) {
			t.Errorf("%s: the patch changed more than its insertion", p.file)
		}
	}
}

// A runtime whose files lack an anchor, or have it twice, gets no
// versions, and the error names the file and the anchor.
func TestAllocVersionFilesMismatch(t *testing.T) {
	for _, tc := range []struct {
		name, heap, sweep, want string
	}{
		{"no anchor", "package runtime\n", "package runtime\n", "type heapArena struct {"},
		{"anchor twice", allocVersionPatches[0].anchor + allocVersionPatches[0].anchor, allocVersionPatches[1].anchor, "2 occurrences of"},
		{"sweep changed", allocVersionPatches[0].anchor, "package runtime\n", "if traceAllocFreeEnabled()"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			os.WriteFile(filepath.Join(dir, "mheap.go"), []byte(tc.heap), 0o644)
			os.WriteFile(filepath.Join(dir, "mgcsweep.go"), []byte(tc.sweep), 0o644)
			_, err := allocVersionFiles(dir)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got %v, want an error with %q", err, tc.want)
			}
		})
	}
	if _, err := allocVersionFiles(t.TempDir()); err == nil {
		t.Error("a directory without the runtime's files: no error")
	}
}

// The patch after an anchor inserts after it, the others before it.
func TestAllocVersionPatchApply(t *testing.T) {
	src := []byte("a\nANCHOR\nb\n")
	before, err := allocVersionPatch{anchor: "ANCHOR\n", text: "X\n"}.apply(src)
	if err != nil || string(before) != "a\nX\nANCHOR\nb\n" {
		t.Errorf("before: %q, %v", before, err)
	}
	after, err := allocVersionPatch{anchor: "ANCHOR\n", text: "X\n", after: true}.apply(src)
	if err != nil || string(after) != "a\nANCHOR\nX\nb\n" {
		t.Errorf("after: %q, %v", after, err)
	}
}

// The variable the added file sets exists in the shadow with its type.
func TestAllocVersionTarget(t *testing.T) {
	checkRuntimeTarget(t, allocVersionTarget, allocVersionSource, "bigfootVersionPage", "func(p uintptr) (*[512]uint8, uint8)")
}
