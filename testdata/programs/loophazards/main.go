// Loophazards runs loops whose statements may panic after an access (an
// index, a nil map, a division, a call that panics or ends the goroutine)
// or synchronize, a loop whose index moves with two induction variables,
// and one whose slice changes through a pointer, while other goroutines
// use the elements those loops never reach, without synchronizing with
// them: race-free, as go run -race finds. Bigfoot mode must check exactly
// the elements each loop accessed, however the loop ends: built with the
// tag bigfoot_verify, every access must be covered and every check
// legitimate (cmd/bigfoot TestVerifyLoopExits).
package main

import (
	"fmt"
	"runtime"
	"sync"
)

func mayPanic(i, at int) int {
	if i == at {
		panic(fmt.Sprint("bad element ", i))
	}
	return i
}

// writeThenPanic writes s[i] and then u[i], which is out of range from
// len(u) on: s[len(u)] is written, s[len(u)+1:] never is.
func writeThenPanic(s, u []int) {
	for i := 0; i < len(s); i++ {
		s[i], u[i] = i, -i
	}
}

// readThenPanic reads s[i] and then u[i] in one expression: s[len(u)] is
// read before the panic.
func readThenPanic(s, u []int) (n int) {
	for i := 0; i < len(s); i++ {
		n += s[i] + u[i]
	}
	return n
}

// panicBeforeWrite panics at i = at before writing s[at].
func panicBeforeWrite(s []int, at int) {
	for i := 0; i < len(s); i++ {
		s[i] = mayPanic(i, at)
	}
}

// nilMapAfterRead reads s[i] and then writes a nil map.
func nilMapAfterRead(s []int, m map[int]int, at int) {
	for i := 0; i < len(s); i++ {
		if i == at {
			m = nil
		}
		m[i] = s[i]
	}
}

// divideAfterRead reads s[i] in a condition that divides by zero at d[i] = 0.
func divideAfterRead(s, d []int) (n int) {
	for i := 0; i < len(s); i++ {
		if s[i]/d[i] > 0 {
			n++
		}
	}
	return n
}

// exitAfterRead reads s[i] and then ends its goroutine at i = at.
func exitAfterRead(s []int, at int) (n int) {
	for i := 0; i < len(s); i++ {
		n += s[i] + exitAt(i, at)
	}
	return n
}

func exitAt(i, at int) int {
	if i == at {
		runtime.Goexit()
	}
	return 0
}

// panicAt panics at i = at, without synchronizing.
func panicAt(i, at int) int {
	if i == at {
		panic("bad element")
	}
	return i
}

// callPanicsAfterRead reads s[i] and then calls a function that panics at
// i = at and does not synchronize: s[at] is read before the panic.
func callPanicsAfterRead(s []int, at int) (n int) {
	for i := 0; i < len(s); i++ {
		n += s[i] + panicAt(i, at)
	}
	return n
}

var mu sync.Mutex

func locked(i int) int {
	mu.Lock()
	defer mu.Unlock()
	return i
}

// lockAfterRead reads s[i] in a statement that locks a mutex, and writes
// s[i] after a right-hand side that locks it, for i < stop.
func lockAfterRead(s []int, stop int) (n int) {
	for i := 0; i < stop; i++ {
		n += s[i] + locked(i)
		s[i] = locked(i)
	}
	return n
}

// evens writes s[0], s[2], s[4], …: its index i+j moves by two elements
// per iteration, j being a second induction variable, so a range of step
// one would hold the elements in between, which another goroutine writes.
func evens(s []int) {
	j := 0
	for i := 0; i < len(s)/2; i++ {
		s[i+j] = 1
		j++
	}
}

// stencil reads up[j], down[j] and row[j-1], row[j+1], row[j] in one
// statement, as sor's relaxation does (the reads of row make one range,
// which each iteration's reads extend in turn); down is shorter, so at j
// = len(down) the statement panics after reading up[j].
func stencil(up, row, down, out []float64) {
	for j := 1; j < len(row)-1; j += 2 {
		out[j] = up[j] + down[j] + row[j-1] + row[j+1] + row[j]
	}
}

// switchHalfWay writes s[0..3], then, s having changed through a pointer,
// t[4..].
func switchHalfWay(s, t []int) {
	ps := &s
	for i := 0; i < len(s); i++ {
		s[i] = 7
		if i == 3 {
			*ps = t
		}
	}
}

// recovered runs f, recovering a panic.
func recovered(f func()) (msg string) {
	defer func() { msg = fmt.Sprint(recover()) }()
	f()
	return ""
}

// race runs loop in one goroutine and other in another, with no
// synchronization between them, and waits for both.
func race(loop, other func()) {
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); loop() }()
	go func() { defer wg.Done(); other() }()
	wg.Wait()
}

func main() {
	s, u := make([]int, 10), make([]int, 5)
	race(func() { fmt.Println(recovered(func() { writeThenPanic(s, u) })) },
		func() { s[6], s[9] = 60, 90 })
	// Not s[5]: the other modes check each target's address before
	// assigning any, so there the panic comes before s[5] is written.
	fmt.Println(s[:5], s[6:])

	r, v := []int{1, 2, 3, 4, 5, 6, 7, 8}, make([]int, 4)
	race(func() { fmt.Println(recovered(func() { readThenPanic(r, v) })) },
		func() { r[5], r[7] = 50, 70 })
	fmt.Println(r)

	w := make([]int, 8)
	race(func() { fmt.Println(recovered(func() { panicBeforeWrite(w, 4) })) },
		func() { w[4], w[6] = 40, 60 })
	fmt.Println(w)

	m := map[int]int{}
	x := []int{1, 2, 3, 4, 5, 6}
	race(func() { fmt.Println(recovered(func() { nilMapAfterRead(x, m, 3) })) },
		func() { x[4], x[5] = 40, 50 })
	fmt.Println(x, len(m))

	y, d := []int{9, 8, 7, 6, 5}, []int{1, 1, 0, 1, 1}
	race(func() { fmt.Println(recovered(func() { divideAfterRead(y, d) })) },
		func() { y[3], y[4] = 30, 40 })
	fmt.Println(y)

	z := []int{1, 2, 3, 4, 5, 6}
	race(func() {
		done := make(chan bool)
		go func() { defer close(done); exitAfterRead(z, 2) }()
		<-done
	}, func() { z[3], z[5] = 30, 50 })
	fmt.Println(z)

	up, row, down, out := make([]float64, 12), make([]float64, 12), make([]float64, 5), make([]float64, 12)
	race(func() { fmt.Println(recovered(func() { stencil(up, row, down, out) })) },
		func() { up[7], row[6], row[8] = 1, 2, 3 })
	fmt.Println(up, row, out)

	c := []int{1, 2, 3, 4, 5, 6, 7, 8}
	race(func() { fmt.Println(recovered(func() { callPanicsAfterRead(c, 3) })) },
		func() { c[5], c[7] = 50, 70 })
	fmt.Println(c)

	l := []int{1, 2, 3, 4, 5, 6, 7, 8}
	race(func() { fmt.Println(lockAfterRead(l, 4)) }, func() { l[5], l[7] = 50, 70 })
	fmt.Println(l)

	e := make([]int, 8)
	race(func() { evens(e) }, func() { e[1], e[3] = 10, 30 })
	fmt.Println(e)

	a, b := make([]int, 10), make([]int, 10)
	race(func() { switchHalfWay(a, b) }, func() { a[5], a[9] = 50, 90; b[0], b[2] = 1, 3 })
	fmt.Println(a, b)
}
