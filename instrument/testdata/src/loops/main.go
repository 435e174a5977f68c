// Program loops exercises the accesses whose checks slimstate and bigfoot
// defer into footprints: element accesses in loops of every shape, with
// returns, panics, closures and goroutines around them. It is race-free
// and prints the same in every mode.
package main

import (
	"errors"
	"fmt"
	"sync"
)

type particle struct {
	x, y, vx, vy float64
	id           int
}

// sum reads a slice front to back, with a result: no pop at the end.
func sum(a []int) int {
	s := 0
	for i := 0; i < len(a); i++ {
		s += a[i]
	}
	return s
}

// reverseSum reads back to front.
func reverseSum(a []int) (s int) {
	for i := len(a) - 1; i >= 0; i-- {
		s += a[i]
	}
	return // bare return with a named result
}

// evens writes every other element: a strided range.
func evens(a []int, v int) {
	for i := 0; i < len(a); i += 2 {
		a[i] = v
	}
}

// find returns from inside the loop: the pop comes before the results are
// evaluated, and the result's read is checked in place.
func find(a []int, x int) int {
	for i, v := range a {
		if v == x {
			return a[i] * 10
		}
	}
	return -1
}

// step moves particles: fields of elements, read and written.
func step(ps []particle) {
	for i := range ps {
		ps[i].x += ps[i].vx
		ps[i].y += ps[i].vy
	}
}

// mustPositive panics from inside a loop; the caller recovers.
func mustPositive(a []int) {
	for i := range a {
		if a[i] < 0 {
			panic(errors.New("negative"))
		}
		a[i]++
	}
}

func safe(a []int) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = r.(error)
		}
	}()
	mustPositive(a)
	return nil
}

// matrix walks rows and columns, breaking out with labels.
func matrix(m [][]int) int {
	total := 0
outer:
	for i := range m {
		for j := 0; j < len(m[i]); j++ {
			if m[i][j] < 0 {
				continue outer
			}
			if m[i][j] > 100 {
				break outer
			}
			total += m[i][j]
		}
	}
	return total
}

// gotoLoop loops with goto: its accesses are not in a for loop.
func gotoLoop(a []int) int {
	i, s := 0, 0
loop:
	if i < len(a) {
		s += a[i]
		i++
		goto loop
	}
	return s
}

// closures: a function literal in a loop has footprints of its own.
func closures(a []int) int {
	total := 0
	for i := range a {
		f := func() int {
			t := 0
			for j := 0; j <= i; j++ {
				t += a[j]
			}
			return t
		}
		total += f()
	}
	return total
}

// parallel fills disjoint blocks from goroutines, then reads everything
// after Wait.
func parallel(a []int, workers int) int {
	var wg sync.WaitGroup
	chunk := (len(a) + workers - 1) / workers
	for w := 0; w < workers; w++ {
		lo, hi := w*chunk, min((w+1)*chunk, len(a))
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := lo; i < hi; i++ {
				a[i] = i * i
			}
		}()
	}
	wg.Wait()
	return sum(a)
}

// locked updates a shared table under a mutex on every iteration.
func locked(table []int, n int) {
	var mu sync.Mutex
	var wg sync.WaitGroup
	for w := 0; w < 2; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < n; i++ {
				mu.Lock()
				table[i%len(table)] += 1
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
}

// arrays: an array value and a pointer to an array.
func arrays() int {
	var a [16]int
	p := &[8]int{}
	for i := range a {
		a[i] = i
	}
	for i := 0; i < len(p); i++ {
		p[i] = a[2*i]
	}
	return a[15] + p[7]
}

// noResult ends without a return: the pop goes at the end of the body.
func noResult(a []int, out *int) {
	for i := range a {
		*out += a[i]
	}
}

// csr is a sparse row whose method reads its slice through the receiver.
type csr struct {
	val []float64
	n   int
}

// rowSum reads m.val and writes m.n in every iteration. The loop assigns
// no m, so each field's footprint holds one address, checked once per
// synchronization-free stretch of the loop instead of once per iteration.
func (m *csr) rowSum(lo, hi int) float64 {
	s := 0.0
	for k := lo; k < hi; k++ {
		s += m.val[k]
		m.n++
	}
	return s
}

type node struct {
	v    int
	next *node
}

// listSum walks a list: p changes in every iteration, so p.v and p.next
// keep their in-place checks.
func listSum(p *node) int {
	s := 0
	for ; p != nil; p = p.next {
		s += p.v
	}
	return s
}

type vec struct{ x, y, z float64 }

// near counts the points of ps within r of *c. c is fixed in the loop, so
// the group c.x..c.z is one footprint holding one address; q := &ps[j]
// walks the array, so q's group is one footprint building a strided range.
func near(c *vec, ps []vec, r float64) int {
	n := 0
	for j := 1; j < len(ps); j++ {
		q := &ps[j]
		dx, dy, dz := c.x-q.x, c.y-q.y, c.z-q.z
		if dx*dx+dy*dy+dz*dz < r*r {
			n++
		}
	}
	return n
}

// stencil is sor's relaxation: up[j] and down[j] may be out of range, so
// each read stores its range's extent itself; the reads of row make one
// range, extended by the read that closes it (row[j], after row[j+1]).
// The tuple assignment's later target may panic after the first is
// written: neither gets a static range. ps changes s through a pointer:
// s[i] gets none.
func stencil(up, row, down, out []float64, s, t []int) {
	for j := 1; j < len(row)-1; j += 2 {
		out[j] = up[j] + down[j] + row[j-1] + row[j+1] + row[j]
	}
	for i := 0; i < len(t); i++ {
		s[i], t[i] = 1, 2
	}
	ps := &s
	for i := 0; i < len(s); i++ {
		s[i] = 3
		if i == 1 {
			*ps = t
		}
	}
}

func main() {
	a := make([]int, 1000)
	for i := range a {
		a[i] = i
	}
	fmt.Println("sum", sum(a), reverseSum(a))
	evens(a, 7)
	fmt.Println("evens", sum(a), find(a, 7), find(a, -3))
	ps := make([]particle, 50)
	for i := range ps {
		ps[i] = particle{vx: float64(i), vy: 1, id: i}
	}
	for k := 0; k < 3; k++ {
		step(ps)
	}
	fmt.Println("particles", ps[49].x, ps[49].y)
	b := []int{1, 2, -3, 4}
	fmt.Println("safe", safe(b), b)
	m := [][]int{{1, 2, 3}, {4, -5, 6}, {7, 8, 9}, {200, 1}}
	fmt.Println("matrix", matrix(m), gotoLoop(a[:10]), closures(a[:10]))
	fmt.Println("parallel", parallel(make([]int, 999), 3))
	table := make([]int, 7)
	locked(table, 100)
	fmt.Println("locked", sum(table))
	var out int
	noResult(a[:5], &out)
	fmt.Println("arrays", arrays(), out)
	row := &csr{val: []float64{1, 2, 3, 4}}
	list := &node{v: 1, next: &node{v: 2}}
	fmt.Println("fields", row.rowSum(1, 4), row.n, listSum(list))
	pts := []vec{{0, 0, 0}, {1, 0, 0}, {0, 2, 0}, {0, 0, 0.5}}
	fmt.Println("near", near(&pts[0], pts, 1.5))
	g := make([]float64, 9)
	stencil(g, g, g, make([]float64, 9), make([]int, 5), make([]int, 4))
	fmt.Println("stencil", g[1])
}
