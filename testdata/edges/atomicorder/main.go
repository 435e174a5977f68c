// Atomic operations order what go -race's rules order and no more: a
// load releases nothing, a store acquires nothing, a CompareAndSwap that
// fails releases nothing. Each of the three plain accesses of x1, x2, x3
// in main races with a goroutine's write, whichever runs first; the
// atomic operations on f4, by goroutines nothing orders, never race with
// each other. go run -race reports exactly the three races.
package main

import (
	"fmt"
	"sync"
	"sync/atomic"
)

var (
	x1, x2, x3     int
	f1, f2, f3, f4 atomic.Int64
)

func main() {
	var wg sync.WaitGroup
	wg.Add(4)
	go func() {
		defer wg.Done()
		x1 = 1 // WRITE x1
		f1.Load()
	}()
	go func() {
		defer wg.Done()
		x2 = 1 // WRITE x2
		f2.Store(1)
	}()
	go func() {
		defer wg.Done()
		x3 = 1                  // WRITE x3
		f3.CompareAndSwap(7, 8) // f3 is 0: fails
	}()
	go func() {
		defer wg.Done()
		f4.Load()
		f4.Store(1)
		f4.Add(1)
		f4.CompareAndSwap(2, 3)
	}()
	f1.Load()
	r := x1 // READ x1
	f2.Store(2)
	r += x2 // READ x2
	f3.Load()
	r += x3 // READ x3
	f4.Store(5)
	f4.Add(f4.Load())
	f4.Swap(1)
	wg.Wait()
	fmt.Println(r >= 0)
}
