// Package unpublished holds the golden cases of Unpublished: every load
// and store on a line marked `// unpub` is an access to an object not yet
// published; none on a line marked `// pub` is.
package unpublished

import (
	"sync"
	"unsafe"
)

type step struct {
	price  float64
	index  int
	parent *step
}

type path struct {
	steps  []*step
	payoff float64
}

// simulate builds fresh steps linked through prev and appended to
// p.steps, and publishes them only by returning p.
func simulate(n int) *path {
	p := &path{steps: make([]*step, 0, n)}
	prev := &step{price: 100}
	for i := 0; i < n; i++ {
		s := &step{price: prev.price * 1.01, index: i, parent: prev} // unpub
		p.steps = append(p.steps, s)                                 // unpub
		prev = s
	}
	avg := 0.0
	for _, s := range p.steps { // unpub
		avg += s.price // unpub
	}
	p.payoff = avg // unpub
	return p
}

var sink *step

// stored publishes s in the loop: the loop's later accesses are after
// the publication (through the back edge).
func stored(n int) float64 {
	t := 0.0
	for i := 0; i < n; i++ {
		s := &step{price: float64(i)}
		t += s.price // pub
		sink = s
	}
	return t
}

// called passes s to a function before the access.
func called(n int) float64 {
	s := &step{price: 1}
	use(s)
	return s.price // pub
}

func use(s *step) { sink = s }

// beforeCall accesses s before passing it on.
func beforeCall() float64 {
	s := &step{price: 1}
	s.index = 2  // unpub
	v := s.price // unpub
	use(s)
	return v
}

// foreign stores a pointer from outside into the fresh object: s itself
// is still unpublished, but what is loaded from it may be shared (its
// component is open).
func foreign(q *step) float64 {
	s := &step{parent: q}
	s.price = 3    // unpub
	p := s.parent  // unpub
	return p.price // pub
}

var mu sync.Mutex

// goroutine captures s in a closure.
func goroutine() float64 {
	s := &step{price: 1}
	go func() {
		mu.Lock()
		s.price = 2
		mu.Unlock()
	}()
	return s.price // pub
}

// separate: publishing one object does not publish another component.
func separate() float64 {
	a := &step{price: 1}
	b := &step{price: 2}
	use(a)
	return b.price // unpub
}

// merged: a pointer to b stored in a joins their components.
func merged() float64 {
	a := &step{price: 1}
	b := &step{price: 2}
	a.parent = b // unpub
	use(a)
	return b.price // pub
}

// touch only accesses s's fields: a call of it does not publish s.
func touch(s *step) { s.index++ }

// keep stores s where another goroutine may read it.
func keep(s *step) { sink = s }

// setParent stores a pointer into s: its caller's object would hold a
// foreign pointer.
func setParent(s, q *step) { s.parent = q }

// touched: after touch(s), s is still unpublished.
func touched() float64 {
	s := &step{price: 1}
	touch(s)
	return s.price // unpub
}

// kept: after keep(s), it is published.
func kept() float64 {
	s := &step{price: 1}
	keep(s)
	return s.price // pub
}

// parented: setParent publishes (its parameter stores a pointer).
func parented(q *step) float64 {
	s := &step{price: 1}
	setParent(s, q)
	return s.price // pub
}

// leakParent publishes what its parameter points to.
func leakParent(s *step) { sink = s.parent }

// leaked: after leakParent(s), s's component (its parent too) is
// published.
func leaked() float64 {
	p := &step{price: 1}
	s := &step{parent: p}
	leakParent(s)
	return p.price // pub
}

// float64bits reads its parameter's memory through unsafe.Pointer, as
// math.Float64bits does: a conversion between a pointer and
// unsafe.Pointer keeps the address in f's component.
func float64bits(f float64) uint64 {
	return *(*uint64)(unsafe.Pointer(&f)) // unpub
}

var sinkPtr unsafe.Pointer

// convertedStored publishes f's address as an unsafe.Pointer first.
func convertedStored(f float64) uint64 {
	sinkPtr = unsafe.Pointer(&f)
	return *(*uint64)(unsafe.Pointer(&f)) // pub
}

// throughUintptr goes through uintptr, whose arithmetic may yield any
// address: the load is not known to be f's.
func throughUintptr(f float64) uint64 {
	return *(*uint64)(unsafe.Pointer(uintptr(unsafe.Pointer(&f)))) // pub
}
