// Package safevars tests the static safe class (safe.go): a captured
// variable whose writes all happen before any closure capturing it is
// created, and that nothing writes afterwards, needs no check; the slice
// elements it points to keep theirs. Each variable's declaration line says
// `safe`, or `unsafe "reason"` (a substring of SafeVars.Why), and want
// comments give the BigFoot checks with the class applied.
package safevars

import "sync"

func use(int) {}

func ptr(*int) {}

// blocks is the shape of block-partitioned data-parallel code: keys is
// read by every goroutine, never written after the go statement.
func blocks(n, w int) {
	keys := make([]uint32, n) // safe
	var wg sync.WaitGroup     // unsafe "address passed to a call"
	for k := 0; k < w; k++ {
		lo, hi := k*n/w, (k+1)*n/w // safe
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := lo; i < hi; i++ {
				keys[i] = keys[i]*3 + 1
			}
		}() // want "W keys[lo..i]"
	}
	wg.Wait()
}

// writtenAfterGo: x is written after the go statement.
func writtenAfterGo() {
	x := 1 // unsafe "written after capture" want "unpub W *x"
	go func() {
		use(x)
	}() // want "R *x"
	x = 2
} // want "W *x"

// writtenInClosure: another closure writes y.
func writtenInClosure() {
	y := 1 // unsafe "written inside a closure" want "unpub W *y"
	go func() {
		use(y)
	}() // want "R *y"
	func() {
		y = 3
	}() // want "W *y"
}

// addressTaken: &z escapes to a call.
func addressTaken() {
	z := 1 // unsafe "address passed to a call" want "unpub W *z"
	go func() {
		use(z)
	}() // want "R *z"
	ptr(&z)
}

type counter struct{ n int }

func (c *counter) inc() { c.n++ } // want "W c.n"

// methodValue: c.inc binds &c, through which inc writes.
func methodValue() func() {
	var c counter // unsafe "captured by a method value"
	go func() {
		use(c.n)
	}() // want "R c.n"
	return c.inc
}

// reassignedInLoop: v is written in the loop that creates the closures.
func reassignedInLoop(n int) {
	v := 0 // unsafe "written after capture" // want "unpub W *v"
	for i := 0; i < n; i++ {
		v = i
		go func() { // want "W *v"
			use(v)
		}() // want "R *v"
	}
}

// perIteration: each iteration's i and e are new variables, written
// before their closure is created.
func perIteration(n int, s []int) {
	for i := 0; i < n; i++ { // safe
		go func() { use(i) }()
	}
	for _, e := range s { // safe
		go func() { use(e) }() // want "R s[rangeindex+1]"
	}
}

// incrementedAfterGo: the iteration's own w is written after its closure.
func incrementedAfterGo(n int) {
	for i := 0; i < n; i++ { // want "W *w"
		w := i // unsafe "written after capture"
		go func() {
			use(w)
		}() // want "R *w"
		w++
	}
}

// param: a parameter captured by a goroutine, never assigned.
func param(ch chan int) { // safe
	go func() { ch <- 1 }()
}

type pair struct{ a, b int }

// fieldsBefore: fields written before the capture, read after.
func fieldsBefore() {
	var s pair // safe
	s.a, s.b = 1, 2
	go func() { use(s.a + s.b) }()
}

// nested: read through a closure inside the closure.
func nested() {
	q := 1 // safe
	go func() {
		func() { use(q) }()
	}()
}

// nestedWrite: written through a closure inside the closure.
func nestedWrite() {
	r := 1 // unsafe "written inside a closure" want "unpub W *r"
	go func() {
		use(r)
		func() {
			r = 2
		}() // want "W *r"
	}() // want "R *r"
}

// deferredRead: the deferred closure reads d, written after the defer.
func deferredRead() {
	d := 1 // unsafe "written after capture"
	defer func() {
		use(d)
	}() // want "R *d"
	d = 2
} // want "W *d"

// seq yields 0, ..., n-1.
func seq(n int) func(func(int) bool) { // safe
	return func(yield func(int) bool) {
		for i := 0; i < n; i++ {
			if !yield(i) {
				return
			}
		}
	}
}

// rangeFunc: the body of a range-over-func loop is a closure of go/ssa's
// (synthetic, with a parent) that only reads r and one, captured by value
// by the compiler; a check's &r would make them captured by reference and
// move them to the heap when the iterator lets the body escape
// (text/template's walkRange).
func rangeFunc(r *counter, n int) { // safe
	one := func(i int) { use(i + r.n) } // safe want "R r.n"
	for v := range seq(n) {
		one(v)
	}
}

// rangeFuncWrites: the loop body writes sum.
func rangeFuncWrites(n int) int {
	sum := 0 // unsafe "written inside a closure" want "unpub W *sum"
	for v := range seq(n) {
		sum += v
	} // want "W *sum"
	return sum // want "R *sum"
}
