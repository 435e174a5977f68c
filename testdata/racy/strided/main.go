// Two goroutines write the even and the odd elements of one slice (no
// race between them), but main reads an odd element while they run.
package main

import (
	"fmt"
	"sync"
)

func fillEvery(a []float64, start int) {
	for i := start; i < len(a); i += 2 {
		a[i] = float64(i) // RACE
	}
}

func main() {
	a := make([]float64, 2000)
	var wg sync.WaitGroup
	for s := 0; s < 2; s++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			fillEvery(a, s)
		}()
	}
	x := a[1001]
	wg.Wait()
	fmt.Println(x >= 0)
}
