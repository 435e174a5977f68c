// Command straddle has two races whose accesses straddle garbage
// collections: goroutine A writes a heap variable and a global and exits,
// the program forces several GC cycles, and goroutine B, started after
// them, writes both again. Nothing orders B after A (the main goroutine
// waits for A by polling runtime.NumGoroutine, which is no
// synchronization), so go -race reports both writes of B (lines marked
// "race:"), whatever the GC did in between.
package main

import (
	"fmt"
	"runtime"
	"time"
)

var global int

type record struct {
	pad [6]int64
	n   int
}

func main() {
	x := new(record)
	base := runtime.NumGoroutine()
	go func() {
		x.n = 1
		global = 1
	}()
	waitFor(base)
	for range 3 {
		runtime.GC()
	}
	go func() {
		x.n = 2    // race: with A's write of x.n
		global = 2 // race: with A's write of global
	}()
	waitFor(base)
	fmt.Println("done")
}

// waitFor returns when the program has n goroutines.
func waitFor(n int) {
	for runtime.NumGoroutine() > n {
		time.Sleep(time.Millisecond)
	}
}
