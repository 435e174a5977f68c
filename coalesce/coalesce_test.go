package coalesce

import (
	"go/types"
	"reflect"
	"testing"

	"github.com/bigfoot-go/bigfoot/placement/entail"
)

func eq(a, b entail.Term) bool { return a.Equal(b) }

func str(rs []Range) []string {
	var out []string
	for _, r := range rs {
		out = append(out, r.Lo.String()+".."+r.Hi.String()+":"+itoa(int(r.Stride)))
	}
	return out
}

func single(t entail.Term) Range { return Range{Lo: t, Hi: t.AddConst(1), Stride: 1} }

func TestRanges(t *testing.T) {
	i, n := entail.Var("i"), entail.Var("n")
	for _, c := range []struct {
		name string
		in   []Range
		want []string
	}{
		{"adjacent singletons", []Range{single(i), single(i.AddConst(1))}, []string{"i..i + 2:1"}},
		{"stride two", []Range{single(i), single(i.AddConst(2)), single(i.AddConst(4))}, []string{"i..i + 5:2"}},
		{"range and next", []Range{{Lo: entail.Const(0), Hi: i, Stride: 1}, single(i)}, []string{"0..i + 1:1"}},
		{"adjacent ranges", []Range{{Lo: entail.Const(0), Hi: i, Stride: 1}, {Lo: i, Hi: n, Stride: 1}}, []string{"0..n:1"}},
		{"unrelated", []Range{single(i), single(n)}, []string{"i..i + 1:1", "n..n + 1:1"}},
	} {
		if got := str(Ranges(c.in, eq)); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: got %v, want %v", c.name, got, c.want)
		}
	}
}

func TestProxies(t *testing.T) {
	st := types.NewStruct(nil, nil)
	got := Proxies([]FieldSet{{st, []int{0, 1, 2}}, {st, []int{0, 1, 2}}, {st, []int{3}}, {st, []int{2}}})
	want := [][]int{{0, 1}, {2}, {3}}
	if !reflect.DeepEqual(got[st], want) {
		t.Errorf("Proxies = %v, want %v", got[st], want)
	}
}
