package instrument

import (
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"testing"
)

// TestIsHeaderData checks which reads isHeaderData takes for the one the
// compiler's -d=checkptr exempts when converted to unsafe.Pointer: the
// Data field of reflect.SliceHeader or reflect.StringHeader read through
// a pointer, parenthesized or not; not a header held by value, not
// another field, not a Data field of another type.
func TestIsHeaderData(t *testing.T) {
	const src = `package p

import (
	"reflect"
	"unsafe"
)

type own struct{ Data uintptr }

func f(sh *reflect.SliceHeader, st *reflect.StringHeader, v reflect.SliceHeader, o *own) {
	_ = unsafe.Pointer(sh.Data)     // yes
	_ = unsafe.Pointer((st.Data))   // yes
	_ = unsafe.Pointer(v.Data)      // no: by value
	_ = unsafe.Pointer(o.Data)      // no: not reflect's
	_ = uintptr(sh.Len)             // no: another field
}
`
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "p.go", src, parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	info := &types.Info{Types: map[ast.Expr]types.TypeAndValue{}, Selections: map[*ast.SelectorExpr]*types.Selection{}}
	conf := types.Config{Importer: importer.Default()}
	if _, err := conf.Check("p", fset, []*ast.File{f}, info); err != nil {
		t.Fatal(err)
	}
	var got []bool
	ast.Inspect(f, func(n ast.Node) bool {
		if call, ok := n.(*ast.CallExpr); ok && len(call.Args) == 1 && info.Types[call.Fun].IsType() {
			got = append(got, isHeaderData(call.Args[0], info))
		}
		return true
	})
	want := []bool{true, true, false, false, false}
	if len(got) != len(want) {
		t.Fatalf("found %d conversions, want %d", len(got), len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("conversion %d: isHeaderData %v, want %v", i+1, got[i], want[i])
		}
	}
}
