package placement

// Coalescing, the post-analysis steps of BigFoot's §3.4 (Rhodes,
// Flanagan, Freund, "BigFoot: Static Check Placement for Dynamic Race
// Detection", PLDI 2017; Rhodes' 2019 thesis, §3.4): the paths of one
// check site whose designators are equal merge into one coalesced field
// path d.f1/f2/…/fn or one strided array range d[b..e:k] (coalesceRanges).

import "github.com/bigfoot-go/bigfoot/placement/entail"

// A strideRange is the strided range Lo..Hi:Stride, the indices
// {Lo + i·Stride : Lo ≤ Lo + i·Stride < Hi} (Rhodes' thesis §3.3.1).
type strideRange struct {
	Lo, Hi entail.Term
	Stride int64
}

// Single reports whether r selects exactly the index Lo.
func (r strideRange) Single() bool { return r.Stride == 1 && r.Hi.Equal(r.Lo.AddConst(1)) }

// An indexOracle decides relations between index terms under the history of
// one check site.
type indexOracle interface {
	// Equal reports whether a = b.
	Equal(a, b entail.Term) bool
	// Congruent reports whether a ≡ b (mod k) on every execution.
	Congruent(a, b entail.Term, k int64) bool
}

// coalesceRanges coalesces strided ranges of one array into as few ranges as it
// can, each selecting exactly the union of the ranges it replaces. Like the
// thesis's implementation it tries combinations of the given bounds and
// strides rather than solving the constraints in general
// (Rhodes' thesis §3.4): two ranges merge when they have the same
// stride and one starts where the other ends, when two single indices
// differ by a constant, which becomes the stride, when a single index is
// the next (or previous) index of a range and congruent to its start, or
// when two ranges of stride 2k are one shifted by k and their length is a
// multiple of 2k (a[lo..hi:2] and a[lo+1..hi+1:2] become a[lo..hi]). A
// range contained in another is dropped. The result is deterministic for a
// given input order.
func coalesceRanges(rs []strideRange, o indexOracle) []strideRange {
	out := append([]strideRange(nil), rs...)
	for changed := true; changed; {
		changed = false
	loop:
		for i := 0; i < len(out); i++ {
			for j := 0; j < len(out); j++ {
				if i == j {
					continue
				}
				if m, ok := mergeRanges(out[i], out[j], o); ok {
					out[i] = m
					out = append(out[:j], out[j+1:]...)
					changed = true
					break loop
				}
			}
		}
	}
	return out
}

func mergeRanges(a, b strideRange, o indexOracle) (strideRange, bool) {
	// Equal ranges.
	if a.Stride == b.Stride && o.Equal(a.Lo, b.Lo) && o.Equal(a.Hi, b.Hi) {
		return a, true
	}
	sa, sb := stride(a), stride(b)
	// Two singletons at a constant distance d: lo..hi+1:d.
	if a.Single() && b.Single() {
		d := b.Lo.Sub(a.Lo)
		if d.IsConst() && d.Const > 0 {
			return strideRange{Lo: a.Lo, Hi: b.Lo.AddConst(1), Stride: d.Const}, true
		}
		return strideRange{}, false
	}
	// A singleton extends a range at either end.
	if b.Single() && !a.Single() {
		if sa > 1 && !o.Congruent(b.Lo, a.Lo, sa) {
			return strideRange{}, false
		}
		if o.Equal(a.Hi, b.Lo) || sa > 1 && o.Equal(a.Hi.AddConst(sa-1), b.Lo) {
			return strideRange{Lo: a.Lo, Hi: b.Lo.AddConst(1), Stride: sa}, true
		}
		if o.Equal(a.Lo.AddConst(-sa), b.Lo) {
			return strideRange{Lo: b.Lo, Hi: a.Hi, Stride: sa}, true
		}
		return strideRange{}, false
	}
	// Adjacent ranges of stride 1.
	if sa == 1 && sb == 1 {
		if o.Equal(a.Hi, b.Lo) {
			return strideRange{Lo: a.Lo, Hi: b.Hi, Stride: 1}, true
		}
		return strideRange{}, false
	}
	// Interleaved ranges: b is a shifted by half their stride.
	if sa == sb && sa%2 == 0 && !b.Single() {
		half := sa / 2
		dl, dh := b.Lo.Sub(a.Lo), b.Hi.Sub(a.Hi)
		if dl.IsConst() && dl.Const == half && dh.IsConst() && dh.Const == half && o.Congruent(a.Hi, a.Lo, sa) {
			return strideRange{Lo: a.Lo, Hi: a.Hi, Stride: half}, true
		}
	}
	return strideRange{}, false
}

func stride(r strideRange) int64 {
	if r.Single() {
		return 1
	}
	return r.Stride
}
