package main

import (
	"fmt"
	"sync"
)

type S struct {
	mu sync.Mutex
	n  int
	m  map[string]int
	xs []int
}

var global int

func main() {
	s := &S{m: map[string]int{}}
	var wg sync.WaitGroup
	for i := 0; i < 4; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s.mu.Lock()
			s.n++
			s.m[fmt.Sprint(i)] = i
			s.xs = append(s.xs, i)
			global += i
			s.mu.Unlock()
		}()
	}
	wg.Wait()
	ch := make(chan int, 1)
	ch <- 5
	x := <-ch
	fmt.Println(s.n, len(s.m), len(s.xs), global, x)
}
