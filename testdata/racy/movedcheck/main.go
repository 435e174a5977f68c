// A goroutine fills an array by a synchronization-free recursion whose
// leaves write 16 elements each, while main writes one element with no
// synchronization. Each leaf's range is checked after the leaf returns,
// merged with its neighbours' in the goroutine's pending checks, before
// the goroutine's next synchronization (bigfoot mode). The race is the
// leaves' write.
package main

import (
	"fmt"
	"sync"
)

func fill(a []int, lo, hi, round int) {
	if hi-lo <= 16 {
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
	a[1000] = -1
	wg.Wait()
	fmt.Println(a[1000] != 0)
}
