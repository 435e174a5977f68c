package instrument

import (
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// runtimeExports returns the exported package-level names of the runtime
// package (detector) and the exported methods of its goroutine state G,
// read from its source files of every build configuration, so that a name
// that exists under one build tag only (bigfoot_count, bigfoot_verify)
// counts.
func runtimeExports(t *testing.T) (pkg, gMethods map[string]bool) {
	t.Helper()
	pkg, gMethods = map[string]bool{}, map[string]bool{}
	files, err := filepath.Glob(filepath.Join("..", "detector", "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if !d.Name.IsExported() {
					continue
				}
				if d.Recv == nil {
					pkg[d.Name.Name] = true
					continue
				}
				rt := d.Recv.List[0].Type
				if s, ok := rt.(*ast.StarExpr); ok {
					rt = s.X
				}
				if id, ok := rt.(*ast.Ident); ok && id.Name == "G" {
					gMethods[d.Name.Name] = true
				}
			case *ast.GenDecl:
				for _, s := range d.Specs {
					switch s := s.(type) {
					case *ast.TypeSpec:
						if s.Name.IsExported() {
							pkg[s.Name.Name] = true
						}
					case *ast.ValueSpec:
						for _, n := range s.Names {
							if n.IsExported() {
								pkg[n.Name] = true
							}
						}
					}
				}
			}
		}
	}
	return pkg, gMethods
}

// TestHookNames checks, as cmd/compile's builtin table test does for the
// compiler's runtime calls, that every runtime name the instrumenter can
// emit into user code exists in the runtime package: the hook tables, the
// hooks derived from sync/atomic's API (every exported function and method
// of this toolchain's sync/atomic), and every __bf.X and __bfg.X in the
// instrumenter's source and in the emitted code of the golden files.
func TestHookNames(t *testing.T) {
	pkg, gMethods := runtimeExports(t)
	want := map[string]string{} // name -> where the instrumenter emits it
	for key, name := range syncMethods {
		want[name] = "syncMethods[" + key + "]"
	}
	for key, name := range syncFuncs {
		want[name] = "syncFuncs[" + key + "]"
	}
	for _, name := range []string{"ReflectR", "ReflectW", "LockerLock", "LockerUnlock"} {
		want[name] = "sync.go, reflect.go"
	}

	// sync/atomic: hookOf derives "Atomic"+Func and "Atomic"+Type+Method.
	fset := token.NewFileSet()
	atomic, err := importer.ForCompiler(fset, "source", nil).Import("sync/atomic")
	if err != nil {
		t.Fatalf("type-checking sync/atomic: %v", err)
	}
	scope := atomic.Scope()
	for _, n := range scope.Names() {
		switch obj := scope.Lookup(n).(type) {
		case *types.Func:
			if obj.Exported() {
				want["Atomic"+n] = "sync/atomic." + n
			}
		case *types.TypeName:
			named, ok := obj.Type().(*types.Named)
			if !ok || !obj.Exported() {
				continue
			}
			for i := 0; i < named.NumMethods(); i++ {
				if m := named.Method(i); m.Exported() {
					want["Atomic"+n+m.Name()] = "sync/atomic." + n + "." + m.Name()
				}
			}
		}
	}

	// Literal names in the instrumenter's source and its golden outputs.
	qualified := regexp.MustCompile(`__bf\.([A-Z][A-Za-z0-9_]*)`)
	method := regexp.MustCompile(`__bfg\.([A-Z][A-Za-z0-9_]*)`)
	gWant := map[string]string{}
	scan := func(path string) {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range qualified.FindAllSubmatch(data, -1) {
			want[string(m[1])] = path
		}
		for _, m := range method.FindAllSubmatch(data, -1) {
			gWant[string(m[1])] = path
		}
	}
	srcs, _ := filepath.Glob("*.go")
	for _, s := range srcs {
		if !strings.HasSuffix(s, "_test.go") {
			scan(s)
		}
	}
	goldens := 0
	err = filepath.WalkDir(filepath.Join("testdata", "golden"), func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(path, ".golden") {
			goldens++
			scan(path)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if goldens == 0 {
		t.Fatal("no golden files found")
	}

	var missing []string
	for name, where := range want {
		if !pkg[name] {
			missing = append(missing, "detector."+name+" (emitted for "+where+")")
		}
	}
	for name, where := range gWant {
		if !gMethods[name] {
			missing = append(missing, "(*detector.G)."+name+" (emitted in "+where+")")
		}
	}
	sort.Strings(missing)
	for _, m := range missing {
		t.Errorf("not exported by the runtime: %s", m)
	}
	if len(want) < 100 {
		t.Errorf("only %d runtime names collected; the tables moved?", len(want))
	}
}
