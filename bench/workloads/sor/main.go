// Sor runs red-black successive over-relaxation on an n×n grid with fixed
// boundary values, as the JavaGrande sor kernel does (in its race-free
// red-black form): each iteration updates the red points ((i+j) even) from
// their black neighbours, then, after a barrier, the black points from the
// red ones. Interior rows are split into one contiguous block per
// goroutine; the stencil reads the neighbouring goroutines' edge rows, but
// only of the colour not being written in that phase.
//
// It prints one line, "checksum: <hex>", a hash of the bits of the grid.
package main

import (
	"flag"
	"fmt"
	"math"
	"sync"

	"github.com/bigfoot-go/bigfoot/bench/internal/peak"
)

const omega = 1.25

func main() {
	size := flag.Int("size", 0, "grid side (0: default)")
	short := flag.Bool("short", false, "tiny size, for tests")
	iters := flag.Int("iters", 0, "iterations (0: default)")
	workers := flag.Int("workers", 4, "goroutines")
	flag.Parse()
	n, nit := 1000, 500
	if *short {
		n, nit = 200, 10
	}
	if *size > 0 {
		n = *size
	}
	if *iters > 0 {
		nit = *iters
	}
	w := max(*workers, 1)

	g := make([][]float64, n)
	seed := uint64(99)
	for i := range g {
		g[i] = make([]float64, n)
		for j := range g[i] {
			seed = seed*6364136223846793005 + 1442695040888963407
			g[i][j] = float64(seed>>11) / (1 << 53)
		}
	}

	for it := 0; it < nit; it++ {
		for colour := 0; colour < 2; colour++ {
			var wg sync.WaitGroup
			for k := 0; k < w; k++ {
				lo, hi := 1+k*(n-2)/w, 1+(k+1)*(n-2)/w
				wg.Add(1)
				go func() {
					defer wg.Done()
					relax(g, lo, hi, colour)
				}()
			}
			wg.Wait()
		}
	}

	h := uint64(14695981039346656037)
	for _, row := range g {
		for _, v := range row {
			h = (h ^ math.Float64bits(v)) * 1099511628211
		}
	}
	fmt.Printf("checksum: %016x\n", h)
	peak.Report()
}

// relax updates the interior points of rows [lo, hi) whose colour
// ((i+j) mod 2) is colour.
func relax(g [][]float64, lo, hi, colour int) {
	n := len(g)
	for i := lo; i < hi; i++ {
		up, row, down := g[i-1], g[i], g[i+1]
		for j := 1 + (i+1+colour)%2; j < n-1; j += 2 {
			row[j] = omega*0.25*(up[j]+down[j]+row[j-1]+row[j+1]) + (1-omega)*row[j]
		}
	}
}
