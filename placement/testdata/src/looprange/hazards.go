package looprange

import "runtime"

// Statements that may panic after an access: a recovered panic would leave
// the access out of a range whose extent is stored after the statement.

func tuple(s, u []int) {
	for i := 0; i < len(s); i++ {
		// s[i] is in range (the loop's condition), u[i] may not be.
		s[i], u[i] = 1, 2 // range "W s[i]: refused: may panic after the write: index out of range at line 11" "W u[i]: ok"
	}
}

func single(s, u []int) {
	for i := 0; i < len(s); i++ {
		s[i] = u[i] // range "W s[i]: ok" "R u[i]: ok"
	}
}

func readThenIndex(s, u []int, x []int) {
	for i := 0; i < len(s); i++ {
		x[0] = s[i] + u[i] // range "R s[i]: at access: index out of range at line 23" "R u[i]: at access: index out of range at line 23" "W x[0]: ok"
	}
}

func provedInRange(s []int) int {
	t := 0
	for i := 0; i+2 <= len(s); i += 2 {
		t += s[i] + s[i+1] // range "R s[i]: ok" "R s[i + 1]: ok"
	}
	return t
}

func nilMap(s []int, m map[int]int) {
	for i := 0; i < len(s); i++ {
		m[i] = s[i] // range "R s[i]: at access: nil map write at line 37"
	}
}

func nilDeref(s []int, p, q *int) {
	for i := 0; i < len(s); i++ {
		s[i] = *p  // range "W s[i]: ok"
		s[i] += *p // range "R s[i]: ok" "W s[i]: ok"
		s[i] += *q // range "R s[i]: at access: nil dereference at line 45" "W s[i]: refused: may panic after the write: nil dereference at line 45"
	}
}

func division(s []int, d int) int {
	t := 0
	for i := 0; i < len(s); i++ {
		t = s[i] / d // range "R s[i]: at access: division by zero at line 52"
		t = s[i] / 2 // range "R s[i]: ok"
	}
	return t
}

func assertion(s []any) int {
	t := 0
	for i := 0; i < len(s); i++ {
		t += s[i].(int) // range "R s[i]: at access: type assertion at line 61"
	}
	return t
}

func condition(s []int, d int) int {
	t := 0
	for i := 0; i < len(s); i++ {
		if s[i]/d > 0 { // range "R s[i]: at access: division by zero at line 69"
			t++
		}
	}
	return t
}

func mayPanic(x int) int {
	if x < 0 {
		panic("negative")
	}
	return x
}

// recovered: a caller may recover the callee's panic.
func recovered(s []int) int {
	t := 0
	for i := 0; i < len(s); i++ {
		t += s[i] + mayPanic(i) // range "R s[i]: at access: call looprange.mayPanic at line 87"
	}
	return t
}

// goexit: runtime.Goexit runs the goroutine's deferred calls, which the
// kill sets do not know: a call that may end the goroutine synchronizes.
func goexit(s []int) {
	for i := 0; i < len(s); i++ {
		s[i] = 1           // range "W s[i]: ok"
		_ = s[i] + exit(i) // range "R s[i]: refused: its statement may synchronize: call looprange.exit at line 97"
	}
}

func exit(i int) int {
	if i == 3 {
		runtime.Goexit()
	}
	return i
}

type pt struct{ x, y int }

// alias: p.x is s[i].x, written in a later statement than p's; the
// decisions on the accesses through one element address are one.
func alias(s []pt, u []int) {
	for i := 0; i < len(s); i++ {
		p := &s[i] // range "W s[i]: refused: may panic after the write: index out of range at line 116"
		p.x = 1
		p.y, u[i] = 2, 3 // range "W u[i]: ok"
	}
}
