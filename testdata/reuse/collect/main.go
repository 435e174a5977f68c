// Command collect checks that objects two goroutines shared are collected
// by the program's runtime.GC once it drops them, as without bigfoot: a
// producer fills records and hands them to the main goroutine over a
// channel; the main goroutine reads each (the second goroutine to touch
// it), keeps only a weak pointer, and after runtime.GC counts the records
// whose weak pointer is nil. bigfoot holds such records until its next
// sweep (shadow/ident.go) and must release them before the program's
// runtime.GC.
package main

import (
	"fmt"
	"runtime"
	"weak"
)

type record struct {
	n   int
	pad [7]int64
}

func main() {
	const n = 100
	ch := make(chan *record)
	go func() {
		for i := range n {
			r := new(record)
			r.n = i
			ch <- r
		}
		close(ch)
	}()
	var ws []weak.Pointer[record]
	sum := 0
	for r := range ch {
		sum += r.n
		ws = append(ws, weak.Make(r))
	}
	runtime.GC()
	collected := 0
	for _, w := range ws {
		if w.Value() == nil {
			collected++
		}
	}
	fmt.Printf("sum %d, collected %d of %d\n", sum, collected, n)
}
