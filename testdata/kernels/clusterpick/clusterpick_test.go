// Package clusterpick is modelled on coreos/go-etcd#225: concurrent
// requests that fail move the client's picked machine forward
// ((*Cluster).failure) with no lock, so two requests race on picked. The
// fixed twin, as the pull request did, takes a mutex.
package clusterpick

import (
	"sync"
	"testing"
)

type cluster struct {
	mu       sync.Mutex
	machines []string
	picked   int
}

func (c *cluster) failure() {
	c.picked = (c.picked + 1) % len(c.machines)
}

func (c *cluster) failureLocked() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.failure()
}

func requests(c *cluster, fail func()) {
	var wg sync.WaitGroup
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			fail() // the request to c.machines[c.picked] failed
		}()
	}
	wg.Wait()
}

func TestRaceClusterPick(t *testing.T) {
	c := &cluster{machines: []string{"a", "b", "c"}}
	requests(c, c.failure)
}

func TestNoRaceClusterPick(t *testing.T) {
	c := &cluster{machines: []string{"a", "b", "c"}}
	requests(c, c.failureLocked)
	if c.picked != 2 {
		t.Fatalf("picked %d, want 2", c.picked)
	}
}
