package instrument

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"golang.org/x/tools/go/packages"
)

// TestMain serves the list driver when go/packages runs the test binary
// as one (TestListDriverLoad), and runs the tests otherwise.
func TestMain(m *testing.M) {
	if _, ok := os.LookupEnv(ListDriverEnv); ok {
		if err := ServeListDriver(context.Background(), os.Args[1:], os.Stdin, os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// TestListDriverLoad loads a module at go 1.16 (an internal package, an
// external test, build tags, an embedded file) through go list and
// through the list driver: the same packages, files, modules and
// language versions, and no export data listed for the main module's
// packages.
func TestListDriverLoad(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Skip(err)
	}
	dir, _ := filepath.Abs("testdata/src/layout")
	summary := func(driver string, patterns ...string) []string {
		pkgs, _, broken, err := load(context.Background(), Config{Dir: dir, Patterns: patterns, Tests: true, ListDriver: driver})
		if err != nil || len(broken) > 0 {
			t.Fatalf("load (driver %q): %v %v", driver, err, broken)
		}
		var out []string
		for _, p := range pkgs {
			var vs []string
			for _, f := range p.Syntax {
				vs = append(vs, filepath.Base(p.Fset.File(f.Pos()).Name())+"@"+p.TypesInfo.FileVersions[f])
			}
			sort.Strings(vs)
			out = append(out, fmt.Sprintf("%s module=%s@%s types=%v %s", p.ID, p.Module.Path, p.Module.GoVersion, p.Types.Complete(), strings.Join(vs, " ")))
		}
		sort.Strings(out)
		return out
	}
	direct, viaDriver := summary("", "./..."), summary(exe, "./...")
	if !slices.Equal(direct, viaDriver) {
		t.Errorf("through go list:\n\t%s\nthrough the driver:\n\t%s", strings.Join(direct, "\n\t"), strings.Join(viaDriver, "\n\t"))
	}
	if len(direct) < 3 || !strings.Contains(strings.Join(direct, " "), "@go1.16") {
		t.Errorf("loaded %q: want the module's packages and test variants at go1.16", direct)
	}
	// The root package imports internal/lib: a second load through go
	// list, a root of the same load through the driver (ListRootsEnv).
	direct, viaDriver = summary("", "."), summary(exe, ".")
	if !slices.Equal(direct, viaDriver) {
		t.Errorf(". through go list:\n\t%s\nthrough the driver:\n\t%s", strings.Join(direct, "\n\t"), strings.Join(viaDriver, "\n\t"))
	}
	if !strings.Contains(strings.Join(viaDriver, " "), "example.com/layout/internal/lib module=") {
		t.Errorf(". loaded %q: want internal/lib too", viaDriver)
	}

	req := &packages.DriverRequest{Mode: loadMode, Env: append(os.Environ(), ListDriverEnv+"="+dir), Tests: true}
	resp, err := listDriver(context.Background(), req, []string{"./..."})
	if err != nil {
		t.Fatal(err)
	}
	if resp.GoVersion != 16 || resp.Compiler != "gc" || resp.Arch == "" {
		t.Errorf("answer for go %d, %s/%s; want go 16, gc and GOARCH", resp.GoVersion, resp.Compiler, resp.Arch)
	}
	std := 0
	for _, p := range resp.Packages {
		switch {
		case strings.HasPrefix(p.ID, "example.com/layout"):
			if p.ExportFile != "" {
				t.Errorf("%s: export data %s listed, want none (type-checked from source)", p.ID, p.ExportFile)
			}
		case p.ExportFile != "":
			std++
		case p.PkgPath != "unsafe":
			t.Errorf("%s: no export data", p.ID)
		}
	}
	if std == 0 {
		t.Error("no export data for the standard library")
	}
}

// TestMainGoVersion checks the version the driver answers with: the main
// modules' go line, none for a module without one, and no answer (go
// list's instead) for main modules of different lines.
func TestMainGoVersion(t *testing.T) {
	mod := func(v string, main bool) *packages.Module {
		return &packages.Module{Path: "example.com/m" + v, GoVersion: v, Main: main}
	}
	dep := &packages.Package{ID: "dep", Module: mod("1.26", false)}
	std := &packages.Package{ID: "fmt"}
	pkg := func(id string, m *packages.Module) *packages.Package {
		return &packages.Package{ID: id, Module: m, Imports: map[string]*packages.Package{"dep": dep, "fmt": std}}
	}
	for _, tc := range []struct {
		name  string
		pkgs  []*packages.Package
		minor int
		ok    bool
	}{
		{"go 1.21.0", []*packages.Package{pkg("a", mod("1.21.0", true)), pkg("b", mod("1.21.0", true))}, 21, true},
		{"go 1.16", []*packages.Package{pkg("a", mod("1.16", true))}, 16, true},
		{"go 1.27rc1", []*packages.Package{pkg("a", mod("1.27rc1", true))}, 27, true},
		{"no go line", []*packages.Package{pkg("a", mod("", true))}, 0, true},
		{"workspace of two lines", []*packages.Package{pkg("a", mod("1.21", true)), pkg("b", mod("1.22", true))}, 0, false},
	} {
		if minor, ok := mainGoVersion(tc.pkgs); minor != tc.minor || ok != tc.ok {
			t.Errorf("%s: %d, %v; want %d, %v", tc.name, minor, ok, tc.minor, tc.ok)
		}
	}
}
