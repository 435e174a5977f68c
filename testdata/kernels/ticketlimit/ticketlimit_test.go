// Package ticketlimit is modelled on hashicorp/vault#25104 (move wg.Add
// outside of goroutine), here in a fan-out bounded by a buffered-channel
// semaphore: each goroutine takes a slot of the semaphore and then calls
// wg.Add(1) itself, so the caller's wg.Wait can return while they still
// write their results; the semaphore orders nothing with the caller. The
// fixed twin adds before the go statement, as the pull request did.
package ticketlimit

import (
	"sync"
	"testing"
	"time"
)

type result struct{ n [4]int }

func fanOut(late bool) *result {
	var wg sync.WaitGroup
	sem := make(chan struct{}, 2)
	r := &result{}
	exited := make(chan struct{}, 4)
	for i := range 4 {
		if !late {
			wg.Add(1)
		}
		go func() {
			defer func() { exited <- struct{}{} }()
			sem <- struct{}{}
			defer func() { <-sem }()
			if late {
				time.Sleep(time.Millisecond)
				wg.Add(1)
			}
			defer wg.Done()
			r.n[i] = i
		}()
	}
	wg.Wait()
	_ = r.n
	for range 4 {
		<-exited
	}
	return r
}

func TestRaceSemaphoreAddLate(t *testing.T) { fanOut(true) }

func TestNoRaceSemaphoreAddLate(t *testing.T) {
	if r := fanOut(false); r.n != [4]int{0, 1, 2, 3} {
		t.Fatalf("results %v", r.n)
	}
}
