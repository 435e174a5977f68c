// Safeclass exercises the static safe class of bigfoot mode
// (placement/safe.go): captured variables written only before the
// goroutines that read them start, per-iteration loop variables, and
// package-level variables set by initializers, init and main before any
// goroutine starts. It prints the same in every mode and has no race.
package main

import (
	"flag"
	"fmt"
	"os"
	"sync"
)

var workers = flag.Int("workers", 4, "goroutines")

var table = []uint32{3, 5, 7, 11}

var n int

var weights []uint32

func init() {
	weights = make([]uint32, len(table))
	for i, t := range table {
		weights[i] = t * 2
	}
}

type stats struct{ min, max uint32 }

func main() {
	flag.Parse()
	n = 1 << 12
	if os.Getenv("SAFECLASS_SMALL") != "" {
		n = 64
	}
	keys := make([]uint32, n)
	for i := range keys {
		keys[i] = uint32(i*2654435761) >> 7
	}
	w := *workers
	sums := make([]uint32, w)
	var st stats
	st.min, st.max = 1, 1<<20
	var wg sync.WaitGroup
	for k := 0; k < w; k++ {
		lo, hi := k*n/w, (k+1)*n/w
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := uint32(0)
			for i := lo; i < hi; i++ {
				v := keys[i]*weights[i%len(weights)] + table[k%len(table)]
				if v >= st.min && v < st.max {
					s += v
				}
			}
			sums[k] = s
		}()
	}
	wg.Wait()
	total := uint32(0)
	for _, s := range sums {
		total += s
	}
	fmt.Println("total", total, "n", n)
}
