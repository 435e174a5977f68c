// Copyright 2026 The bigfoot Authors. All rights reserved.

package instrument

import (
	"go/ast"
	"go/importer"
	"go/parser"
	"go/token"
	"go/types"
	"testing"
)

// TestIndexKey: element accesses share a footprint when their indexes
// differ by constant terms only (one progression), and not otherwise.
func TestIndexKey(t *testing.T) {
	const src = `package p

const k = 3

func f(a []int, g [][]int, s []struct{ x int }, i, j, n int) {
	_ = a[i]
	_ = a[i+1]
	_ = a[i-k]
	_ = a[1+i]
	_ = a[(i)+2]
	_ = a[j]
	_ = a[2*i]
	_ = a[2*i+1]
	_ = a[i*n+j]
	_ = a[i*n+j+1]
	_ = g[i][j]
	_ = g[i][j-1]
	_ = s[i].x
	_ = a[3]
	_ = a[i+j]
}
`
	want := []string{"i", "i", "i", "i", "i", "j", "2*i", "2*i", "i*n+j", "i*n+j", "j", "j", "i", "3", "i+j"}
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "p.go", src, 0)
	if err != nil {
		t.Fatal(err)
	}
	info := &types.Info{Types: map[ast.Expr]types.TypeAndValue{}}
	if _, err := (&types.Config{Importer: importer.Default()}).Check("p", fset, []*ast.File{f}, info); err != nil {
		t.Fatal(err)
	}
	r := &fileRewriter{info: info, file: f, src: []byte(src), tf: fset.File(f.Pos())}
	var got []string
	ast.Inspect(f, func(n ast.Node) bool {
		if as, ok := n.(*ast.AssignStmt); ok {
			got = append(got, r.indexKey(as.Rhs[0]))
			return false
		}
		return true
	})
	if len(got) != len(want) {
		t.Fatalf("got %d keys %q, want %d", len(got), got, len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("access %d: index key %q, want %q", i, got[i], want[i])
		}
	}
}
