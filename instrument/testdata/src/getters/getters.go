// Package getters has functions whose one check is their only use of the
// goroutine state (named one*), which must stay inlinable, and functions
// that keep the prologue (named keep*). TestSelfFinding renders them.
package main

import "fmt"

type Point struct{ X, Y int }

type Tok struct{ raw []byte }

// oneRead is a getter.
func (p *Point) oneRead() int { return p.X }

// oneWrite is a setter.
func (p *Point) oneWrite(v int) { p.X = v }

// oneGroup reads a field group: one check.
func (p *Point) oneGroup() int { return p.X + p.Y }

// oneIndex reads an element.
func oneIndex(s []int, i int) int { return s[i] }

// oneString converts a byte slice: one range check.
func (t Tok) oneString() string { return string(t.raw) }

// keepLoop checks in a loop: the state is found once, before it.
func keepLoop(s []*Point) (n int) {
	for _, p := range s {
		n += p.X
	}
	return n
}

// keepTwo makes two checks.
func keepTwo(p, q *Point) int { return p.X + q.Y }

// keepGoto loops by goto.
func keepGoto(p *Point) int {
	n := 0
again:
	n += p.X
	if n < 10 {
		goto again
	}
	return n
}

func main() {
	p, q := &Point{1, 2}, &Point{3, 4}
	p.oneWrite(5)
	done := make(chan int)
	go func() { done <- p.oneRead() + p.oneGroup() }()
	fmt.Println(<-done, oneIndex([]int{7, 8}, 1), Tok{[]byte("tok")}.oneString())
	fmt.Println(keepLoop([]*Point{p, q}), keepTwo(p, q), keepGoto(q))
}
