// Package shadow redeclares builtins that emitted code used to need in the
// instrumented package.
package shadow

import "sync"

func copy(dst, src []int) int { return -1 }

func min(a, b int) int { return a }

func cap(x []int) int { return 0 }

// Run copies, appends and sends from two goroutines.
func Run() int {
	xs := make([]int, 4)
	ys := []int{1, 2, 3}
	var wg sync.WaitGroup
	ch := make(chan int, 2)
	wg.Add(1)
	go func() {
		defer wg.Done()
		n := copy(xs, ys)
		xs = append(xs, n)
		ch <- min(len(xs), 10)
	}()
	wg.Wait()
	v := <-ch
	return v + len(xs) + cap(xs)
}
