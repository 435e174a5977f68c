package nilbase

// Accesses through nil constants: go/ssa gives a nil slice, map or pointer
// variable that is never assigned as a constant with no value.

func nilSlice() int {
	var s []int
	return s[0]
}

type point struct{ x, y int }

func nilPointer() int {
	var p *point
	return p.x
}
