// Command handoff has a race on a small record that two goroutines shared
// before garbage collections: goroutine A writes the fields of many fresh
// records, then x.n, and hands x to B over a channel; B reads x.n (x is
// now shared: the detector adopts it); the program forces GC cycles; then
// goroutine C, started after them, writes x.n. Nothing orders C after B
// (the main goroutine waits by polling runtime.NumGoroutine, which is no
// synchronization), so go -race reports C's write (the line marked
// "race:"), whatever the GC did in between. The fresh records come first
// so that x's state is recorded like that of a program that touches many
// new objects between cycles, without a weak pointer of its own.
package main

import (
	"fmt"
	"runtime"
	"time"
)

type record struct {
	seq, n int
}

// keep makes the fresh records heap objects; only goroutine A uses it.
var keep []*record

func main() {
	base := runtime.NumGoroutine()
	ch := make(chan *record)
	x := new(record)
	go func() {
		for range 256 {
			keep = append(keep, new(record))
		}
		for i, r := range keep {
			r.seq = i
		}
		x.n = 1
		ch <- x
	}()
	go func() {
		r := <-ch
		_ = r.n
	}()
	waitFor(base)
	for range 3 {
		runtime.GC()
	}
	go func() {
		x.n = 2 // race: with A's write and B's read of x.n
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
