// Package pagecache is modelled on gohugoio/hugo#1713 (fix 3 data races in
// TestPageCache): the goroutines read the cached value o1 after releasing
// the lock l1 that guarded its assignment, while other goroutines
// assigned it under the lock. The fixed twin moves the lock to protect the
// read, as the pull request did.
package pagecache

import (
	"sync"
	"testing"
)

type cache struct {
	l1 sync.Mutex
	o1 []int
}

func (c *cache) get(i int, lockRead bool) int {
	c.l1.Lock()
	c.o1 = append(c.o1, i)
	if lockRead {
		defer c.l1.Unlock()
		return len(c.o1)
	}
	c.l1.Unlock()
	return len(c.o1)
}

func workers(c *cache, lockRead bool) {
	var wg sync.WaitGroup
	for i := range 4 {
		wg.Add(1)
		go func() { defer wg.Done(); _ = c.get(i, lockRead) }()
	}
	wg.Wait()
}

func TestRacePageCacheRead(t *testing.T) { workers(&cache{}, false) }

func TestNoRacePageCacheRead(t *testing.T) {
	c := &cache{}
	workers(c, true)
	if len(c.o1) != 4 {
		t.Fatalf("%d entries, want 4", len(c.o1))
	}
}
