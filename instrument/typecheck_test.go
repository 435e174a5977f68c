package instrument_test

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"go/version"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"testing"

	"github.com/bigfoot-go/bigfoot/driver"
	"github.com/bigfoot-go/bigfoot/instrument"
	"github.com/bigfoot-go/bigfoot/mode"
)

// A rewrite that cannot break a build (issue 28, item 4): every package
// of the standard library that a build instruments (driver.ScopeAll) is
// instrumented in every mode, and the result type-checked with go/types
// against the export data of the unmodified standard library and of the
// runtime. Without -std=all (make typecheck-all), a representative
// subset: the generic packages, and packages rich in the constructs the
// rewrite handles (appends, embedded fields, promoted methods, composite
// assignments).

var stdFlag = flag.String("std", "", "TestTypecheckStd: all checks every package of the standard library, not a subset")

// shortStd is the subset of the standard library type-checked with -short.
var shortStd = []string{
	"bufio", "bytes", "container/heap", "container/list", "context", "encoding/binary",
	"encoding/json", "go/ast", "maps", "math/big", "net/url", "slices",
	"sort", "strconv", "strings", "text/tabwriter", "unicode/utf8",
}

// listedPkg is what go list says of a package.
type listedPkg struct {
	ImportPath string
	Dir        string
	GoFiles    []string
	Imports    []string
	Export     string
	Standard   bool
	ImportMap  map[string]string
}

// goList lists the packages named and their dependencies, with export data.
func goList(t *testing.T, env []string, args ...string) map[string]*listedPkg {
	t.Helper()
	cmd := exec.Command("go", append([]string{"list", "-deps", "-export", "-json=ImportPath,Dir,GoFiles,Imports,Export,Standard,ImportMap"}, args...)...)
	cmd.Dir = ".."
	cmd.Env = env
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, stderr.Bytes())
	}
	pkgs := map[string]*listedPkg{}
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		p := new(listedPkg)
		if err := dec.Decode(p); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		pkgs[p.ImportPath] = p
	}
	return pkgs
}

func TestTypecheckStd(t *testing.T) {
	env := append(os.Environ(), "CGO_ENABLED=0", "GOFLAGS=", "GOWORK=off")
	pkgs := goList(t, env, "std", instrument.RuntimePath)
	var targets []string
	if *stdFlag != "all" {
		targets = shortStd
	} else {
		for path, p := range pkgs {
			if p.Standard && driver.ScopeAll.Instruments(path, false, false, p.Imports) {
				targets = append(targets, path)
			}
		}
		sort.Strings(targets)
	}
	for _, m := range []mode.Mode{mode.FastTrack, mode.RedCard, mode.SlimState, mode.BigFoot} {
		t.Run(m.String(), func(t *testing.T) {
			// In batches: one load of the whole library holds every
			// package's syntax, types and SSA at once.
			const batch = 40
			for i := 0; i < len(targets); i += batch {
				some := targets[i:min(i+batch, len(targets))]
				// With the runtime's hooks, as every build with this
				// toolchain instruments the library.
				res, err := instrument.Run(context.Background(), instrument.Config{Dir: "..", Patterns: some, Std: true, Mode: m, Env: env, RuntimeHooks: true})
				if err != nil {
					t.Fatalf("instrumenting %v: %v", some, err)
				}
				for _, n := range res.Notes {
					// A failure of the rendering (a file given
					// per-access checks or left as it was) is a bug.
					if strings.Contains(n, "internal error") || strings.Contains(n, "per-access checks (fasttrack)") {
						t.Errorf("%s", n[:min(len(n), 2000)])
					}
				}
				for _, path := range some {
					if err := typecheck(pkgs, pkgs[path], res); err != nil {
						t.Errorf("%s: %v", path, err)
					}
				}
			}
		})
	}
}

// typecheck type-checks the package p with the files res replaces or
// adds in its directory.
func typecheck(pkgs map[string]*listedPkg, p *listedPkg, res *instrument.Result) error {
	fset := token.NewFileSet()
	var files []*ast.File
	changed := false
	parse := func(name string, src []byte) error {
		f, err := parser.ParseFile(fset, name, src, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		files = append(files, f)
		return nil
	}
	for _, name := range p.GoFiles {
		path := filepath.Join(p.Dir, name)
		src, ok := res.Replace[path]
		if ok {
			changed = true
		} else {
			var err error
			if src, err = os.ReadFile(path); err != nil {
				return err
			}
		}
		if err := parse(path, src); err != nil {
			return err
		}
	}
	for path, src := range res.Add {
		if filepath.Dir(path) == p.Dir {
			changed = true
			if err := parse(path, src); err != nil {
				return err
			}
		}
	}
	if !changed {
		return nil // left as it is
	}
	imp := importer.ForCompiler(fset, "gc", func(path string) (io.ReadCloser, error) {
		if q := pkgs[path]; q != nil && q.Export != "" {
			return os.Open(q.Export)
		}
		return nil, fmt.Errorf("no export data for %s", path)
	})
	var errs []string
	conf := types.Config{
		GoVersion: version.Lang(runtime.Version()), // the standard library's own
		Importer:  mapImporter{imp, p.ImportMap},
		Error: func(err error) {
			if len(errs) < 10 {
				errs = append(errs, err.Error())
			}
		},
	}
	conf.Check(p.ImportPath, fset, files, nil)
	if len(errs) > 0 {
		return fmt.Errorf("the instrumented package does not type-check:\n\t%s", strings.Join(errs, "\n\t"))
	}
	return nil
}

// mapImporter resolves the import paths of a package's files to the
// packages go list names (the standard library's vendored packages).
type mapImporter struct {
	imp types.Importer
	m   map[string]string
}

func (m mapImporter) Import(path string) (*types.Package, error) {
	if q, ok := m.m[path]; ok {
		path = q
	}
	return m.imp.Import(path)
}
