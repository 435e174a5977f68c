// Program redcard exercises -mode=redcard: checks made redundant by an
// earlier check of the same location in the same basic block, with no
// release in between, are left out.
package main

import (
	"fmt"
	"sync"
)

type P struct {
	x, f int
	next *P
	arr  []int
}

var (
	mu    sync.Mutex
	total int
)

// A read-modify-write needs only the write check.
func incr(p *P) { p.x = p.x + 1 }

// Two reads of p.f with nothing in between: one check.
func twoReads(p *P) int { return p.f + p.f }

// A release between the reads: two checks.
func unlockBetween(p *P) int {
	a := p.f
	mu.Unlock()
	b := p.f
	mu.Lock()
	return a + b
}

// A write check covers later reads and writes; a read check does not cover
// a write.
func writeThenRead(p *P) int {
	p.f = 3
	a := p.f
	p.f = a + 1
	b := p.x
	p.x = b
	return p.f
}

// A write check after a read covers it only if nothing between them may
// panic: a recovered division by zero would leave the read unchecked.
func panicky(p *P, n int) {
	b := p.x
	z := 10 / n
	p.x = b + z
}

// Compound assignment and increments of one location.
func compound(p *P) {
	p.x += 2
	p.x++
	p.x -= 1
}

// A global read several times; a call that may synchronize in between.
func globals() int {
	a := total + total
	fmt.Sprint(a)
	return total + a
}

// Slices: the same index value.
func slices(p *P, i int) int {
	p.arr[i] = p.arr[i] + 1
	return p.arr[i] + p.arr[0] + p.arr[0]
}

// Loaded pointers differ: p.next.f twice is two loads of p.next (each
// checked once) and two of f through different SSA values (kept).
func chain(p *P) int { return p.next.f + p.next.f }

// Branches: a check covers the accesses of the blocks it dominates, not
// those after a merge with a path that did not check.
func branch(p *P, c bool) int {
	a := p.f
	if c {
		a += p.f
	}
	if a > 0 {
		a += p.x
	}
	return a + p.x
}

// Loops: the check before the loop covers the reads in it; a release in
// the loop keeps the reads after it; a check inside the loop covers nothing
// outside.
func loops(p *P, n int) int {
	s := p.f
	for i := 0; i < n; i++ {
		s += p.f
	}
	for i := 0; i < n; i++ {
		s += p.x
		mu.Lock()
		mu.Unlock()
	}
	return s + p.x
}

// A captured variable, read in a closure.
func captured() int {
	n := 1
	f := func() int { return n + n }
	n = 2
	return f() + n
}

func main() {
	p := &P{arr: make([]int, 4), next: &P{f: 5}}
	incr(p)
	mu.Lock()
	fmt.Println(twoReads(p), unlockBetween(p))
	mu.Unlock()
	fmt.Println(writeThenRead(p))
	compound(p)
	panicky(p, 5)
	total = 7
	fmt.Println(p.x, globals(), slices(p, 2), chain(p), branch(p, true), loops(p, 3), captured())
	var wg sync.WaitGroup
	for i := 0; i < 2; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			mu.Lock()
			incr(p)
			mu.Unlock()
		}()
	}
	wg.Wait()
	fmt.Println(p.x)
}
