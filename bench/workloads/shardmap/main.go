// Shardmap is a read-mostly cache sharded under sync.RWMutex: keys hash to
// one of 64 shards, each a map guarded by its own RWMutex. Goroutines look
// keys up under RLock (nine in ten operations) and insert or update under
// Lock. Synchronization, not array access, dominates: every operation is a
// lock/unlock pair and a map access, the shape of the caches in Go servers.
//
// It prints one line, "checksum: <hex>", computed from per-goroutine
// results and the final contents, the same for any GOMAXPROCS and
// schedule.
package main

import (
	"flag"
	"fmt"
	"sync"

	"github.com/bigfoot-go/bigfoot/bench/internal/peak"
)

const shards = 64

type shard struct {
	mu sync.RWMutex
	m  map[uint64]uint64
}

type cache struct {
	shards [shards]shard
}

func newCache() *cache {
	c := new(cache)
	for i := range c.shards {
		c.shards[i].m = make(map[uint64]uint64)
	}
	return c
}

func (c *cache) shard(k uint64) *shard { return &c.shards[(k*0x9e3779b97f4a7c15)>>58] }

func (c *cache) get(k uint64) (uint64, bool) {
	s := c.shard(k)
	s.mu.RLock()
	v, ok := s.m[k]
	s.mu.RUnlock()
	return v, ok
}

// put stores f(old) under k, where old is the current value or 0.
func (c *cache) put(k uint64, f func(uint64) uint64) {
	s := c.shard(k)
	s.mu.Lock()
	s.m[k] = f(s.m[k])
	s.mu.Unlock()
}

func main() {
	size := flag.Int("size", 0, "operations per goroutine (0: default)")
	short := flag.Bool("short", false, "tiny size, for tests")
	workers := flag.Int("workers", 4, "goroutines")
	keys := flag.Int("keys", 1<<16, "distinct keys")
	flag.Parse()
	n := 2_000_000
	if *short {
		n = 10_000
	}
	if *size > 0 {
		n = *size
	}
	w := max(*workers, 1)
	nk := uint64(max(*keys, 1))

	c := newCache()
	hits := make([]uint64, w)
	var wg sync.WaitGroup
	for g := 0; g < w; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := uint64(g)*0x9e3779b97f4a7c15 + 1
			var h uint64
			for i := 0; i < n; i++ {
				s ^= s << 13
				s ^= s >> 7
				s ^= s << 17
				k := s % nk
				if s>>60 < 15 { // 15 in 16: a lookup
					if _, ok := c.get(k); ok {
						h++
					}
					continue
				}
				// Commutative update: the final value of k is the same
				// whatever the order of the updates.
				c.put(k, func(old uint64) uint64 { return old + s>>32 })
			}
			hits[g] = h
		}()
	}
	wg.Wait()

	// The final contents do not depend on the schedule; the hit counts do,
	// so only their existence is checked, not mixed into the checksum.
	sum := uint64(0)
	for i := range c.shards {
		for k, v := range c.shards[i].m {
			sum += k*0x100000001b3 ^ v
		}
	}
	total := uint64(0)
	for _, h := range hits {
		total += h
	}
	if total == 0 && n > 1000 {
		panic("shardmap: no lookup hit")
	}
	fmt.Printf("checksum: %016x\n", sum)
	peak.Report()
}
