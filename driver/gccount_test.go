package driver

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// writeMstats writes a fake GOROOT whose runtime/mstats.go is src.
func writeMstats(t *testing.T, src string) string {
	t.Helper()
	root := t.TempDir()
	dir := filepath.Join(root, "src", "runtime")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "mstats.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return root
}

// The file is added only to a runtime that declares numgc as a uint32.
func TestGCCountDir(t *testing.T) {
	root := writeMstats(t, "package runtime\n\ntype mstats struct {\n\tnumgc        uint32\n\tnumforcedgc  uint32\n}\n")
	if dir, err := gcCountDir(root); err != nil || dir != filepath.Join(root, "src", "runtime") {
		t.Errorf("runtime with numgc uint32: %q, %v", dir, err)
	}
	for _, src := range []string{
		"package runtime\n\ntype mstats struct {\n\tnumgc uint64\n}\n",
		"package runtime\n\ntype mstats struct {\n\tcycles uint32\n}\n",
	} {
		if dir, err := gcCountDir(writeMstats(t, src)); err == nil {
			t.Errorf("runtime without numgc uint32 (%q): got %q", src, dir)
		}
	}
	if _, err := gcCountDir(t.TempDir()); err == nil {
		t.Error("a GOROOT without the runtime's sources: no error")
	}
	if _, err := gcCountDir(runtime.GOROOT()); err != nil {
		t.Errorf("this toolchain's runtime: %v", err)
	}
}

// The variable the file sets exists in the shadow, with the type the file
// gives it (as cmd/compile's builtin table test checks the compiler's
// runtime calls): a renamed variable would leave the file setting a
// variable of its own, and the shadow reading runtime/metrics unnoticed.
func TestGCCountTarget(t *testing.T) {
	pkg, name, ok := strings.Cut(gcCountTarget, ".runtimeNumGC")
	if !ok || name != "" || !strings.HasSuffix(pkg, "/shadow") {
		t.Fatalf("target %q is not the shadow's runtimeNumGC", gcCountTarget)
	}
	files, _ := filepath.Glob(filepath.Join("..", "shadow", "*.go"))
	fset := token.NewFileSet()
	found := ""
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		file, err := parser.ParseFile(fset, f, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(file, func(n ast.Node) bool {
			if vs, ok := n.(*ast.ValueSpec); ok {
				for _, id := range vs.Names {
					if id.Name == "runtimeNumGC" {
						if star, ok := vs.Type.(*ast.StarExpr); ok {
							if t, ok := star.X.(*ast.Ident); ok {
								found = "*" + t.Name
							}
						}
					}
				}
			}
			return true
		})
	}
	if found != "*uint32" {
		t.Errorf("shadow.runtimeNumGC: type %q, want *uint32 (the file's)", found)
	}
	if !strings.Contains(gcCountSource, "var bigfootNumGC *uint32") {
		t.Error("the file's variable is not a *uint32")
	}
}
