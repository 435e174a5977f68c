// Package rangemerge holds the cases of TestRangeMerges: which static
// ranges of a loop placement merges into one range. Each merge is stated
// at the line of its first member by a `// merge "K members: step S;
// after …; loads …"` comment; a line with a merge and no comment fails.
package rangemerge

// window reads three neighbours in one statement: one range of step 1.
func window(src []int) int {
	s := 0
	for i := 1; i < len(src)-1; i++ {
		s += src[i-1] + src[i] + src[i+1] // merge "R src[i-1] src[i] src[i+1]: step 1; after src[i+1]"
	}
	return s
}

// unpack writes four bytes per iteration in successive statements from
// the range's growing end: one range of step 1 (crypt's shape).
func unpack(dst []byte, v []uint32) {
	for i := 0; i < len(v); i++ {
		dst[4*i] = byte(v[i]) // merge "W dst[4*i] dst[4*i+1] dst[4*i+2] dst[4*i+3]: step 1; after dst[4*i] dst[4*i+1] dst[4*i+2] dst[4*i+3]"
		dst[4*i+1] = byte(v[i] >> 8)
		dst[4*i+2] = byte(v[i] >> 16)
		dst[4*i+3] = byte(v[i] >> 24)
	}
}

// backwards writes the high byte first: after the first statement the
// elements written are not contiguous from the range's start. No merge.
func backwards(dst []byte, v []uint16) {
	for i := 0; i < len(v); i++ {
		dst[2*i+1] = byte(v[i] >> 8)
		dst[2*i] = byte(v[i])
	}
}

// hole reads a[i] and a[i+2]: a[i+1] is never read. No merge.
func hole(a []int) int {
	s := 0
	for i := 0; i+2 < len(a); i++ {
		s += a[i] + a[i+2]
	}
	return s
}

// sparse reads two of every four elements: fewer δs than the step. No
// merge.
func sparse(a []int) int {
	s := 0
	for i := 0; i+1 < len(a); i += 4 {
		s += a[i] + a[i+1]
	}
	return s
}

// down runs downwards: the range grows from its high end.
func down(a []int) int {
	s := 0
	for i := len(a) - 1; i > 0; i-- {
		s += a[i] - a[i-1] // merge "R a[i] a[i-1]: step -1; after a[i-1]"
	}
	return s
}

// kinds keeps reads and writes apart, and one field's range apart from
// another's.
type pt struct{ x, y int }

func kinds(ps []pt) {
	for i := 0; i+1 < len(ps); i++ {
		ps[i].x = ps[i+1].x + ps[i].x // merge "R ps[i+1].x ps[i].x: step 1; after ps[i+1].x"
		ps[i].y = ps[i+1].y           // no merge: the write's δs are one
	}
}

// stencil is sor's relaxation: up[j] and down[j] may be out of range, so
// each read stores its range's extent itself; the reads of row make one
// range: row[j+1] leaves a gap that row[j] closes, and the hazards of the
// statement (the bounds checks of up[j] and down[j]) run before the gap
// opens, inside reads that store their own extents.
func stencil(up, row, down, out []float64) {
	for j := 1; j < len(row)-1; j += 2 {
		out[j] = up[j] + down[j] + row[j-1] + row[j+1] + row[j] // merge "R row[j-1] row[j+1] row[j]: step 1; after row[j+1]; loads row[j-1]>row[j-1] row[j+1]>row[j-1] row[j]>row[j+1]; before up[j] down[j]"
	}
}

// gap calls at, which may panic, between the read that opens a gap and
// the one that closes it: row[j+1] would be lost. No merge.
func gap(row, w []float64) float64 {
	s := 0.0
	for j := 1; j < len(row)-1; j += 2 {
		s += row[j-1] + row[j+1] + at(w, j) + row[j]
	}
	return s
}

func at(w []float64, j int) float64 { return w[j] }
