// Mergesort sorts a large slice of random integers with a parallel merge
// sort: the two halves are sorted in separate goroutines down to a cutoff
// size, below which the sort is sequential, and merged through a scratch
// buffer. Each goroutine owns a disjoint subslice of both the data and the
// buffer.
//
// It prints one line, "checksum: <hex>", a position-weighted sum of the
// sorted slice; it exits with status 1 if the result is not sorted.
package main

import (
	"flag"
	"fmt"
	"os"
	"sync"

	"github.com/bigfoot-go/bigfoot/bench/internal/peak"
)

// cutoff is the length below which halves are sorted sequentially.
const cutoff = 1 << 13

func main() {
	size := flag.Int("size", 0, "number of elements (0: default)")
	short := flag.Bool("short", false, "tiny size, for tests")
	flag.Parse()
	n := 8_000_000
	if *short {
		n = 50_000
	}
	if *size > 0 {
		n = *size
	}

	a := make([]uint64, n)
	s := uint64(2463534242)
	for i := range a {
		s ^= s << 13
		s ^= s >> 7
		s ^= s << 17
		a[i] = s >> 16
	}
	buf := make([]uint64, n)
	sortPar(a, buf)

	var sum uint64
	for i := range a {
		if i > 0 && a[i-1] > a[i] {
			fmt.Fprintf(os.Stderr, "mergesort: not sorted at %d\n", i)
			os.Exit(1)
		}
		sum += a[i] * uint64(i+1)
	}
	fmt.Printf("checksum: %016x\n", sum)
	peak.Report()
}

// sortPar sorts a, using buf (of the same length) as scratch space.
func sortPar(a, buf []uint64) {
	if len(a) <= cutoff {
		sortSeq(a, buf)
		return
	}
	mid := len(a) / 2
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		sortPar(a[:mid], buf[:mid])
	}()
	sortPar(a[mid:], buf[mid:])
	wg.Wait()
	merge(a, buf, mid)
}

// sortSeq sorts a sequentially, using buf as scratch space.
func sortSeq(a, buf []uint64) {
	if len(a) <= 16 {
		for i := 1; i < len(a); i++ {
			for j := i; j > 0 && a[j-1] > a[j]; j-- {
				a[j-1], a[j] = a[j], a[j-1]
			}
		}
		return
	}
	mid := len(a) / 2
	sortSeq(a[:mid], buf[:mid])
	sortSeq(a[mid:], buf[mid:])
	merge(a, buf, mid)
}

// merge merges the sorted halves a[:mid] and a[mid:] in place, through buf.
func merge(a, buf []uint64, mid int) {
	copy(buf, a)
	i, j, k := 0, mid, 0
	for i < mid && j < len(a) {
		if buf[j] < buf[i] {
			a[k] = buf[j]
			j++
		} else {
			a[k] = buf[i]
			i++
		}
		k++
	}
	k += copy(a[k:], buf[i:mid])
	copy(a[k:], buf[j:])
}
