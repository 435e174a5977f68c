// Package closures tests captured variables: a variable captured by a
// closure lives in a heap cell, accessed through a free variable in the
// closure and through the Alloc in the enclosing function; a variable that
// is not captured is a register and is never checked.
package closures

func counter() func() int {
	n := 0
	local := 0
	for i := 0; i < 3; i++ {
		local += i
	}
	return func() int { // want "W *local" "W *n"
		n += local
		return n // want "R *local" "W *n"
	}
}

func spawn(done chan bool) int {
	x := 0
	go func() { // want "W *done" "W *x"
		x = 1
		done <- true // want "R *done" "W *x"
	}()
	<-done   // want "R *done"
	return x // want "R *x"
}
