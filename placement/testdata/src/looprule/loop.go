// Package looprule tests [Loop] (Rhodes' thesis §3.3.3): strided
// ranges from induction variables with constant steps, counting down, two
// arrays, and a loop whose index is not an induction variable.
package looprule

func stride2(a []int, n int) {
	for i := 0; i < n; i += 2 {
		a[i] = 1
	}
} // want "W a[0..i:2]"

func down(a []int, n int) {
	for i := n - 1; i >= 0; i-- {
		a[i] = a[i] + 1
	}
} // want "W a[i+1..n]"

func copyLoop(dst, src []int) {
	for i := range src {
		dst[i] = src[i]
	}
} // want "R src[0..rangeindex+1]" "W dst[0..rangeindex+1]"

func offset(a []int, n int) {
	for i := 0; i < n; i++ {
		a[i+1] = 0
	}
} // want "W a[1..i+1]"

// The index is loaded, not an induction variable: per-iteration checks.
func indirect(a []int, idx []int) {
	for i := 0; i < len(idx); i++ { // want "W a[idx[i]]"
		a[idx[i]] = 0 // checked at the end of the iteration
	}
} // want "R idx[0..i]"
