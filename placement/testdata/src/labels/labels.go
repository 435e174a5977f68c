// Package labels tests labeled break and continue and goto: they only
// change the CFG, which the analysis works on. In labeled, both loops are
// bounded (the inner bound len(a[i]) is reloaded in its header but nothing
// in the loop can change a[i]); nothing is checked per inner iteration: the
// inner loop's accesses are checked once per outer iteration (at i++ and on
// the continue edge, which adds only this iteration's a[i][j]), the outer
// loop's a[0..i] at the return, and the break edge adds what is pending
// from the current iterations.
package labels

func labeled(a [][]int, t *T) {
outer:
	for i := 0; i < len(a); i++ { // want "R a[i][0..j]" "R a[i][j]" "W t.n if 0<j"
		for j := 0; j < len(a[i]); j++ {
			if a[i][j] < 0 {
				continue outer
			}
			if a[i][j] == 0 {
				break outer
			}
			t.n++
		}
	}
} // want "R a[0..i]" "R a[i]" "R a[i][0..j+1]" "W t.n if 0<j"

type T struct{ n int }

func gotos(t *T, n int) {
	i := 0
loop:
	if i < n {
		t.n += i
		i++
		goto loop
	}
} // want "W t.n if 0<i"

// An irreducible cycle (a goto into a loop body): the analysis gives up on
// the function and the plan falls back to per-access checks.
func irreducible(t *T, n int) { // want "fallback irreducible control flow"
	i := 0
	if n > 10 {
		goto inside
	}
top:
	t.n++
inside:
	i++
	if i < n {
		goto top
	}
}
