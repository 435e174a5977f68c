// A range statement over a slice in the body of a range-over-func loop:
// go/ssa builds that body as a function of its own, and its element reads
// are deferred into a footprint. Another goroutine writes an element
// without synchronizing, while the loop reads it.
package main

import (
	"fmt"
	"time"
)

// rounds yields 0, 1 and 2.
func rounds(yield func(int) bool) {
	for i := 0; i < 3; i++ {
		if !yield(i) {
			return
		}
	}
}

func main() {
	s := make([]int, 8)
	done := make(chan bool)
	go func() {
		time.Sleep(50 * time.Millisecond)
		s[5] = 9
		done <- true
	}()
	total := 0
	for k := range rounds {
		for _, v := range s { // RACE
			total += v * k
		}
		time.Sleep(40 * time.Millisecond)
	}
	<-done
	fmt.Println(total >= 0)
}
