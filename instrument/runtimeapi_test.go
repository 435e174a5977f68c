package instrument

import (
	"fmt"
	"go/ast"
	"go/build"
	"go/constant"
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

	"golang.org/x/tools/go/packages"

	"github.com/bigfoot-go/bigfoot/placement"
)

// A runtimeExport is what the runtime package exports: the kind of each
// package-level name ("func", "type", "var" or "const") and the methods
// of its goroutine state G.
type runtimeExport struct {
	kinds    map[string]string
	gMethods map[string]bool
}

// runtimeExports reads the runtime package's (detector's) exports from
// its source files of every build configuration, so that a name that
// exists under one build tag only (bigfoot_count, bigfoot_verify) counts.
func runtimeExports(t *testing.T) runtimeExport {
	t.Helper()
	api := runtimeExport{kinds: map[string]string{}, gMethods: map[string]bool{}}
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
					api.kinds[d.Name.Name] = "func"
					continue
				}
				rt := d.Recv.List[0].Type
				if s, ok := rt.(*ast.StarExpr); ok {
					rt = s.X
				}
				if id, ok := rt.(*ast.Ident); ok && id.Name == "G" {
					api.gMethods[d.Name.Name] = true
				}
			case *ast.GenDecl:
				for _, s := range d.Specs {
					switch s := s.(type) {
					case *ast.TypeSpec:
						if s.Name.IsExported() {
							api.kinds[s.Name.Name] = "type"
						}
					case *ast.ValueSpec:
						for _, n := range s.Names {
							if n.IsExported() {
								api.kinds[n.Name] = strings.ToLower(d.Tok.String())
							}
						}
					}
				}
			}
		}
	}
	return api
}

// An emitted name is a runtime identifier the instrumenter can emit: its
// name, the kind its use needs ("func", "type", "func or type", or
// "method" of G) and where it is emitted. A method of G is named as
// __bfg.Name or after the rendered goroutine state, r.g() + ".Name(".
type emitted struct {
	name, kind, where string
}

// literalRef matches a runtime identifier named literally in a string
// constant: __bf.Name, or __bfg.Name for a method of the goroutine state.
var literalRef = regexp.MustCompile(`(^|[^A-Za-z0-9_])(__bfg?)\.([A-Za-z_][A-Za-z0-9_]*)`)

// methodRef matches a method call spliced on after the goroutine state.
var methodRef = regexp.MustCompile(`^\.([A-Za-z_][A-Za-z0-9_]*)\(`)

// literalRefs returns the runtime identifiers named in the text of a
// string constant, each with the kind its context needs.
func literalRefs(text, where string) []emitted {
	var out []emitted
	for _, m := range literalRef.FindAllStringSubmatchIndex(text, -1) {
		qual, name := text[m[4]:m[5]], text[m[6]:m[7]]
		before, after := text[:m[4]], text[m[7]:]
		kind := "func or type" // at the end of the text: the use is spliced on
		switch {
		case qual == "__bfg":
			kind = "method"
		case strings.HasPrefix(after, "("), strings.HasPrefix(after, "["):
			kind = "func" // a call, or the instantiation of a generic one
		case strings.HasPrefix(after, "{"), strings.HasSuffix(before, "*"), strings.HasSuffix(before, "]"):
			kind = "type"
		case after != "":
			kind = "type" // in a declaration: a parameter's or variable's type
		}
		out = append(out, emitted{name, kind, where})
	}
	return out
}

// qualifierUses are the functions whose string constants may end in the
// runtime's qualifier, __bf., with the name to come from elsewhere.
var qualifierUses = map[string]string{
	"ref":        "rtName.ref splices a hook",
	"call":       "runtime.RaceXxx becomes __bf.RaceXxx: the name is the user's (raceFuncs)",
	"finishFile": "looks for the qualifier in the text, emits none",
}

// emittedNames collects every runtime identifier the instrumenter can
// emit, from its source (the non-test files of this package): the names
// in its string constants, every constant of type rtName, every hook of
// placement's table of synchronizing calls (syncHook), those it derives
// from this toolchain's sync/atomic, and the runtime's
// RaceXxx functions, whose calls keep their names. It fails the test
// where a name could be emitted another way: a string constant that ends
// in the qualifier outside qualifierUses, or an rtName made of a value
// that is not a constant outside syncHook.
func emittedNames(t *testing.T) []emitted {
	t.Helper()
	cfg := &packages.Config{Mode: packages.NeedName | packages.NeedFiles | packages.NeedSyntax | packages.NeedTypes | packages.NeedTypesInfo}
	pkgs, err := packages.Load(cfg, ".")
	if err != nil || len(pkgs) != 1 || len(pkgs[0].Errors) > 0 {
		t.Fatalf("loading the instrumenter: %v %v", err, pkgs)
	}
	pkg := pkgs[0]
	rtNameType := pkg.Types.Scope().Lookup("rtName").Type()
	isRtName := func(x ast.Expr) bool {
		tv, ok := pkg.TypesInfo.Types[x]
		return ok && types.Identical(tv.Type, rtNameType)
	}
	constString := func(x ast.Expr) (string, bool) {
		tv, ok := pkg.TypesInfo.Types[x]
		if !ok || tv.Value == nil || tv.Value.Kind() != constant.String {
			return "", false
		}
		return constant.StringVal(tv.Value), true
	}
	var out []emitted
	for _, f := range pkg.Syntax {
		for _, decl := range f.Decls {
			fn := "" // the enclosing function's name
			if fd, ok := decl.(*ast.FuncDecl); ok {
				fn = fd.Name.Name
			}
			ast.Inspect(decl, func(n ast.Node) bool {
				if n == nil {
					return false
				}
				where := pkg.Fset.Position(n.Pos()).String()
				switch n := n.(type) {
				case *ast.BasicLit:
					if s, ok := constString(n); ok {
						out = append(out, literalRefs(s, where)...)
						if (strings.HasSuffix(s, "__bf.") || strings.HasSuffix(s, "__bfg.")) && qualifierUses[fn] == "" {
							t.Errorf("%s: %q: a runtime name spliced on after it; name it by an rtName and its ref method", where, s)
						}
					}
				case *ast.BinaryExpr:
					// r.g() + ".Name(": a method of the goroutine state.
					if n.Op != token.ADD {
						break
					}
					left := n.X
					for b, ok := left.(*ast.BinaryExpr); ok && b.Op == token.ADD; b, ok = left.(*ast.BinaryExpr) {
						left = b.Y
					}
					call, ok := left.(*ast.CallExpr)
					if !ok {
						break
					}
					if sel, ok := call.Fun.(*ast.SelectorExpr); !ok || sel.Sel.Name != "g" && sel.Sel.Name != "gFor" {
						break
					}
					right := n.Y
					for b, ok := right.(*ast.BinaryExpr); ok && b.Op == token.ADD; b, ok = right.(*ast.BinaryExpr) {
						right = b.X
					}
					if s, ok := constString(right); ok {
						if m := methodRef.FindStringSubmatch(s); m != nil {
							out = append(out, emitted{m[1], "method", where})
						}
					}
				case *ast.CallExpr:
					// A conversion to rtName of a value that is not a
					// constant: only syncHook may make one.
					if tv, ok := pkg.TypesInfo.Types[n.Fun]; ok && tv.IsType() && isRtName(n) && pkg.TypesInfo.Types[n].Value == nil && fn != "syncHook" {
						t.Errorf("%s: an rtName made of a value that is not a constant: TestRuntimeAPI cannot see it", where)
					}
				}
				if x, ok := n.(ast.Expr); ok && isRtName(x) {
					// "" stands for no hook.
					if s, ok := constString(x); ok && s != "" {
						out = append(out, emitted{s, "func", where})
					}
				}
				return true
			})
		}
	}

	// syncHook: the table's hooks, and those it derives for every
	// exported function and method of sync/atomic.
	for key, c := range placement.SyncCalls() {
		if c.Hook != "" {
			out = append(out, emitted{c.Hook, "func", "placement's table of synchronizing calls: " + key})
		}
	}
	atomic, err := importer.ForCompiler(token.NewFileSet(), "source", nil).Import("sync/atomic")
	if err != nil {
		t.Fatalf("type-checking sync/atomic: %v", err)
	}
	scope := atomic.Scope()
	for _, n := range scope.Names() {
		switch obj := scope.Lookup(n).(type) {
		case *types.Func:
			if obj.Exported() {
				out = append(out, emitted{string(syncHook(obj)), "func", "sync/atomic." + n})
			}
		case *types.TypeName:
			named, ok := obj.Type().(*types.Named)
			if !ok || !obj.Exported() {
				continue
			}
			for i := 0; i < named.NumMethods(); i++ {
				if m := named.Method(i); m.Exported() {
					out = append(out, emitted{string(syncHook(m)), "func", "sync/atomic." + n + "." + m.Name()})
				}
			}
		}
	}
	for _, name := range raceFuncs(t) {
		out = append(out, emitted{name, "func", "runtime." + name})
	}
	return out
}

// raceFuncs returns the names of the runtime's exported RaceXxx functions
// in this toolchain (runtime/race.go, compiled only with -race): a call
// of one in a user's race-only file calls the detector's instead.
func raceFuncs(t *testing.T) []string {
	t.Helper()
	file := filepath.Join(build.Default.GOROOT, "src", "runtime", "race.go")
	f, err := parser.ParseFile(token.NewFileSet(), file, nil, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, d := range f.Decls {
		if fd, ok := d.(*ast.FuncDecl); ok && fd.Recv == nil && fd.Name.IsExported() && strings.HasPrefix(fd.Name.Name, "Race") {
			names = append(names, fd.Name.Name)
		}
	}
	if len(names) == 0 {
		t.Fatalf("%s declares no RaceXxx function", file)
	}
	return names
}

// TestRuntimeAPI checks, as cmd/compile's test of its table of runtime
// functions does, that every runtime identifier the instrumenter can emit
// into user code (emittedNames) is exported by the runtime package with
// the kind its use needs: a function where it is called, a type where it
// is one, a method of G where __bfg names it.
func TestRuntimeAPI(t *testing.T) {
	api := runtimeExports(t)
	names := emittedNames(t)
	seen := map[string]bool{}
	var bad []string
	for _, e := range names {
		seen[e.name] = true
		got := api.kinds[e.name]
		var ok bool
		switch e.kind {
		case "method":
			ok, got = api.gMethods[e.name], "not a method of G"
		case "func or type":
			ok = got == "func" || got == "type"
		default:
			ok = got == e.kind
		}
		if !ok {
			if got == "" {
				got = "not exported"
			}
			qual := "detector."
			if e.kind == "method" {
				qual = "(*detector.G)."
			}
			bad = append(bad, e.where+": "+qual+e.name+": want a "+e.kind+", the runtime's is "+got)
		}
	}
	sort.Strings(bad)
	for _, b := range bad {
		t.Error(b)
	}
	if len(seen) < 100 {
		t.Errorf("only %d runtime names collected", len(seen))
	}

	// The collection is complete: every runtime name in the emitted code
	// of the golden files is among them.
	goldens := 0
	err := filepath.WalkDir(filepath.Join("testdata", "golden"), func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".golden") {
			return err
		}
		goldens++
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, e := range literalRefs(string(data), path) {
			if e.kind != "method" && !seen[e.name] {
				t.Errorf("%s: detector.%s is emitted but not collected from the instrumenter's source", path, e.name)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if goldens == 0 {
		t.Fatal("no golden files found")
	}
}

// TestRuntimeAPITemplates type-checks the instrumenter's helper templates
// (string constants declaring functions or types that name the runtime)
// against the runtime package: the methods and fields they use on the
// runtime's types (a.g.Count, f.Next) are names the instrumenter emits
// too, which literalRefs does not see.
func TestRuntimeAPITemplates(t *testing.T) {
	cfg := &packages.Config{Mode: packages.NeedName | packages.NeedFiles | packages.NeedSyntax | packages.NeedTypes | packages.NeedTypesInfo}
	pkgs, err := packages.Load(cfg, ".", "github.com/bigfoot-go/bigfoot/detector")
	if err != nil || len(pkgs) != 2 {
		t.Fatalf("loading the instrumenter and the runtime: %v %v", err, pkgs)
	}
	var self, detector *packages.Package
	for _, p := range pkgs {
		if len(p.Errors) > 0 {
			t.Fatalf("%s: %v", p.PkgPath, p.Errors)
		}
		if p.Name == "detector" {
			detector = p
		} else {
			self = p
		}
	}
	imp := importerFunc(func(path string) (*types.Package, error) {
		switch path {
		case "unsafe":
			return types.Unsafe, nil
		case RuntimePath:
			return detector.Types, nil
		}
		return nil, fmt.Errorf("template imports %s", path)
	})
	templates := 0
	scope := self.Types.Scope()
	for _, name := range scope.Names() {
		c, ok := scope.Lookup(name).(*types.Const)
		if !ok || c.Val().Kind() != constant.String {
			continue
		}
		text := constant.StringVal(c.Val())
		if !strings.Contains(text, "__bf.") || !regexp.MustCompile(`(?m)^(func|type) `).MatchString(text) {
			continue
		}
		templates++
		src := "package p\n\nimport (\n\t__bf \"" + RuntimePath + "\"\n\t__bfu \"unsafe\"\n)\n\nvar _ = __bfu.Sizeof(0)\n\n" +
			strings.ReplaceAll(text, "%[1]s", "bfTemplate")
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, name+".go", src, 0)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		conf := types.Config{Importer: imp, Error: func(err error) { t.Errorf("%s: %v", name, err) }}
		conf.Check("p", fset, []*ast.File{f}, nil)
	}
	if templates < 3 {
		t.Errorf("only %d helper templates found", templates)
	}
}

// importerFunc is a types.Importer.
type importerFunc func(path string) (*types.Package, error)

func (f importerFunc) Import(path string) (*types.Package, error) { return f(path) }

// literalRefs tells the kind each context needs.
func TestLiteralRefs(t *testing.T) {
	got := map[string]string{}
	for _, e := range literalRefs(`g *__bf.G; x := *__bf.R(__bfg, &p, 3); __bf.LoopVar{}; __bfg.Fork(s); []__bf.Footprint; var c __bf.Child; f(__bf.MV`, "") {
		got[e.name] = e.kind
	}
	want := map[string]string{"G": "type", "R": "func", "LoopVar": "type", "Fork": "method", "Footprint": "type", "Child": "type", "MV": "func or type"}
	if len(got) != len(want) {
		t.Errorf("got %v, want %v", got, want)
	}
	for n, k := range want {
		if got[n] != k {
			t.Errorf("%s: kind %q, want %q", n, got[n], k)
		}
	}
	if refs := literalRefs("__bfu.Pointer __bftesting.Testing x__bf.R( __bfS_1", ""); len(refs) != 0 {
		t.Errorf("not runtime names, collected: %v", refs)
	}
}
