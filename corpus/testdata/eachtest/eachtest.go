// Package eachtest is the fixture of corpus's TestRunEachTest: a module
// whose tests pass, skip, fail, never end, and whose packages include two
// with the same test binary name and one whose tests do not build.
package eachtest

import "sync"

// Count adds n to a counter from n goroutines and returns it.
func Count(n int) int {
	var mu sync.Mutex
	var wg sync.WaitGroup
	total := 0
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			mu.Lock()
			total++
			mu.Unlock()
		}()
	}
	wg.Wait()
	return total
}
