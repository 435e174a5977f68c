// Generics: generic functions and types shared between goroutines,
// constraints, generic methods and instantiation with struct types.
package main

import (
	"cmp"
	"fmt"
	"sync"
)

type Number interface {
	~int | ~int64 | ~float64
}

func Sum[T Number](xs []T) T {
	var s T
	for _, x := range xs {
		s += x
	}
	return s
}

func Map[T, U any](xs []T, f func(T) U) []U {
	out := make([]U, 0, len(xs))
	for _, x := range xs {
		out = append(out, f(x))
	}
	return out
}

// SafeStack is a stack guarded by a mutex.
type SafeStack[T any] struct {
	mu    sync.Mutex
	items []T
}

func (s *SafeStack[T]) Push(v T) {
	s.mu.Lock()
	s.items = append(s.items, v)
	s.mu.Unlock()
}

func (s *SafeStack[T]) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.items)
}

type Pair[K comparable, V any] struct {
	Key K
	Val V
}

func MaxBy[T any, K cmp.Ordered](xs []T, key func(T) K) T {
	best := xs[0]
	for _, x := range xs[1:] {
		if key(x) > key(best) {
			best = x
		}
	}
	return best
}

type myInt int

func main() {
	fmt.Println(Sum([]int{1, 2, 3}), Sum([]float64{0.5, 0.25}), Sum([]myInt{4, 5}))
	fmt.Println(Map([]int{1, 2, 3}, func(i int) string { return fmt.Sprint("#", i) }))

	var st SafeStack[Pair[string, int]]
	var wg sync.WaitGroup
	for i := 0; i < 10; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			st.Push(Pair[string, int]{fmt.Sprint("k", i), i})
		}()
	}
	wg.Wait()
	fmt.Println("stack", st.Len())
	best := MaxBy(st.items, func(p Pair[string, int]) int { return p.Val })
	fmt.Println("max", best.Key, best.Val)
}
