// Series computes the first n pairs of Fourier coefficients of
// f(x) = (x+1)^x on the interval [0, 2] by trapezoid integration, as the
// JavaGrande series kernel does: a compute-bound loop with few shared
// memory accesses. Coefficients are dealt out to goroutines in contiguous
// blocks; each coefficient is written by exactly one goroutine.
//
// It prints one line, "checksum: <hex>", a hash of the bits of all
// coefficients in index order.
package main

import (
	"flag"
	"fmt"
	"math"
	"sync"

	"github.com/bigfoot-go/bigfoot/bench/internal/peak"
)

// steps is the number of trapezoid intervals per integral.
const steps = 1000

func main() {
	size := flag.Int("size", 0, "number of coefficient pairs (0: default)")
	short := flag.Bool("short", false, "tiny size, for tests")
	workers := flag.Int("workers", 4, "goroutines")
	flag.Parse()
	n := 10000
	if *short {
		n = 200
	}
	if *size > 0 {
		n = *size
	}
	w := max(*workers, 1)

	// a[i], b[i] are the cosine and sine coefficients of index i.
	a := make([]float64, n)
	b := make([]float64, n)
	var wg sync.WaitGroup
	for k := 0; k < w; k++ {
		lo, hi := k*n/w, (k+1)*n/w
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := lo; i < hi; i++ {
				if i == 0 {
					a[0] = integrate(0, 0) / 2
					continue
				}
				omega := math.Pi * float64(i)
				a[i] = integrate(omega, 1)
				b[i] = integrate(omega, 2)
			}
		}()
	}
	wg.Wait()

	h := uint64(14695981039346656037)
	for i := range a {
		h = mix(h, math.Float64bits(a[i]))
		h = mix(h, math.Float64bits(b[i]))
	}
	fmt.Printf("checksum: %016x\n", h)
	peak.Report()
}

// integrate returns the trapezoid-rule integral over [0, 2] of f(x), of
// f(x)cos(omega x) (kind 1) or of f(x)sin(omega x) (kind 2).
func integrate(omega float64, kind int) float64 {
	const lo, hi = 0.0, 2.0
	dx := (hi - lo) / steps
	sum := (g(lo, omega, kind) + g(hi, omega, kind)) / 2
	x := lo
	for i := 1; i < steps; i++ {
		x += dx
		sum += g(x, omega, kind)
	}
	return sum * dx
}

// g is the integrand.
func g(x, omega float64, kind int) float64 {
	f := math.Pow(x+1, x)
	switch kind {
	case 1:
		return f * math.Cos(omega*x)
	case 2:
		return f * math.Sin(omega*x)
	}
	return f
}

// mix folds v into the hash h (FNV-1a over the 8 bytes of v).
func mix(h, v uint64) uint64 {
	for i := 0; i < 8; i++ {
		h = (h ^ (v & 0xff)) * 1099511628211
		v >>= 8
	}
	return h
}
