// Package switches tests expression and type switches.
package switches

type T struct{ a, b, c int }

func expr(t *T, k int) {
	switch k {
	case 0:
		t.a = 1 // want "W t.a"
	case 1:
		t.b = 1 // want "W t.b"
	default:
		t.a = 2 // want "W t.a"
	}
	t.c = 3
} // want "W t.c"

func typ(t *T, x any) int {
	switch v := x.(type) {
	case int:
		return v + t.a // want "R t.a"
	case string:
		return len(v) + t.a // want "R t.a"
	}
	return t.a // want "R t.a"
}
