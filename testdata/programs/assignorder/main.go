// Assignments whose right-hand side or later target panics, the panic
// recovered. Go evaluates the right-hand side, then carries out the stores
// left to right (the Go spec, "Assignment statements"): a store that never
// happens must not be checked (another goroutine reads each target
// without synchronizing, which is no race because nothing is written), and
// a tuple assignment stores its first targets before a later one panics.
package main

import (
	"fmt"
	"sync"
)

type point struct{ x, y int }

var (
	shared int
	sum    int
	pt     = &point{}
	m      = map[string]int{"k": 0}
	mu     sync.Mutex
	table  = []int{1, 2, 3}
	idx    = 3 // out of range for table
)

// try runs f, recovering its panic, and prints what it was.
func try(name string, f func()) {
	defer func() { fmt.Println(name, "recovered:", recover()) }()
	f()
}

// locked synchronizes, then reads table[i].
func locked(i int) int {
	mu.Lock()
	defer mu.Unlock()
	return table[i]
}

// two returns two values.
func two() (int, int) { return 40, 50 }

// reads reads every target the main goroutine fails to write.
func reads(done chan<- int) {
	done <- shared + sum + pt.x + pt.y + m["k"]
}

func main() {
	done := make(chan int)
	go reads(done)
	try("plain", func() { shared = table[idx] })
	try("compound", func() { sum += table[idx] })
	try("field", func() { pt.x = table[idx] })
	try("map", func() { m["k"] = table[idx] })
	try("divide", func() { pt.y = len(table) / (idx - 3) })
	try("synchronizing", func() { shared = locked(idx) })
	fmt.Println("read", <-done)

	a, b := make([]int, 2), make([]int, 1)
	i, j := 1, 1 // j is out of range for b
	try("tuple", func() { a[i], b[j] = 5, 6 })
	fmt.Println("a", a, "b", b)

	var p *point
	x := 0
	try("tuple nil", func() { x, a[0], p.x = 7, 8, 9 })
	fmt.Println("x", x, "a", a)

	var nilMap map[string]int
	try("tuple map", func() { a[0], nilMap["k"] = a[1]+1, 2 })
	fmt.Println("a", a)

	k := 0
	try("tuple order", func() { k, a[k], b[k+1] = 1, 20, 30 })
	fmt.Println("k", k, "a", a, "b", b)

	try("tuple index", func() { a[0], b[0] = table[0], table[idx] })
	fmt.Println("a", a, "b", b)

	try("tuple call", func() { a[0], b[j] = two() })
	fmt.Println("a", a, "b", b)

	flags, none := make([]bool, 1), []bool{}
	try("tuple comparison", func() { flags[0], none[k] = i == 1, j == 1 })
	fmt.Println("flags", flags)

	s := []int{1, 2}
	s[0], s[1] = s[1], s[0]
	fmt.Println("swap", s)
}
