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
