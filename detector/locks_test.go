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

// TestRuntimeStdImports: the runtime's hot paths call no standard-library
// package that -deps=all instruments. Under it, those packages' hooks run
// on the calling goroutine and would count the runtime's own work as the
// program's, re-entering the footprints or shadow being updated (a
// side set sorted its chunks with slices.Sort: the verifier flagged the
// checks). Only the files that print (under reportMu, hooks off: report.go,
// stats.go, and exact.go and copyframe.go, which only reports call), the
// verifier (G.stdOff) and goroutine creation (no state yet) may import
// them.
func TestRuntimeStdImports(t *testing.T) {
	instrumented := map[string]bool{"slices": true, "sort": true, "strings": true, "bytes": true,
		"strconv": true, "maps": true, "bufio": true, "math/rand": true, "math/rand/v2": true,
		"container/list": true, "container/heap": true, "regexp": true, "unicode/utf8": true}
	allowed := map[string]bool{"report.go": true, "stats.go": true, "exact.go": true, "copyframe.go": true, "verify.go": true, "goroutine.go": true}
	for _, dir := range []string{".", "../shadow"} {
		files, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		for _, path := range files {
			if strings.HasSuffix(path, "_test.go") || allowed[filepath.Base(path)] && dir == "." {
				continue
			}
			f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
			if err != nil {
				t.Fatal(err)
			}
			for _, imp := range f.Imports {
				if p := strings.Trim(imp.Path.Value, `"`); instrumented[p] {
					t.Errorf("%s imports %s, which -deps=all instruments", path, p)
				}
			}
		}
	}
}
