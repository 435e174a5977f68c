package driver

import (
	"bytes"
	"go/ast"
	"go/format"
	"go/parser"
	"go/printer"
	"go/token"
	"io/fs"
	"sync"

	bigfoot "github.com/bigfoot-go/bigfoot"
)

// sliceHelpersFile is the runtime's one copy of the slice helpers (copy,
// append, whole-slice reads and writes), which the standard-library shim
// shares with the user's instrumented code.
const sliceHelpersFile = "detector/slicehelpers.go"

// sliceHelpers returns the declarations of sliceHelpersFile renamed into
// the shim's names: G and every top-level name X become __bf_G and __bf_X,
// the package unsafe __bfunsafe, the builtin min __bf_min (a package may
// redeclare min; math does). The file's doc comment states what it may
// use so that this renaming is all the shim needs; TestStdShimTypeChecks
// compiles the result in every standard-library package the shim goes to.
var sliceHelpers = sync.OnceValue(func() string {
	src, err := fs.ReadFile(bigfoot.Runtime(), sliceHelpersFile)
	if err != nil {
		panic("bigfoot: the embedded runtime lacks " + sliceHelpersFile + ": " + err.Error())
	}
	text, err := shimSliceHelpers(src)
	if err != nil {
		panic("bigfoot: " + sliceHelpersFile + ": " + err.Error())
	}
	return text
})

// shimSliceHelpers renames the declarations of the Go file src as
// sliceHelpers describes and returns them, without package clause or
// imports.
func shimSliceHelpers(src []byte) (string, error) {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, sliceHelpersFile, src, parser.ParseComments)
	if err != nil {
		return "", err
	}
	rename := map[string]string{"G": "__bf_G", "unsafe": "__bfunsafe", "min": "__bf_min"}
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if d.Recv == nil {
				rename[d.Name.Name] = "__bf_" + d.Name.Name
			}
		case *ast.GenDecl:
			for _, s := range d.Specs {
				if ts, ok := s.(*ast.TypeSpec); ok {
					rename[ts.Name.Name] = "__bf_" + ts.Name.Name
				}
			}
		}
	}
	// Selected names (methods, fields) keep theirs; every other identifier
	// with a name in rename is one of the file's declarations, G, unsafe
	// or min, since the file declares no local of those names.
	selected := map[*ast.Ident]bool{}
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.SelectorExpr:
			selected[n.Sel] = true
		case *ast.FuncDecl:
			if n.Recv != nil {
				selected[n.Name] = true
			}
		case *ast.Ident:
			if to, ok := rename[n.Name]; ok && !selected[n] {
				n.Name = to
			}
		}
		return true
	})
	var b bytes.Buffer
	for _, d := range f.Decls {
		if gd, ok := d.(*ast.GenDecl); ok && gd.Tok == token.IMPORT {
			continue
		}
		b.WriteString("\n")
		if err := format.Node(&b, fset, &printer.CommentedNode{Node: d, Comments: f.Comments}); err != nil {
			return "", err
		}
		b.WriteString("\n")
	}
	return b.String(), nil
}
