// Package nonlinear tests products of variables in indices: the row
// offset i*n of a flattened 2-D array, which go/ssa computes inside the
// loop over j, is recomputable at the loop's exit, and a query that
// needs the product's meaning goes to Z3.
package nonlinear

// rowSum reads row i of an n-column matrix: one range check at the exit.
func rowSum(a []float64, i, n int) float64 {
	s := 0.0
	for j := 0; j < n; j++ {
		s += a[i*n+j]
	}
	return s // want "R a[i*n..j+i*n]"
}

// rowFill writes row i, the operands of the product swapped.
func rowFill(a []float64, i, n int, v float64) {
	for j := 0; j < n; j++ {
		a[n*i+j] = v
	}
} // want "W a[n*i..j+n*i]"

// sameCell writes a[i*n] and, when i is 2, a[2*n]: the same element,
// which only nonlinear reasoning (Z3) proves.
func sameCell(a []int, i, n int) {
	a[i*n] = 1
	if i == 2 {
		a[2*n] = 2
	}
} // want "W a[i*n]"

// stencil reads rows i-1, i and i+1 and writes row i: one range per
// access at the exit; (i-1)*n is an opaque atom, recomputable at the
// exit, and no query reaches Z3 (no equality pins a factor).
func stencil(a, b []float64, i, n int) {
	for j := 1; j < n-1; j++ {
		b[i*n+j] = a[(i-1)*n+j] + a[(i+1)*n+j] + a[i*n+j-1] + a[i*n+j+1]
	}
} // want "R a[(i+1)*n+1..j+(i+1)*n]" "R a[(i-1)*n+1..j+(i-1)*n]" "R a[i*n+2..j+i*n+1]" "R a[i*n..j+i*n-1]" "W b[i*n+1..j+i*n]"
