package placement

import (
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/tools/go/ssa"
	"golang.org/x/tools/go/ssa/ssautil"
)

// TestSharedVars checks SharedVars and SyntacticHeapVars against the
// heapvars case: every local annotated `// heap` on its declaration's
// line is found by both, every one annotated `// stack` by neither, and
// every one annotated `// local` (kept in memory, its address used only
// by the function's own slicing and builtins) by SyntacticHeapVars
// alone, which may find more.
func TestSharedVars(t *testing.T) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, filepath.Join("testdata", "src", "heapvars", "heapvars.go"), nil, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	files := []*ast.File{f}
	pkg, info, err := ssautil.BuildPackage(&types.Config{Importer: importer.Default()}, fset, types.NewPackage("heapvars", "heapvars"), files, ssa.SanityCheckFunctions)
	if err != nil {
		t.Fatal(err)
	}
	want := map[int]string{} // line → "heap" or "stack"
	for _, cg := range f.Comments {
		for _, c := range cg.List {
			if w := strings.TrimSpace(strings.TrimPrefix(c.Text, "//")); w == "heap" || w == "stack" || w == "local" {
				want[fset.Position(c.Pos()).Line] = w
			}
		}
	}
	if len(want) != 9 {
		t.Fatalf("%d annotations, want 9", len(want))
	}
	for name, set := range map[string]map[token.Pos]bool{"SharedVars": SharedVars(pkg), "SyntacticHeapVars": SyntacticHeapVars(files, info)} {
		found := map[int]bool{}
		for pos := range set {
			found[fset.Position(pos).Line] = true
		}
		for line, w := range want {
			if found[line] != (w == "heap" || w == "local" && name == "SyntacticHeapVars") {
				t.Errorf("%s: line %d annotated %s, found on the heap: %v", name, line, w, found[line])
			}
		}
	}
}
