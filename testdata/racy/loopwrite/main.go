// A goroutine fills a slice in a loop while main reads one element with
// no synchronization.
package main

import (
	"fmt"
	"sync"
)

func fill(a []int) {
	for i := range a {
		a[i] = i // RACE
	}
}

func main() {
	a := make([]int, 1000)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		fill(a)
	}()
	x := a[500]
	wg.Wait()
	fmt.Println(x >= 0)
}
