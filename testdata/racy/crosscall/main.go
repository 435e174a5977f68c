// A goroutine reads a slice in loops whose statements call functions of
// another package of the module, one sync-free and one that locks a
// mutex no other goroutine uses; main writes the slice meanwhile,
// unordered with the reads. The race must be reported whatever the
// callees' summaries let the loops keep.
package main

import (
	"fmt"
	"sync"

	"example.com/racy/crosscall/lib"
)

func sum(a []int) int {
	s := 0
	for i := range a {
		s += a[i] * lib.Scale(i)
	}
	for i := range a {
		lib.Tick()
		s += a[i]
	}
	return s
}

func main() {
	a := make([]int, 1000)
	var wg sync.WaitGroup
	wg.Add(1)
	var s int
	go func() {
		defer wg.Done()
		s = sum(a)
	}()
	for i := range a {
		a[i] = lib.Scale(i) // RACE
	}
	wg.Wait()
	fmt.Println(s >= 0)
}
