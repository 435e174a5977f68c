// Cache memoizes an expensive function in a map guarded by a sync.Mutex
// shared by all goroutines: the commonest Go pattern for shared mutable
// state. Each goroutine looks up a deterministic stream of keys drawn from
// a skewed distribution; on a miss it computes the value outside the lock
// and stores it. Which goroutine computes a value depends on the schedule,
// but the value does not, so the sum of the values looked up is fixed.
//
// It prints one line, "checksum: <hex>", the wrapping sum of every value
// looked up.
package main

import (
	"flag"
	"fmt"
	"sync"

	"github.com/bigfoot-go/bigfoot/bench/internal/peak"
)

// cache maps keys to computed values.
type cache struct {
	mu      sync.Mutex
	entries map[uint64]uint64
	limit   int
}

// get returns f(key), computing it only if it is not cached.
func (c *cache) get(key uint64) uint64 {
	c.mu.Lock()
	v, ok := c.entries[key]
	c.mu.Unlock()
	if ok {
		return v
	}
	v = expensive(key)
	c.mu.Lock()
	if len(c.entries) >= c.limit {
		// Make room: drop one entry (which one does not matter).
		for k := range c.entries {
			delete(c.entries, k)
			break
		}
	}
	c.entries[key] = v
	c.mu.Unlock()
	return v
}

// expensive is the memoized function: a few hundred rounds of mixing.
func expensive(key uint64) uint64 {
	x := key + 0x9e3779b97f4a7c15
	for i := 0; i < 300; i++ {
		x ^= x >> 31
		x *= 0xbf58476d1ce4e5b9
		x ^= x >> 29
	}
	return x
}

func main() {
	size := flag.Int("size", 0, "lookups per goroutine (0: default)")
	short := flag.Bool("short", false, "tiny size, for tests")
	workers := flag.Int("workers", 4, "goroutines")
	keys := flag.Int("keys", 1<<14, "distinct keys")
	flag.Parse()
	n := 600_000
	if *short {
		n = 20_000
	}
	if *size > 0 {
		n = *size
	}
	w := max(*workers, 1)
	nkeys := uint64(max(*keys, 1))

	c := &cache{entries: make(map[uint64]uint64), limit: int(nkeys / 2)}
	sums := make([]uint64, w)
	var wg sync.WaitGroup
	for k := 0; k < w; k++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := uint64(k)*0x632be59bd9b4e019 + 1
			var sum uint64
			for i := 0; i < n; i++ {
				s ^= s << 13
				s ^= s >> 7
				s ^= s << 17
				// Skewed: the minimum of two uniform draws favours small keys.
				key := min(s%nkeys, (s>>32)%nkeys)
				sum += c.get(key)
			}
			sums[k] = sum
		}()
	}
	wg.Wait()

	var total uint64
	for _, s := range sums {
		total += s
	}
	fmt.Printf("checksum: %016x\n", total)
	peak.Report()
}
