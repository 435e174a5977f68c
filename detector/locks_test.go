package detector

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"
)

// TestRuntimeLocks: the runtime's own state (detector and shadow) is never
// guarded by package sync's types. Every build hooks those inside sync
// (driver.syncSplices), and the hooks call into the runtime: a runtime
// lock that were a sync.Mutex would re-enter the runtime while it holds
// its locks. Fields and variables must use spin.Mutex; sync's types may
// appear only as parameters (the hooks' API: Lock(g, m *sync.Mutex)).
func TestRuntimeLocks(t *testing.T) {
	banned := map[string]bool{"Mutex": true, "RWMutex": true, "WaitGroup": true, "Cond": true, "Once": true}
	for _, dir := range []string{".", "../shadow"} {
		files, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		for _, path := range files {
			if strings.HasSuffix(path, "_test.go") {
				continue
			}
			f, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
			if err != nil {
				t.Fatal(err)
			}
			check := func(typ ast.Expr, what string) {
				ast.Inspect(typ, func(n ast.Node) bool {
					switch n.(type) {
					case *ast.FuncType, *ast.StarExpr:
						return false // parameters; a pointer to the user's lock
					}
					if sel, ok := n.(*ast.SelectorExpr); ok {
						if x, ok := sel.X.(*ast.Ident); ok && x.Name == "sync" && banned[sel.Sel.Name] {
							t.Errorf("%s: %s of type sync.%s: use spin.Mutex (or a clock of the runtime's own)", path, what, sel.Sel.Name)
						}
					}
					return true
				})
			}
			var visit func(n ast.Node) bool
			visit = func(n ast.Node) bool {
				switch n := n.(type) {
				case *ast.FuncDecl: // parameters may name sync's types
					if n.Body != nil {
						ast.Inspect(n.Body, visit)
					}
					return false
				case *ast.FuncLit:
					ast.Inspect(n.Body, visit)
					return false
				case *ast.Field:
					if len(n.Names) > 0 {
						check(n.Type, "field "+n.Names[0].Name)
					} else {
						check(n.Type, "embedded field")
					}
				case *ast.ValueSpec:
					if n.Type != nil {
						check(n.Type, "variable "+n.Names[0].Name)
					}
				}
				return true
			}
			ast.Inspect(f, visit)
		}
	}
}
