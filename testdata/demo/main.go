// Demo is a tiny racy program: two goroutines increment a counter without
// a lock (a data race bigfoot reports), and two more increment one guarded
// by a mutex (no race).
package main

import (
	"fmt"
	"sync"
)

// counter is incremented without synchronization: a data race.
var counter int

// guarded is incremented under mu: no race.
var (
	mu      sync.Mutex
	guarded int
)

func main() {
	var wg sync.WaitGroup
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			counter++ // racy: no lock
			mu.Lock()
			guarded++
			mu.Unlock()
		}()
	}
	wg.Wait()
	fmt.Println("counter:", counter, "guarded:", guarded)
}
