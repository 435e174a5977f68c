package coalesce

import (
	"go/types"
	"reflect"
	"testing"

	"github.com/bigfoot-go/bigfoot/placement/entail"
)

// syntactic decides equality syntactically and congruence by constant
// differences, dropping multiples of k, with even ≡ 0 (mod 2).
type syntactic struct{ even string }

func (syntactic) Equal(a, b entail.Term) bool { return a.Equal(b) }

func (o syntactic) Congruent(a, b entail.Term, k int64) bool {
	d := a.Sub(b)
	rest := entail.Const(d.Const)
	for _, m := range d.Monos {
		if m.Coef%k != 0 && !(k == 2 && m.Var == o.even) {
			rest = rest.Add(entail.Var(m.Var).Scale(m.Coef))
		}
	}
	return rest.IsConst() && rest.Const%k == 0
}

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
		// a[0..i:2] holds even indices only: i+1 is not its next one.
		{"stride two, odd next", []Range{{Lo: entail.Const(0), Hi: i, Stride: 2}, single(i.AddConst(1))}, []string{"0..i:2", "i + 1..i + 2:1"}},
		{"stride two, next", []Range{{Lo: entail.Const(0), Hi: i, Stride: 2}, single(i)}, []string{"0..i + 1:2"}},
		{"interleaved", []Range{{Lo: entail.Const(0), Hi: i, Stride: 2}, {Lo: entail.Const(1), Hi: i.AddConst(1), Stride: 2}}, []string{"0..i:1"}},
		{"interleaved by four", []Range{
			{Lo: entail.Const(0), Hi: i.Scale(4), Stride: 4}, {Lo: entail.Const(1), Hi: i.Scale(4).AddConst(1), Stride: 4},
			{Lo: entail.Const(2), Hi: i.Scale(4).AddConst(2), Stride: 4}, {Lo: entail.Const(3), Hi: i.Scale(4).AddConst(3), Stride: 4},
		}, []string{"0..4*i:1"}},
	} {
		if got := str(Ranges(c.in, syntactic{even: "i"})); !reflect.DeepEqual(got, c.want) {
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
