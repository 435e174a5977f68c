// Package raftpool is modelled on cockroachdb/cockroach#46793 (kv: data race on pooled
// RaftMessageRequest): a request taken from a sync.Pool was put back
// while the transport goroutine it was handed to still read it, so the
// next Get reused it under the reader. The fixed twin lets the reader
// release the request when it is done with it.
package raftpool

import (
	"sync"
	"testing"
	"time"
)

type request struct {
	term  int
	entry [4]int
}

var reqPool = sync.Pool{New: func() any { return new(request) }}

// send hands n requests to a transport goroutine; if early, the sender
// releases each request as soon as it is sent.
func send(n int, early bool) int {
	ch := make(chan *request)
	sum := make(chan int)
	go func() {
		s := 0
		for r := range ch {
			time.Sleep(100 * time.Microsecond)
			s += r.term + r.entry[0]
			if !early {
				reqPool.Put(r)
			}
		}
		sum <- s
	}()
	for i := range n {
		r := reqPool.Get().(*request)
		r.term, r.entry[0] = i, i
		ch <- r
		if early {
			reqPool.Put(r)
		}
	}
	close(ch)
	return <-sum
}

func TestRaceRaftRequestPool(t *testing.T) { send(20, true) }

func TestNoRaceRaftRequestPool(t *testing.T) {
	if got := send(20, false); got != 2*190 {
		t.Fatalf("sum %d, want 380", got)
	}
}
