// Package fig36a renders Figure 3.6(a) (Rhodes' thesis §3.3.1,
// 778): b.g is read only in the then branch, so it is checked at the end of
// that branch; b.f is read in the else branch and after the if, so its
// check is deferred to after the merge.
package fig36a

type B struct{ f, g int }

func fig36a(b *B, i int) int {
	var y int
	if i < 0 {
		y = b.g // want "R b.g"
	} else {
		y = b.f
	}
	z := b.f
	return y + z // want "R b.f"
}
