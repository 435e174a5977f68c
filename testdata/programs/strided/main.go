// Command strided has two goroutines write disjoint elements of one
// slice: one every fourth element s[0], s[4], ..., s[20], the other
// s[13] and s[14]. They share no element, so there is no race. bigfoot
// and slimstate check the first loop as one strided footprint and the
// second as one range; the shadow used to report a false race between
// them when the range came second (a stride run cut into a piece shorter
// than its period kept the state of the classes it has no byte of).
package main

import (
	"fmt"
	"runtime"
	"time"
)

func every4(s []int64) {
	for i := 0; i < len(s); i += 4 {
		s[i] = int64(i)
	}
}

func pair(s []int64) {
	for i := 13; i < 15; i++ {
		s[i] = int64(i)
	}
}

func main() {
	s := make([]int64, 21)
	base := runtime.NumGoroutine()
	go every4(s)
	// Wait for the first goroutine without synchronizing with it: the
	// second one's writes come after the first one's, unordered.
	waitFor(base)
	go pair(s)
	waitFor(base)
	fmt.Println(len(s))
}

// waitFor returns when the program has n goroutines.
func waitFor(n int) {
	for runtime.NumGoroutine() > n {
		time.Sleep(time.Millisecond)
	}
}
