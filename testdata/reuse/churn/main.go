// Three goroutines each allocate short-lived slices in a loop, fill them,
// read them back and drop them, with runtime.GC every 50 iterations and
// runtime.Gosched every iteration. The program is race-free: every slice
// is used by the one goroutine that allocated it. The garbage collector
// reuses the memory of one goroutine's dead slices for another's new ones,
// so a detector that checks deferred accesses after the memory was reused
// reports a false race.
package main

import (
	"fmt"
	"runtime"
	"sync"
)

// churn allocates, fills, reads back and drops iters slices of each kind
// and returns a checksum.
func churn(id, iters int) int {
	sum := 0
	for it := 0; it < iters; it++ {
		// Fixed sizes: consecutive slices of one goroutine lie back to
		// back in one span, where another goroutine's may follow.
		n, m := 64, 256
		s := make([]int, n)
		b := make([]byte, m)
		v := make([]int32, 8+(it*7+id*13)%120) // and varying sizes
		for i := range v {
			v[i] = int32(i)
		}
		sum += int(v[len(v)-1])
		for i := range s {
			s[i] = i * id
		}
		for i := range b {
			b[i] = byte(i + id)
		}
		for i := range s {
			sum += s[i]
		}
		for i := range b {
			sum += int(b[i])
		}
		if it%50 == 0 {
			runtime.GC()
		}
		runtime.Gosched()
	}
	return sum
}

func main() {
	const workers, iters = 3, 400
	sums := make([]int, workers)
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sums[w] = churn(w+1, iters)
		}()
	}
	wg.Wait()
	total := 0
	for _, s := range sums {
		total += s
	}
	fmt.Println(total)
}
