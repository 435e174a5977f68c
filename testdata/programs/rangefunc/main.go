// Rangefunc: range over functions (iter.Seq, iter.Seq2), early exit,
// defer inside the loop body, and iterators fed by goroutines.
package main

import (
	"fmt"
	"iter"
	"maps"
	"slices"
	"sync"
)

func count(n int) iter.Seq[int] {
	return func(yield func(int) bool) {
		for i := 0; i < n; i++ {
			if !yield(i) {
				return
			}
		}
	}
}

func enumerate[T any](xs []T) iter.Seq2[int, T] {
	return func(yield func(int, T) bool) {
		for i, x := range xs {
			if !yield(i, x) {
				return
			}
		}
	}
}

func collect() (out []int) {
	defer func() { out = append(out, 99) }()
	for i := range count(10) {
		if i == 4 {
			return out
		}
		out = append(out, i)
	}
	return nil
}

func main() {
	for i := range count(3) {
		fmt.Println("count", i)
	}
	for i, s := range enumerate([]string{"x", "y", "z"}) {
		if s == "z" {
			break
		}
		fmt.Println(i, s)
	}
	fmt.Println(collect())

	var mu sync.Mutex
	var wg sync.WaitGroup
	total := map[int]int{}
	for w := range count(4) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range count(w + 1) {
				mu.Lock()
				total[w] += i
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	for _, k := range slices.Sorted(maps.Keys(total)) {
		fmt.Println("total", k, total[k])
	}
	fmt.Println(slices.Collect(maps.Values(map[int]int{1: 1})))
	for range 2 {
		fmt.Println("range int")
	}
}
