// Package readwrite tests [Read]/[Write] with §3.5's kinds
// (Rhodes' thesis §3.5.1): a read-modify-write needs only the
// write check; a read check is not enough for a later write; a write check
// covers later reads.
package readwrite

type C struct{ n, m int }

func rmw(c *C) {
	c.n++ // redcard "W c.n"
} // want "W c.n"

func readThenWriteLater(c *C, k int) int {
	v := c.n // redcard "R c.n"
	if k > 0 {
		c.n = v // want "W c.n" redcard "W c.n"
	}
	return v // want "R c.n"
}

func writeThenRead(c *C) int {
	c.m = 1    // redcard "W c.m"
	return c.m // want "W c.m"
}
