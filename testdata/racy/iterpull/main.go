// An iterator pulled with iter.Pull writes a counter on its coroutine;
// another goroutine, started before the Pull and ordered with neither
// side, writes the same counter. The coroutine's switches order the
// iterator with next's caller only.
package main

import (
	"fmt"
	"iter"
	"time"
)

var hits int

func ticks(n int) iter.Seq[int] {
	return func(yield func(int) bool) {
		for i := 0; i < n; i++ {
			hits++ // RACE
			if !yield(i) {
				return
			}
		}
	}
}

func main() {
	done := make(chan bool)
	go func() {
		time.Sleep(50 * time.Millisecond)
		hits = 7
		done <- true
	}()
	next, stop := iter.Pull(ticks(3))
	defer stop()
	sum := 0
	for v, ok := next(); ok; v, ok = next() {
		sum += v
		time.Sleep(40 * time.Millisecond)
	}
	<-done
	fmt.Println(sum)
}
