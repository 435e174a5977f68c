// Package closures tests captured variables: a variable captured by a
// closure lives in a heap cell, accessed through a free variable in the
// closure and through the Alloc in the enclosing function; a variable that
// is not captured is a register and is never checked. A captured variable
// written only before the closures that capture it are created (local, and
// the parameter done) is in the static safe class (safe.go, package
// safevars): BigFoot does not check it, RedCard does.
package closures

func counter() func() int {
	n := 0     // redcard "W *n" want "unpub W *n"
	local := 0 // redcard "W *local"
	for i := 0; i < 3; i++ {
		local += i
	}
	return func() int {
		n += local // redcard "W *n" "R *local"
		return n   // want "W *n"
	}
}

func spawn(done chan bool) int {
	x := 0 // redcard "W *done" "W *x" want "unpub W *x"
	go func() {
		x = 1        // redcard "W *x"
		done <- true // want "W *x" redcard "R *done"
	}()
	<-done   // redcard "R *done"
	return x // want "R *x" redcard "R *x"
}
