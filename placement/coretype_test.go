package placement

import (
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"testing"
)

// TestCoreType checks CoreType on the type parameters of one function,
// each named after what its core type must be ("none": no core type).
func TestCoreType(t *testing.T) {
	const src = `package p

type Bytes interface{ ~[]byte }

func f[
	slice_E ~[]E,
	map_K_V ~map[K]V,
	ptr_E interface{ *E },
	named_slice_byte Bytes,
	both_slice_byte interface{ Bytes; ~[]byte; String() string },
	none_any any,
	none_mixed ~[]int | ~[]int64,
	none_strbytes ~string | ~[]byte,
	none_disagree interface{ ~[]int; ~[]int64 },
	E any, K comparable, V any,
]() {}
`
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "p.go", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	info := &types.Info{Defs: map[*ast.Ident]types.Object{}}
	if _, err := (&types.Config{Importer: importer.Default()}).Check("p", fset, []*ast.File{f}, info); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"slice_E": "[]E", "map_K_V": "map[K]V", "ptr_E": "*E",
		"named_slice_byte": "[]byte", "both_slice_byte": "[]byte",
		"none_any": "", "none_mixed": "", "none_strbytes": "", "none_disagree": "",
	}
	n := 0
	for id, obj := range info.Defs {
		w, ok := want[id.Name]
		if !ok {
			continue
		}
		if _, ok := obj.(*types.TypeName); !ok {
			continue
		}
		n++
		got := ""
		if c := CoreType(obj.Type()); c != nil {
			got = types.TypeString(c, func(*types.Package) string { return "" })
		}
		if got != w {
			t.Errorf("CoreType(%s) = %q, want %q", id.Name, got, w)
		}
	}
	if n != len(want) {
		t.Fatalf("checked %d type parameters, want %d", n, len(want))
	}
	if got := CoreType(types.NewSlice(types.Typ[types.Int])); got.String() != "[]int" {
		t.Errorf("CoreType([]int) = %v", got)
	}
	if CoreType(nil) != nil {
		t.Error("CoreType(nil) != nil")
	}
}
