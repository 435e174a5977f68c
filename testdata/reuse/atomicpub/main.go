// Command atomicpub publishes records through atomic flags, round after
// round, with garbage collections in between, so that each round's records
// and their flags take the memory of the last round's: a writer fills a
// record's payload and then sets its flag with atomic.StoreInt32; a reader
// waits with atomic.LoadInt32 until the flag is set and then reads the
// payload. Every read is ordered after its write by the flag, so no run
// may report a race. The detector keeps a clock per atomically accessed
// word, proven to be its object's by the runtime's allocation versions:
// a clock dropped or reset while its object lives would lose the edge.
package main

import (
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
)

type record struct {
	ready   int32
	payload [3]int64
}

func main() {
	const rounds, n = 8, 4096
	var sum int64
	for round := range rounds {
		recs := make([]*record, n)
		for i := range recs {
			recs[i] = new(record)
		}
		var wg sync.WaitGroup
		wg.Add(2)
		go func() {
			defer wg.Done()
			for i, r := range recs {
				r.payload = [3]int64{int64(round), int64(i), int64(round * i)}
				atomic.StoreInt32(&r.ready, 1)
			}
		}()
		var got int64
		go func() {
			defer wg.Done()
			for _, r := range recs {
				for atomic.LoadInt32(&r.ready) == 0 {
					runtime.Gosched()
				}
				got += r.payload[0] + r.payload[1] + r.payload[2]
			}
		}()
		wg.Wait()
		sum += got
		runtime.GC()
	}
	fmt.Println("sum", sum)
}
