// Package vaultwgadd is modelled on hashicorp/vault#5716 (call wg.Add outside of
// goroutine): a replication worker started one goroutine per entry that
// called wg.Add(1) inside the goroutine, so the caller's wg.Wait could
// return before they had run and read the counts they then wrote. The
// fixed twin calls wg.Add before the go statement, as the pull request
// did.
package vaultwgadd

import (
	"sync"
	"testing"
	"time"
)

type counts struct{ n [3]int }

// replicate counts entry i, adding itself to wg as it starts: too late.
func (c *counts) replicate(wg *sync.WaitGroup, i int) {
	time.Sleep(time.Millisecond) // connecting to the secondary
	wg.Add(1)
	defer wg.Done()
	c.n[i]++
}

func TestRaceVaultWaitGroupAdd(t *testing.T) {
	var wg sync.WaitGroup
	c := &counts{}
	exited := make(chan int)
	for i := range 3 {
		go func() { c.replicate(&wg, i); exited <- i }()
	}
	wg.Wait()
	_ = c.n
	for range 3 {
		<-exited
	}
}

func TestNoRaceVaultWaitGroupAdd(t *testing.T) {
	var wg sync.WaitGroup
	c := &counts{}
	for i := range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c.n[i]++
		}()
	}
	wg.Wait()
	if c.n != [3]int{1, 1, 1} {
		t.Fatalf("counts %v", c.n)
	}
}
