// Package panics tests explicit panics: pending accesses are checked
// before a panic statement (a recovered panic would otherwise lose them).
package panics

type T struct{ n int }

func mustPositive(t *T) int {
	if t.n < 0 {
		panic("negative") // want "R t.n"
	}
	t.n--
	return t.n // want "W t.n"
}
