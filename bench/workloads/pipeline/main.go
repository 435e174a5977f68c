// Pipeline passes items through three stages connected by channels: a
// generator, a pool of transformers and a reducer. Items are small structs
// handed from goroutine to goroutine; channel operations are the only
// synchronization. The reducer folds items with a commutative combination,
// so the order in which transformers finish does not matter.
//
// It prints one line, "checksum: <hex>", built from the sum and xor of the
// transformed items.
package main

import (
	"flag"
	"fmt"
	"sync"

	"github.com/bigfoot-go/bigfoot/bench/internal/peak"
)

// item is the unit of work that flows through the pipeline.
type item struct {
	seq   int
	input uint64
	out   uint64
	steps int
}

func main() {
	size := flag.Int("size", 0, "number of items (0: default)")
	short := flag.Bool("short", false, "tiny size, for tests")
	workers := flag.Int("workers", 4, "transformer goroutines")
	flag.Parse()
	n := 3_000_000
	if *short {
		n = 10_000
	}
	if *size > 0 {
		n = *size
	}
	w := max(*workers, 1)

	gen := make(chan *item, 64)
	done := make(chan *item, 64)

	// Stage 1: generate.
	go func() {
		s := uint64(88172645463325252)
		for i := 0; i < n; i++ {
			s ^= s << 13
			s ^= s >> 7
			s ^= s << 17
			gen <- &item{seq: i, input: s}
		}
		close(gen)
	}()

	// Stage 2: transform, w goroutines.
	var wg sync.WaitGroup
	for k := 0; k < w; k++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for it := range gen {
				transform(it)
				done <- it
			}
		}()
	}
	go func() {
		wg.Wait()
		close(done)
	}()

	// Stage 3: reduce.
	var sum, xor uint64
	var steps, count int
	for it := range done {
		sum += it.out * uint64(it.seq+1)
		xor ^= it.out
		steps += it.steps
		count++
	}
	if count != n {
		panic(fmt.Sprintf("pipeline: reduced %d items, want %d", count, n))
	}
	fmt.Printf("checksum: %016x%016x%x\n", sum, xor, steps)
	peak.Report()
}

// transform computes the item's output: the length of the Collatz
// trajectory of a small number derived from the input, mixed with the
// input.
func transform(it *item) {
	x := it.input%100000 + 1
	steps := 0
	for x != 1 {
		if x%2 == 0 {
			x /= 2
		} else {
			x = 3*x + 1
		}
		steps++
	}
	it.steps = steps
	it.out = it.input*0x9e3779b97f4a7c15 ^ uint64(steps)
}
