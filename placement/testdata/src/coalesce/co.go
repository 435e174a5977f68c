// Package coalesce tests §3.4 coalescing (Rhodes' thesis §3.4):
// fields of one designator become one field group; adjacent elements become
// one strided range.
package coalesce

type V struct{ x, y, z, w int }

func group(v *V) int {
	return v.x + v.y + v.z // want "R v.x,v.y,v.z" redcard "R v.x" "R v.y" "R v.z"
}

func unrolled(a []int, i int) {
	a[i] = 0   // redcard "W a[i]"
	a[i+1] = 0 // redcard "W a[i+1]"
	a[i+2] = 0 // redcard "W a[i+2]"
} // want "W a[i..i+3]"

func strided(a []int, i int) {
	a[i] = 0   // redcard "W a[i]"
	a[i+2] = 0 // redcard "W a[i+2]"
	a[i+4] = 0 // redcard "W a[i+4]"
} // want "W a[i..i+5:2]"
