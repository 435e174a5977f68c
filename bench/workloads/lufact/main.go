// Lufact factors a dense n×n matrix as P·A = L·U by Gaussian elimination
// with partial pivoting and then solves A·x = b, as the JavaGrande lufact
// kernel does. For each pivot column k the main goroutine picks the pivot
// row and swaps it into place; then the rows below k are updated by a
// fixed set of worker goroutines (row i belongs to worker i mod w), with a
// barrier per pivot made of channels. The loops are triangular: the work
// shrinks as k grows.
//
// It prints one line, "checksum: <hex>", a hash of the bits of the solution
// vector x.
package main

import (
	"flag"
	"fmt"
	"math"
	"os"

	"github.com/bigfoot-go/bigfoot/bench/internal/peak"
)

func main() {
	size := flag.Int("size", 0, "matrix order (0: default)")
	short := flag.Bool("short", false, "tiny size, for tests")
	workers := flag.Int("workers", 4, "goroutines")
	flag.Parse()
	n := 1600
	if *short {
		n = 160
	}
	if *size > 0 {
		n = *size
	}
	w := max(*workers, 1)

	a := make([][]float64, n)
	b := make([]float64, n)
	seed := uint64(1325)
	for i := range a {
		a[i] = make([]float64, n)
		for j := range a[i] {
			seed = seed*6364136223846793005 + 1442695040888963407
			a[i][j] = float64(seed>>11)/(1<<53) - 0.5
		}
	}
	// b = A·1, so the exact solution is all ones.
	for i := range a {
		s := 0.0
		for _, v := range a[i] {
			s += v
		}
		b[i] = s
	}

	perm, err := factor(a, w)
	if err != nil {
		fmt.Fprintln(os.Stderr, "lufact:", err)
		os.Exit(1)
	}
	x := solve(a, perm, b)

	h := uint64(14695981039346656037)
	worst := 0.0
	for _, v := range x {
		h = (h ^ math.Float64bits(v)) * 1099511628211
		worst = max(worst, math.Abs(v-1))
	}
	if worst > 1e-6 {
		fmt.Fprintf(os.Stderr, "lufact: solution off by %g\n", worst)
		os.Exit(1)
	}
	fmt.Printf("checksum: %016x\n", h)
	peak.Report()
}

// factor overwrites a with its LU factors (L below the diagonal, with an
// implicit unit diagonal; U on and above it) and returns the row
// permutation: perm[k] is the row swapped with row k at step k.
func factor(a [][]float64, w int) ([]int, error) {
	n := len(a)
	perm := make([]int, n)
	start := make([]chan int, w)
	done := make(chan struct{}, w)
	for id := range start {
		start[id] = make(chan int)
		go eliminate(a, id, w, start[id], done)
	}
	defer func() {
		for _, c := range start {
			close(c)
		}
	}()
	for k := 0; k < n; k++ {
		p := k
		for i := k + 1; i < n; i++ {
			if math.Abs(a[i][k]) > math.Abs(a[p][k]) {
				p = i
			}
		}
		perm[k] = p
		if a[p][k] == 0 {
			return nil, fmt.Errorf("matrix is singular at column %d", k)
		}
		a[k], a[p] = a[p], a[k]
		// Barrier: every worker updates its rows below k, then reports.
		for _, c := range start {
			c <- k
		}
		for range start {
			<-done
		}
	}
	return perm, nil
}

// eliminate is worker id: for each pivot k it receives, it eliminates
// column k from the rows i > k with i mod w == id.
func eliminate(a [][]float64, id, w int, start <-chan int, done chan<- struct{}) {
	for k := range start {
		pivot := a[k]
		first := k + 1 + (id-(k+1)%w+w)%w
		for i := first; i < len(a); i += w {
			row := a[i]
			m := row[k] / pivot[k]
			row[k] = m
			for j := k + 1; j < len(row); j++ {
				row[j] -= m * pivot[j]
			}
		}
		done <- struct{}{}
	}
}

// solve returns x with A·x = b, given the factors and permutation.
func solve(lu [][]float64, perm []int, b []float64) []float64 {
	n := len(lu)
	x := append([]float64(nil), b...)
	for k := 0; k < n; k++ {
		x[k], x[perm[k]] = x[perm[k]], x[k]
	}
	for i := 0; i < n; i++ {
		for j := 0; j < i; j++ {
			x[i] -= lu[i][j] * x[j]
		}
	}
	for i := n - 1; i >= 0; i-- {
		for j := i + 1; j < n; j++ {
			x[i] -= lu[i][j] * x[j]
		}
		x[i] /= lu[i][i]
	}
	return x
}
