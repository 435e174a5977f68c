// Package facts holds functions and types for the emission facts
// (emit.go): which callees a field group may span, and which fields are
// laid out without padding.
package facts

import "math"

type T struct{ x, y, z int }

// padded: b follows a after 7 bytes of padding; c, d are adjacent.
type padded struct {
	a    bool
	b    int64
	c, d int32
	e    struct{}
	f    int8
}

func pure(a, b int) int { return a*b + 1 }
func loops(n int) int {
	s := 0
	for i := 0; i < n; i++ {
		s += i
	}
	return s
}
func divides(a, b int) int { return a / b }
func byConst(a int) int    { return a/3 + a%7 + a<<2 }
func rec(n int) int {
	if n == 0 {
		return 0
	}
	return rec(n - 1)
}
func calls(a int) int        { return pure(a, a) }
func deref(p *T) int         { return p.x + p.y }
func iface(e error) string   { return e.Error() }
func sqrt(f float64) float64 { return math.Sqrt(f) }
func index(xs []int) int     { return xs[2] }
func arr(xs *[4]int) int     { return len(xs) }
func panics(s string)        { panic(s) }
func branches(a int) int {
	if a > 0 {
		return pure(a, 1)
	}
	return -a
}
