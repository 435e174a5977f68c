// Command straddlemany has a race whose accesses straddle a garbage
// collection, on the last of 100 objects that one goroutine created and
// wrote before it: goroutine A allocates 100 records and writes each, the
// program forces a GC cycle, and goroutine B, started after it, writes
// the last record again. Nothing orders B after A (the main goroutine
// waits for A by polling runtime.NumGoroutine, which is no
// synchronization), so go -race reports B's write (the line marked
// "race:"). The shadow used to keep the state of the first 64 new
// objects of a GC cycle only, and missed it.
package main

import (
	"fmt"
	"runtime"
	"time"
)

type record struct {
	pad [3]int64
	n   int
}

func main() {
	rs := make([]*record, 100)
	for i := range rs {
		rs[i] = new(record)
	}
	base := runtime.NumGoroutine()
	go func() {
		for _, r := range rs {
			r.n = 1
		}
	}()
	waitFor(base)
	runtime.GC()
	go func() {
		rs[99].n = 2 // race: with A's write of rs[99].n
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
