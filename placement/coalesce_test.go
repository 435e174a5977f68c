package placement

import (
	"reflect"
	"strconv"
	"testing"

	"github.com/bigfoot-go/bigfoot/placement/entail"
)

// syntacticOracle decides equality syntactically and congruence by constant
// differences, dropping multiples of k, with even ≡ 0 (mod 2).
type syntacticOracle struct{ even string }

func (syntacticOracle) Equal(a, b entail.Term) bool { return a.Equal(b) }

func (o syntacticOracle) Congruent(a, b entail.Term, k int64) bool {
	d := a.Sub(b)
	rest := entail.Const(d.Const)
	for _, m := range d.Monos {
		if m.Coef%k != 0 && !(k == 2 && m.Var == o.even) {
			rest = rest.Add(entail.Var(m.Var).Scale(m.Coef))
		}
	}
	return rest.IsConst() && rest.Const%k == 0
}

func rangeStrings(rs []strideRange) []string {
	var out []string
	for _, r := range rs {
		out = append(out, r.Lo.String()+".."+r.Hi.String()+":"+strconv.FormatInt(r.Stride, 10))
	}
	return out
}

func singleIndex(t entail.Term) strideRange { return strideRange{Lo: t, Hi: t.AddConst(1), Stride: 1} }

func TestCoalesceRanges(t *testing.T) {
	i, n := entail.Var("i"), entail.Var("n")
	for _, c := range []struct {
		name string
		in   []strideRange
		want []string
	}{
		{"adjacent singletons", []strideRange{singleIndex(i), singleIndex(i.AddConst(1))}, []string{"i..i + 2:1"}},
		{"stride two", []strideRange{singleIndex(i), singleIndex(i.AddConst(2)), singleIndex(i.AddConst(4))}, []string{"i..i + 5:2"}},
		{"range and next", []strideRange{{Lo: entail.Const(0), Hi: i, Stride: 1}, singleIndex(i)}, []string{"0..i + 1:1"}},
		{"adjacent ranges", []strideRange{{Lo: entail.Const(0), Hi: i, Stride: 1}, {Lo: i, Hi: n, Stride: 1}}, []string{"0..n:1"}},
		{"unrelated", []strideRange{singleIndex(i), singleIndex(n)}, []string{"i..i + 1:1", "n..n + 1:1"}},
		// a[0..i:2] holds even indices only: i+1 is not its next one.
		{"stride two, odd next", []strideRange{{Lo: entail.Const(0), Hi: i, Stride: 2}, singleIndex(i.AddConst(1))}, []string{"0..i:2", "i + 1..i + 2:1"}},
		{"stride two, next", []strideRange{{Lo: entail.Const(0), Hi: i, Stride: 2}, singleIndex(i)}, []string{"0..i + 1:2"}},
		{"interleaved", []strideRange{{Lo: entail.Const(0), Hi: i, Stride: 2}, {Lo: entail.Const(1), Hi: i.AddConst(1), Stride: 2}}, []string{"0..i:1"}},
		{"interleaved by four", []strideRange{
			{Lo: entail.Const(0), Hi: i.Scale(4), Stride: 4}, {Lo: entail.Const(1), Hi: i.Scale(4).AddConst(1), Stride: 4},
			{Lo: entail.Const(2), Hi: i.Scale(4).AddConst(2), Stride: 4}, {Lo: entail.Const(3), Hi: i.Scale(4).AddConst(3), Stride: 4},
		}, []string{"0..4*i:1"}},
	} {
		if got := rangeStrings(coalesceRanges(c.in, syntacticOracle{even: "i"})); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: got %v, want %v", c.name, got, c.want)
		}
	}
}
