// Package stride tests loop ranges with steps other than one: a range
// a[init..j:k] holds the indices congruent to init modulo k, so an access
// a[j+r] joins it only when r is a multiple of k.
package stride

func pairs(a []int, n int) {
	for j := 0; j+1 < n; j += 2 {
		a[j] = 1
		a[j+1] = 2
	}
} // want "W a[0..j]"

func even(a []int, n int) int {
	s := 0
	for j := 0; j < n; j += 2 {
		s += a[j]
	}
	return s // want "R a[0..j:2]"
}

// The stencil of a red-black sweep: j+1 and j-1 have the other colour.
func stencil(row []float64, start, n int) {
	for j := start; j < n-1; j += 2 {
		row[j] = row[j-1] + row[j+1]
	}
} // want "R row[start+1..j+1:2]" "R row[start-1..j-1:2]" "W row[start..j:2]"

// The same sweep over the rows of a grid, starting at 1 or 2.
func sweep(g [][]float64, lo, hi, colour int) {
	n := len(g)
	for i := lo; i < hi; i++ { // want "R g[i][t6+2..j+1:2]" "R g[i][t6..j-1:2]" "W g[i][t6+1..j:2]"
		row := g[i]
		for j := 1 + (i+colour)%2; j < n-1; j += 2 {
			row[j] = row[j-1] + row[j+1] + row[j]
		}
	}
} // want "R g[lo..i]"

// Four bytes per iteration: dst[4i..4i+3] coalesce into one range.
func words(dst []byte, src []uint32) {
	for i := 0; i < len(src); i++ {
		v := src[i]
		dst[4*i] = byte(v)
		dst[4*i+1] = byte(v >> 8)
		dst[4*i+2] = byte(v >> 16)
		dst[4*i+3] = byte(v >> 24)
	}
} // want "R src[0..i]" "W dst[0..4*i]"

// A descending loop with stride -2.
func down(a []int, n int) {
	for j := n - 1; j >= 0; j -= 2 {
		a[j] = 0
	}
} // want "W a[j+2..n+1:2]"
