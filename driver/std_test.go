package driver

import (
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestSpliceSync applies the sync hooks to this toolchain's package sync:
// every declaration they extend must be found once (a new Go release that
// changes one fails here, not in a user's build), the files must still
// parse, and no line may move.
func TestSpliceSync(t *testing.T) {
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(strings.TrimSpace(string(out)), "src", "sync")
	overlay := map[string][]byte{}
	if err := spliceSync(dir, overlay); err != nil {
		t.Fatal(err)
	}
	files := map[string]bool{}
	for _, sp := range syncSplices {
		files[sp.file] = true
	}
	for name := range files {
		path := filepath.Join(dir, name)
		src, ok := overlay[path]
		if !ok {
			t.Fatalf("%s not in the overlay", name)
		}
		orig, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := strings.Count(string(src), "\n"), strings.Count(string(orig), "\n"); got != want {
			t.Errorf("%s: %d lines, want %d: a splice moved lines", name, got, want)
		}
		if _, err := parser.ParseFile(token.NewFileSet(), path, src, 0); err != nil {
			t.Errorf("%s does not parse after splicing: %v", name, err)
		}
	}
	if _, err := parser.ParseFile(token.NewFileSet(), syncHooksFile, overlay[filepath.Join(dir, syncHooksFile)], 0); err != nil {
		t.Errorf("%s: %v", syncHooksFile, err)
	}
}
