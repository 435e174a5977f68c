package looprange

import "sync"

// Synchronization in an access's statement: the runtime checks pending
// ranges at a synchronization, and a load may run after a call of its
// statement that precedes it in the source.

var mu sync.Mutex

func locked(i int) int {
	mu.Lock()
	defer mu.Unlock()
	return i
}

func pure(i int) int { return 2 * i }

func syncInRead(s []int) int {
	t := 0
	for i := 0; i < len(s); i++ {
		t += s[i] + locked(i) // range "R s[i]: refused: its statement may synchronize: call looprange.locked at line 22"
		t += s[i] + pure(i)   // range "R s[i]: ok"
	}
	return t
}

// syncBeforeWrite: the single target of a plain assignment is written
// after its right-hand side runs; only its address counts.
func syncBeforeWrite(s []int, ch chan int) {
	for i := 0; i < len(s); i++ {
		s[i] = locked(i) // range "W s[i]: ok"
		s[i] = <-ch      // range "W s[i]: ok"
		s[i] += <-ch     // range "R s[i]: refused: its statement may synchronize: receive at line 34" "W s[i]: refused: its statement may synchronize: receive at line 34"
	}
}

func syncInTarget(s [][]int) {
	for i := 0; i < len(s); i++ {
		s[i][locked(0)] = 1 // range "R s[i]: refused: its statement may synchronize: call looprange.locked at line 40" "W s[i][locked(0)]: refused: its operand may change in a call at line 40"
	}
}

func syncInCondition(s []int, ch chan bool) int {
	t := 0
	for i := 0; i < len(s); i++ {
		if s[i] > 0 && <-ch { // range "R s[i]: refused: its statement may synchronize: receive at line 47"
			t++
		}
	}
	return t
}

// recoveredHere: the function itself recovers the panic of a division
// after the read.
func recoveredHere(s []int, d int) (t int) {
	defer func() { recover() }()
	for i := 0; i < len(s); i++ {
		t += s[i] / d // range "R s[i]: at access: division by zero at line 59"
	}
	return t
}
