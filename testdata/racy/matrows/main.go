// A goroutine multiplies fixed-size matrices through pointers to arrays:
// the loop over j reads the row b[k] again for every i, so its static
// range is reopened inside its pending part (detector.OpenRangeAt) and
// b's rows are checked once for the whole nest. main writes an element of
// b while it runs.
package main

import (
	"fmt"
	"sync"
	"time"
)

const dim = 8

type matrix [dim][dim]int

func mul(c, a, b *matrix) {
	for i := 0; i < dim; i++ {
		for k := 0; k < dim; k++ {
			aik := a[i][k]
			for j := 0; j < dim; j++ {
				c[i][j] += aik * b[k][j] // RACE
			}
		}
	}
}

func main() {
	a, b, c := new(matrix), new(matrix), new(matrix)
	for i := range a {
		a[i][i], b[i][i] = 1, 2
	}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for n := 0; n < 200; n++ {
			mul(c, a, b)
		}
	}()
	time.Sleep(time.Millisecond)
	b[5][3] = 7
	wg.Wait()
	fmt.Println(c[5][5] > 0)
}
