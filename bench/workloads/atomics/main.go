// Atomics is a table of a million counters, each updated with atomic
// operations only: goroutines add to every counter, each in its own
// order, and then every counter is loaded. Every operation is on an
// address no earlier one used, the shape of concurrent hash maps and
// lock-free tables whose slots are atomically accessed words: the cost is
// in the race runtime's state per atomically accessed address, not in
// contention.
//
// It prints one line, "checksum: <hex>", computed from the final values,
// the same for any GOMAXPROCS and schedule.
package main

import (
	"flag"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/bigfoot-go/bigfoot/bench/internal/peak"
)

func main() {
	size := flag.Int("size", 0, "counters (0: default)")
	short := flag.Bool("short", false, "tiny size, for tests")
	workers := flag.Int("workers", 4, "goroutines")
	flag.Parse()
	n := 1 << 20
	if *short {
		n = 1 << 10
	}
	if *size > 0 {
		n = *size
	}
	w := max(*workers, 1)

	counters := make([]uint64, n)
	var wg sync.WaitGroup
	for g := 0; g < w; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// Each goroutine visits every counter once, from its own
			// start.
			start := g * n / w
			for i := 0; i < n; i++ {
				atomic.AddUint64(&counters[(start+i)%n], uint64(g+1))
			}
		}()
	}
	wg.Wait()

	sum := uint64(0)
	for i := range counters {
		sum = sum*0x100000001b3 ^ atomic.LoadUint64(&counters[i])
	}
	fmt.Printf("checksum: %016x\n", sum)
	peak.Report()
}
