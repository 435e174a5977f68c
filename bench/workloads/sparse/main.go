// Sparse multiplies a random sparse matrix in compressed sparse row (CSR)
// form by a dense vector many times, accumulating into y, as the JavaGrande
// sparse matmult kernel does: indirect indexing through the column array.
// Rows are split into one contiguous block per goroutine, so each y[r] is
// written by one goroutine only.
//
// It prints one line, "checksum: <hex>", a hash of the bits of y.
package main

import (
	"flag"
	"fmt"
	"math"
	"sync"

	"github.com/bigfoot-go/bigfoot/bench/internal/peak"
)

// csr is a sparse matrix: the nonzeros of row r are val[rowPtr[r]:rowPtr[r+1]]
// in the columns col[rowPtr[r]:rowPtr[r+1]].
type csr struct {
	rows   int
	rowPtr []int
	col    []int
	val    []float64
}

func main() {
	size := flag.Int("size", 0, "matrix rows (0: default)")
	short := flag.Bool("short", false, "tiny size, for tests")
	iters := flag.Int("iters", 0, "multiplications (0: default)")
	workers := flag.Int("workers", 4, "goroutines")
	flag.Parse()
	n, perRow, nit := 100000, 10, 200
	if *short {
		n, nit = 5000, 10
	}
	if *size > 0 {
		n = *size
	}
	if *iters > 0 {
		nit = *iters
	}
	w := max(*workers, 1)

	m := random(n, perRow)
	x := make([]float64, n)
	for i := range x {
		x[i] = 1 / float64(i+1)
	}
	y := make([]float64, n)

	var wg sync.WaitGroup
	for k := 0; k < w; k++ {
		lo, hi := k*n/w, (k+1)*n/w
		wg.Add(1)
		go func() {
			defer wg.Done()
			for it := 0; it < nit; it++ {
				m.mulAdd(y, x, lo, hi)
			}
		}()
	}
	wg.Wait()

	h := uint64(14695981039346656037)
	for _, v := range y {
		h = (h ^ math.Float64bits(v)) * 1099511628211
	}
	fmt.Printf("checksum: %016x\n", h)
	peak.Report()
}

// random returns an n×n matrix with perRow nonzeros in random columns of
// each row.
func random(n, perRow int) *csr {
	m := &csr{rows: n, rowPtr: make([]int, n+1)}
	seed := uint64(7)
	for r := 0; r < n; r++ {
		for k := 0; k < perRow; k++ {
			seed = seed*6364136223846793005 + 1442695040888963407
			m.col = append(m.col, int(seed>>33)%n)
			m.val = append(m.val, float64(seed>>40&0xffff)/65536)
		}
		m.rowPtr[r+1] = len(m.col)
	}
	return m
}

// mulAdd adds rows [lo, hi) of m·x to y.
func (m *csr) mulAdd(y, x []float64, lo, hi int) {
	for r := lo; r < hi; r++ {
		s := 0.0
		for k := m.rowPtr[r]; k < m.rowPtr[r+1]; k++ {
			s += m.val[k] * x[m.col[k]]
		}
		y[r] += s
	}
}
