// A goroutine fills an array by a synchronization-free recursion whose
// leaves write 16 elements each after loading an atomic flag (as a loop
// calls rand.Intn, which loads math/rand's generator), while main loads
// the flag and then writes one element. Each leaf's range is checked
// after the leaf returns, in the goroutine's pending checks (bigfoot
// mode); a load whose acquire joins nothing neither makes them nor
// orders the leaves' writes before main's load
// (docs/runtime.md, "Synchronization that changes nothing"). The race is the leaves' write, as
// under go run -race.
package main

import (
	"fmt"
	"sync"
	"sync/atomic"
)

var stop atomic.Bool

func fill(a []int, lo, hi, round int) {
	if hi-lo <= 16 {
		if stop.Load() {
			return
		}
		for i := lo; i < hi; i++ {
			a[i] = i*3 + round // RACE
		}
		return
	}
	mid := (lo + hi) / 2
	fill(a, lo, mid, round)
	fill(a, mid, hi, round)
}

func main() {
	a := make([]int, 1<<12)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for round := 0; round < 200; round++ {
			fill(a, 0, len(a), round)
		}
	}()
	if !stop.Load() {
		a[1000] = -1
	}
	wg.Wait()
	fmt.Println(a[1000] != 0)
}
