// Summaries: loops whose statements call functions of another package of
// the module. Calls that do not synchronize (by lib's effect summaries)
// keep the loop's static range, a read before one that may panic or not
// return storing the range's extent itself; the others break it.
package main

import (
	"fmt"

	"example.com/m/lib"
)

// A read in a statement with a sync-free, panic-free call: static range.
func scaled(a []int) int {
	s := 0
	for i := 0; i < len(a); i++ {
		s += a[i] * lib.Scale(i)
	}
	return s
}

// A sync-free call with a loop of its own: static range too.
func mixed(a []uint64) uint64 {
	h := uint64(0)
	for i := 0; i < len(a); i++ {
		h = lib.Mix(h, a[i])
	}
	return h
}

// A call that locks: the read of the same statement keeps a footprint.
func ticked(a []int) int {
	s := 0
	for i := 0; i < len(a); i++ {
		s += a[i] + lib.Tick()
	}
	return s
}

// A call that may panic: a static range, the read storing its extent.
func divided(a []int) int {
	s := 0
	for i := 0; i < len(a); i++ {
		s += a[i] + lib.Div(i, 3)
	}
	return s
}

// A call of a func value in lib: a footprint.
func applied(a []int) int {
	s := 0
	for i := 0; i < len(a); i++ {
		s += a[i] + lib.Apply(func(x int) int { return x }, i)
	}
	return s
}

// Recursion (it may not return): a static range, the read storing its
// extent.
func parity(a []int) int {
	n := 0
	for i := 0; i < len(a); i++ {
		if lib.Even(a[i] + i) {
			n++
		}
	}
	return n
}

// Writes after a right-hand side that returns without synchronizing are
// checked before it; after one that may synchronize, a footprint records
// the write right after it (the loop has no static range: continue).
func fill(a []float64, b []int) {
	for i := range a {
		if i == 0 {
			continue
		}
		a[i] = lib.Root(float64(i))
		b[i] = lib.Tick()
	}
}

// A write of a shared variable after a simple call is checked in place.
var total float64

func sum(a []float64) {
	total = lib.Root(a[0])
}

func main() {
	a := []int{1, 2, 3, 4, 5, 6, 7, 8}
	u := []uint64{1, 2, 3, 4}
	f := make([]float64, 6)
	b := make([]int, 6)
	fill(f, b)
	sum(f)
	fmt.Println(scaled(a), mixed(u), ticked(a), divided(a), applied(a), parity(a), f[1], b[2], total)
	fmt.Println(blocks(1000, 4))
}

// Block-partitioned goroutines over a captured slice that nothing writes
// after the closures capture it (static safe class, not shared): the loop
// keeps its static range although its body calls a function that locks
// (the write follows the call). out2 is reassigned after the goroutines
// start: a call could assign it, its loop keeps footprints.
func blocks(n, w int) (int, int) {
	out := make([]int, n)
	out2 := make([]int, n)
	done := make(chan bool)
	for k := 0; k < w; k++ {
		lo, hi := k*n/w, (k+1)*n/w
		go func() {
			for i := lo; i < hi; i++ {
				out[i] = lib.Scale(i) + lib.Tick()
			}
			for i := lo; i < hi; i++ {
				out2[i] = lib.Scale(i)
			}
			done <- true
		}()
	}
	for k := 0; k < w; k++ {
		<-done
	}
	s := 0
	for i := range out {
		s += out[i] + out2[i]
	}
	out2 = nil
	return s, len(out2)
}
