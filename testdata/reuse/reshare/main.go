// Records are handed from a producer to a consumer, so that two goroutines
// touch each of them, and dropped. Meanwhile another goroutine, which
// never synchronizes with those two, waits for them to finish by polling a
// plain clock, collects the garbage and fills records of the same size,
// which the allocator places in the memory of the dropped ones. The
// program is race-free: every record is used by its goroutines in order.
// A detector that kept the dropped records' shadow for the new records
// (it must prove, when state survives a GC cycle, that the object is the
// one the state was recorded for) reports a false race on them.
package main

import (
	"fmt"
	"runtime"
	"sync"
	"time"
)

type record struct {
	id, a, b, c int64
}

const n = 20000

func main() {
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		// Unsynchronized with the producer and the consumer below.
		defer wg.Done()
		time.Sleep(300 * time.Millisecond)
		runtime.GC()
		runtime.GC()
		var keep []*record
		sum := int64(0)
		for i := range n {
			r := &record{}
			r.id, r.a, r.b, r.c = int64(i), 1, 2, 3
			sum += r.id + r.a + r.b + r.c
			keep = append(keep, r)
		}
		fmt.Println("filled", len(keep), sum > 0)
	}()

	ch := make(chan *record, 16)
	done := make(chan int64)
	go func() {
		for i := range n {
			ch <- &record{id: int64(i), a: 1}
		}
		close(ch)
	}()
	go func() {
		s := int64(0)
		for r := range ch {
			r.b = r.a + 1
			r.c = r.id
			s += r.b + r.c
		}
		done <- s
	}()
	fmt.Println("handed", <-done > 0)
	wg.Wait()
}
