package bench

import (
	"math"
	"slices"
)

// Median returns the median of xs (the mean of the middle two for an even
// count), or NaN if xs is empty. It does not modify xs.
func Median(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	m := len(s) / 2
	if len(s)%2 == 1 {
		return s[m]
	}
	return (s[m-1] + s[m]) / 2
}

// Mean returns the arithmetic mean of the numbers in xs that are not NaN,
// or NaN if there are none.
func Mean(xs []float64) float64 {
	sum, n := 0.0, 0
	for _, x := range xs {
		if !math.IsNaN(x) {
			sum += x
			n++
		}
	}
	if n == 0 {
		return math.NaN()
	}
	return sum / float64(n)
}

// Overhead returns the additional time a checker needs beyond the base
// time, relative to it: (t - base) / base, as in the paper (an overhead of
// 4.2 means the checked program takes 5.2 times as long). It returns NaN
// unless base is positive and t is a number.
func Overhead(t, base float64) float64 {
	if !(base > 0) || math.IsNaN(t) {
		return math.NaN()
	}
	return (t - base) / base
}

// GeoMeanFloor is the least value GeoMean counts: an overhead measured as
// zero or negative (the checker within noise of the base) would make the
// geometric mean zero or undefined, so such values count as GeoMeanFloor,
// the smallest overhead the paper's Table 3.1 reports.
const GeoMeanFloor = 0.01

// GeoMean returns the geometric mean of the numbers in xs that are not NaN,
// counting values below GeoMeanFloor as GeoMeanFloor, or NaN if there are
// none.
func GeoMean(xs []float64) float64 {
	sum, n := 0.0, 0
	for _, x := range xs {
		if math.IsNaN(x) {
			continue
		}
		sum += math.Log(max(x, GeoMeanFloor))
		n++
	}
	if n == 0 {
		return math.NaN()
	}
	return math.Exp(sum / float64(n))
}
