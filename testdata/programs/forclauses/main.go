// Forclauses runs for statements whose init or post statement writes
// the result of a call that synchronizes (it takes a lock that another
// goroutine takes too): bigfoot checks such a write after the call, so
// it moves the init before the loop and runs the post statement in a
// function literal. The loops must compute what they did: each
// iteration's closures see that iteration's variables (Go 1.22), even
// those the post statement writes; continue runs the post statement;
// labeled loops break and continue as before.
package main

import (
	"fmt"
	"sync"
)

type counter struct {
	mu   sync.Mutex
	n    int
	last int
}

func (c *counter) inc() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.n++
	return c.n
}

func main() {
	c := &counter{}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for range 50 {
			c.inc()
		}
	}()

	var fs []func() int
	for i := 0; i < 10; i, c.last = i+1, c.inc() {
		fs = append(fs, func() int { return i })
		if i%3 == 0 {
			i++ // this iteration's i, seen by its closure
			continue
		}
	}
	steps := 0
	for c.last = c.inc(); steps < 4; c.last = c.inc() {
		steps++
	}
	pairs := 0
outer:
	for j := 0; j < 5; c.last = c.inc() {
		for k := 0; k < 5; k, c.last = k+1, c.inc() {
			if k == j {
				j++
				continue outer
			}
			if j == 3 {
				break outer
			}
			pairs++
		}
	}
	wg.Wait()
	var seen []int
	for _, f := range fs {
		seen = append(seen, f())
	}
	fmt.Println(seen, steps, pairs, c.n)
}
