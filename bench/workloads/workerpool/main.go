// Workerpool sends job indices over a channel to a fixed pool of worker
// goroutines; each job computes a small dense matrix power and stores its
// result at the job's index in a shared slice, which the main goroutine
// reads after the pool has finished.
//
// It prints one line, "checksum: <hex>", a hash of the results in job
// order.
package main

import (
	"flag"
	"fmt"
	"sync"

	"github.com/bigfoot-go/bigfoot/bench/internal/peak"
)

// dim is the side of each job's matrix.
const dim = 12

// matrix is a small dense matrix over the integers modulo 2^64.
type matrix [dim][dim]uint64

// result is what one job produces.
type result struct {
	trace uint64
	sum   uint64
}

func main() {
	size := flag.Int("size", 0, "number of jobs (0: default)")
	short := flag.Bool("short", false, "tiny size, for tests")
	workers := flag.Int("workers", 4, "pool size")
	flag.Parse()
	n := 250_000
	if *short {
		n = 1000
	}
	if *size > 0 {
		n = *size
	}
	w := max(*workers, 1)

	results := make([]result, n)
	jobs := make(chan int)
	var wg sync.WaitGroup
	for k := 0; k < w; k++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range jobs {
				results[j] = run(j)
			}
		}()
	}
	for j := 0; j < n; j++ {
		jobs <- j
	}
	close(jobs)
	wg.Wait()

	h := uint64(14695981039346656037)
	for _, r := range results {
		h = (h ^ r.trace) * 1099511628211
		h = (h ^ r.sum) * 1099511628211
	}
	fmt.Printf("checksum: %016x\n", h)
	peak.Report()
}

// run is job j: raise a matrix seeded by j to the 8th power by repeated
// squaring and summarize it.
func run(j int) result {
	var m matrix
	s := uint64(j)*0x9e3779b97f4a7c15 + 1
	for i := range m {
		for k := range m[i] {
			s ^= s << 13
			s ^= s >> 7
			s ^= s << 17
			m[i][k] = s & 0xffff
		}
	}
	for p := 0; p < 3; p++ {
		m = mul(&m, &m)
	}
	var r result
	for i := range m {
		r.trace += m[i][i]
		for k := range m[i] {
			r.sum += m[i][k]
		}
	}
	return r
}

// mul returns a·b.
func mul(a, b *matrix) matrix {
	var c matrix
	for i := 0; i < dim; i++ {
		for k := 0; k < dim; k++ {
			aik := a[i][k]
			for j := 0; j < dim; j++ {
				c[i][j] += aik * b[k][j]
			}
		}
	}
	return c
}
