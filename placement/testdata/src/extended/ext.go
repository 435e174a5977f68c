// Package extended tests extended paths (Rhodes' thesis §3.5): a
// slice reached through a field, loaded anew in every iteration, is named
// by the path d.buf rather than by the loaded SSA value, so the accesses of
// all iterations coalesce into one range check after the loop. A store to
// the field, or a call that may make one, ends the designator's validity.
package extended

type D struct {
	buf []byte
	n   int
}

func fill(d *D, k int) {
	for i := 0; i < k; i++ {
		d.buf[i] = 0
	}
} // want "R d.buf if 0<i" "W d.buf[0..i]"

func grow(d *D, other []byte) {
	d.buf[0] = 1
	d.buf = other // want "W d.buf[0]"
	d.buf[0] = 2
} // want "W d.buf" "W d.buf[0]"

func callInBetween(d *D, f func()) {
	d.buf[0] = 1
	f() // want "R d.buf" "W d.buf[0]"
	d.buf[1] = 1
} // want "R d.buf" "W d.buf[1]"
