// Command embedded locks a mutex promoted through an unexported embedded
// field of another package.
package main

import (
	"fmt"
	"sync"

	"example.com/embedded/other"
)

func main() {
	var c other.Counter
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c.Lock()
			c.Inc()
			c.Unlock()
		}()
	}
	wg.Wait()
	c.Lock()
	defer c.Unlock()
	fmt.Println(c.N())
}
