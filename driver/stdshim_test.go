package driver

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
	"strings"
	"testing"

	bigfoot "github.com/bigfoot-go/bigfoot"
)

// allShimNames says that every hook is used, so that stdShimFor emits all
// of them.
func allShimNames() map[string]bool {
	used := map[string]bool{}
	for name := range stdHooks {
		used[name] = true
	}
	return used
}

// TestStdShimTypeChecks type-checks the shim with every hook, in a package
// of its own and as package time and package context (whose shims name
// their own declarations unqualified): a mistake in a hook's signature or
// fallback would otherwise show only in the build of a package that uses
// it.
func TestStdShimTypeChecks(t *testing.T) {
	for _, pkg := range []struct{ path, name string }{{"example.com/p", "p"}, {"time", "time"}, {"context", "context"}} {
		src := stdShimFor(pkg.path, pkg.name, allShimNames())
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, stdShimName, src, 0)
		if err != nil {
			t.Fatalf("%s: the shim does not parse: %v", pkg.path, err)
		}
		if pkg.path != "example.com/p" {
			// As package time or context, the shim's references to
			// that package's declarations are unqualified: check only
			// that it imports no package it is part of.
			for _, im := range f.Imports {
				if strings.Trim(im.Path.Value, `"`) == pkg.path {
					t.Errorf("%s: the shim imports its own package", pkg.path)
				}
			}
			continue
		}
		conf := types.Config{Importer: importer.ForCompiler(fset, "source", nil)}
		if _, err := conf.Check(pkg.path, fset, []*ast.File{f}, nil); err != nil {
			t.Errorf("%s: the shim does not type-check: %v", pkg.path, err)
		}
	}
}

// TestStdShimLinknames checks that every function of the detector the
// shim links to exists, with the shim's number of parameters and results
// (a missing one fails only at link time, in the build of a package that
// uses the hook).
func TestStdShimLinknames(t *testing.T) {
	decls := map[string]*ast.FuncType{}
	fset := token.NewFileSet()
	paths, err := filepath.Glob("../detector/*.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, path := range paths {
		if strings.HasSuffix(path, "_test.go") {
			continue
		}
		src, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		f, err := parser.ParseFile(fset, path, src, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && fd.Recv == nil {
				decls[fd.Name.Name] = fd.Type
			}
		}
	}
	src := stdShimFor("example.com/p", "p", allShimNames())
	f, err := parser.ParseFile(fset, stdShimName, src, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	link := regexp.MustCompile(`^//go:linkname (\w+) github\.com/bigfoot-go/bigfoot/detector\.(\w+)$`)
	local := map[string]*ast.FuncType{}
	for _, d := range f.Decls {
		if fd, ok := d.(*ast.FuncDecl); ok && fd.Body == nil {
			local[fd.Name.Name] = fd.Type
		}
	}
	n := 0
	for _, cg := range f.Comments {
		for _, c := range cg.List {
			m := link.FindStringSubmatch(c.Text)
			if m == nil {
				continue
			}
			n++
			want, ok := decls[m[2]]
			if !ok {
				t.Errorf("%s links to detector.%s, which does not exist", m[1], m[2])
				continue
			}
			got := local[m[1]]
			if got == nil {
				t.Errorf("no body-less declaration of %s", m[1])
				continue
			}
			if fields(got.Params) != fields(want.Params) || fields(got.Results) != fields(want.Results) {
				t.Errorf("%s: %d parameters and %d results, detector.%s has %d and %d",
					m[1], fields(got.Params), fields(got.Results), m[2], fields(want.Params), fields(want.Results))
			}
		}
	}
	if n < len(allSyncHooks) {
		t.Errorf("%d linknames in the shim, fewer than the %d synchronization hooks", n, len(allSyncHooks))
	}
}

// fields counts the parameters or results of a list.
func fields(l *ast.FieldList) int {
	if l == nil {
		return 0
	}
	n := 0
	for _, f := range l.List {
		n += max(1, len(f.Names))
	}
	return n
}

// TestStdShimSliceHelpers checks that the shim's slice helpers are the
// runtime's (detector/slicehelpers.go, renamed), each declared once.
func TestStdShimSliceHelpers(t *testing.T) {
	src, err := fs.ReadFile(bigfoot.Runtime(), sliceHelpersFile)
	if err != nil {
		t.Fatal(err)
	}
	f, err := parser.ParseFile(token.NewFileSet(), sliceHelpersFile, src, 0)
	if err != nil {
		t.Fatal(err)
	}
	shim := string(stdShimFor("example.com/p", "p", allShimNames()))
	n := 0
	for _, d := range f.Decls {
		var decl string
		switch d := d.(type) {
		case *ast.FuncDecl:
			if d.Recv != nil {
				continue
			}
			decl = "func __bf_" + d.Name.Name + "["
		case *ast.GenDecl:
			if d.Tok != token.TYPE {
				continue
			}
			decl = "type __bf_" + d.Specs[0].(*ast.TypeSpec).Name.Name + "["
		}
		n++
		if c := strings.Count(shim, decl); c != 1 {
			t.Errorf("shim declares %q %d times, want once", decl, c)
		}
	}
	if n < 5 {
		t.Errorf("%s has %d top-level helpers; want copy, append and the whole-slice helpers", sliceHelpersFile, n)
	}
}
