// A Cond's Signal orders nothing: the goroutine writes x without the
// lock and signals until the waiter is done, and the waiter's read of x
// after its Wait returns races with that write, as go run -race reports.
// y, written under the lock before a signal, is ordered before the
// waiter's read of it by the lock.
package main

import (
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
)

var x, y int

func main() {
	var mu sync.Mutex
	c := sync.NewCond(&mu)
	var done atomic.Bool
	go func() {
		mu.Lock()
		y = 1
		mu.Unlock()
		x = 1 // WRITE
		for !done.Load() {
			c.Signal() // Wait may not have begun: signal until it returned
			runtime.Gosched()
		}
	}()
	mu.Lock()
	for y == 0 {
		c.Wait()
	}
	r := y
	mu.Unlock()
	done.Store(true)
	r += x // READ
	fmt.Println(r >= 1)
}
