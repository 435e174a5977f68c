// Package fig36b renders Figure 3.6(b) (Rhodes' thesis §3.3.2–§3.3.3):
// a loop writing a[i] = b.f; one range check of a[0..i] and one check of
// b.f after the loop replace the per-iteration checks. Go tests the exit
// condition first, so b.f is checked only if the loop ran ("if 0<i").
package fig36b

type B struct{ f int }

func fig36b(a []int, b *B, n int) {
	for i := 0; i < n; i++ {
		a[i] = b.f
	}
} // want "W a[0..i]" "R b.f if 0<i"

// movePts is Figure 3.1's movePts: the reads of a[lo..hi] are checked once
// after the loop (Rhodes' thesis §3.1).
func movePts(a []*Point, lo, hi int) {
	for i := lo; i < hi; i++ { // want "W a[i].x"
		a[i].x++ // the point loaded from a[i] changes every iteration
	}
} // want "R a[lo..i]"

type Point struct{ x int }
