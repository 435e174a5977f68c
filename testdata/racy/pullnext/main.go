// Command pullnext calls one iter.Pull's next from two goroutines that
// nothing orders: package iter's race annotations make each call write a
// word of the Pull, so go -race reports the second call; bigfoot's hook
// (detector/iter.go) writes one too.
package main

import (
	"fmt"
	"iter"
	"sync"
	"time"
)

func count(n int) iter.Seq[int] {
	return func(yield func(int) bool) {
		for i := 0; i < n; i++ {
			if !yield(i) {
				return
			}
		}
	}
}

func main() {
	next, stop := iter.Pull(count(10))
	defer stop()
	var wg sync.WaitGroup
	got := make([]int, 2)
	for w := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// Apart in time, but not ordered.
			time.Sleep(time.Duration(w) * 50 * time.Millisecond)
			got[w], _ = next() // RACE
		}()
	}
	wg.Wait()
	fmt.Println(got[0] + got[1])
}
