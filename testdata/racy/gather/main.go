// Workers multiply a sparse matrix by a vector many times, gathering
// x[col[k]] with no synchronization between the products, while main
// writes one element of x without synchronization: the gather's read of
// that element races with the write, whichever comes first and however
// many times the worker has read it before in the same span.
package main

import (
	"fmt"
	"sync"
)

// mulAdd adds rows [lo, hi) of the matrix (val, col, rowPtr) times x to y.
func mulAdd(y, val, x []float64, col, rowPtr []int, lo, hi int) {
	for r := lo; r < hi; r++ {
		s := 0.0
		for k := rowPtr[r]; k < rowPtr[r+1]; k++ {
			s += val[k] * x[col[k]] // RACE
		}
		y[r] += s
	}
}

func main() {
	const n, perRow = 4096, 4
	rowPtr := make([]int, n+1)
	var col []int
	var val []float64
	seed := uint64(1)
	for r := 0; r < n; r++ {
		for k := 0; k < perRow; k++ {
			seed = seed*6364136223846793005 + 1442695040888963407
			col = append(col, int(seed>>33)%n)
			val = append(val, float64(k+1))
		}
		rowPtr[r+1] = len(col)
	}
	col[len(col)/2] = 77 // x[77] is certainly gathered
	x := make([]float64, n)
	y := make([]float64, n)
	var wg sync.WaitGroup
	for w := 0; w < 2; w++ {
		lo, hi := w*n/2, (w+1)*n/2
		wg.Add(1)
		go func() {
			defer wg.Done()
			for it := 0; it < 50; it++ {
				mulAdd(y, val, x, col, rowPtr, lo, hi)
			}
		}()
	}
	x[77] = 1
	wg.Wait()
	fmt.Println(y[0] >= 0)
}
