// appendloop's race through an append statement the instrumenter leaves
// in place (s = append(s, c) of a local slice and a name:
// detector.AppendPostF).
package main

import (
	"fmt"
	"sync"
)

func fill(buf []int, n int) int {
	for i := 0; i < n; i++ {
		c := 2 * i
		buf = append(buf, c) // RACE
	}
	return len(buf)
}

func main() {
	backing := make([]int, 0, 1000)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		fill(backing, 1000)
	}()
	x := backing[:1000][500]
	wg.Wait()
	fmt.Println(x >= 0)
}
