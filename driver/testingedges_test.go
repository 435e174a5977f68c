package driver

import (
	"go/build"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestTestingEdgesApply: every edge applies to the toolchain's package
// testing, no file changes its number of lines, and the patched files and
// the added one parse.
func TestTestingEdgesApply(t *testing.T) {
	files, err := testingEdgeFiles(build.Default.GOROOT)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 4 {
		t.Errorf("%d files, want testing.go, fuzz.go, benchmark.go and %s", len(files), testingEdgesFile)
	}
	fset := token.NewFileSet()
	for path, src := range files {
		if _, err := parser.ParseFile(fset, path, src, parser.SkipObjectResolution); err != nil {
			t.Errorf("%s does not parse: %v", path, err)
		}
		if filepath.Base(path) == testingEdgesFile {
			continue
		}
		orig, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if a, b := strings.Count(string(orig), "\n"), strings.Count(string(src), "\n"); a != b {
			t.Errorf("%s: %d lines, was %d", path, b, a)
		}
	}
}
