// Package main (directory safeglobals) tests the package-level variables
// of the static safe class (safe.go): unexported, stored only by the
// initializers, init functions and main, each store before anything that
// may start a goroutine running the package's code, and read-only
// afterwards. Annotations as in package safevars.
package main

import (
	"flag"
	"fmt"
	"sync"
)

var sizeFlag = flag.Int("size", 100, "elements") // safe

var table = []int{1, 2, 3} // safe

var size int // safe

var data []float64 // safe

var limit int // safe

var later int // unsafe "stored in main after a possible goroutine start"

var afterPrint int // unsafe "stored in main after a possible goroutine start"

var counter int // unsafe "stored in safeglobals.worker"

var shared []int // unsafe "address passed to a call"

var Exported int // exported: another package may write it; not a candidate

var byClosure int // unsafe "stored in safeglobals.main$1"

var wg sync.WaitGroup // unsafe "address"

func init() {
	limit = len(table) * 10
}

func fill(p *[]int) { *p = append(*p, 1) }

func worker(k int) {
	defer wg.Done()
	s := 0.0
	for i := k; i < size; i += 4 {
		s += data[i] * float64(table[i%3]+limit) // want "R data[k..size:4]"
	}
	counter++ // want "W counter"
	_ = s
}

func main() {
	flag.Parse()
	size = *sizeFlag // want "R *sizeFlag"
	data = make([]float64, size)
	fmt.Println("size", size) // hands fmt interface values: a fork point
	afterPrint = 1
	fill(&shared)
	for i := 0; i < 4; i++ {
		wg.Add(1)
		go worker(i)
	}
	func() { byClosure = 1 }()
	later = 2
	wg.Wait()
	fmt.Println(counter, later, byClosure, Exported, afterPrint)
}
