// Package ifrule tests [If] (Rhodes' thesis §3.3.3): accesses on
// one branch only are checked at that branch's end; accesses on both
// branches are checked once after the merge; boolean facts from the branch
// condition decide range entailment.
package ifrule

type S struct{ x, y int }

func both(s *S, c bool) {
	if c {
		s.x = 1
	} else {
		s.x = 2
	}
} // want "W s.x"

func oneSide(s *S, c bool) int {
	if c {
		s.y = 1 // want "W s.y"
	}
	return s.x // want "R s.x"
}

// i < n holds in the then branch; the range a[0..n] checked after the
// merge covers a[i] there only if the merge keeps it: it does not (a[i] is
// not accessed on the else path), so a[i] is checked in the branch.
func guarded(a []int, i, n int) {
	if i < n {
		a[i] = 0 // want "W a[i]"
	}
}
