// Mutex: goroutines update shared state under sync.Mutex and sync.RWMutex.
package main

import (
	"fmt"
	"sync"
)

type account struct {
	mu      sync.Mutex
	balance int
	history []int
}

func (a *account) deposit(n int) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.balance += n
	a.history = append(a.history, n)
}

type registry struct {
	mu    sync.RWMutex
	names map[int]string
}

func (r *registry) get(i int) (string, bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	s, ok := r.names[i]
	return s, ok
}

func main() {
	var a account
	var wg sync.WaitGroup
	for i := 1; i <= 8; i++ {
		wg.Add(1)
		go func(n int) {
			defer wg.Done()
			for j := 0; j < 100; j++ {
				a.deposit(n)
			}
		}(i)
	}
	wg.Wait()
	fmt.Println("balance", a.balance, "deposits", len(a.history))

	r := &registry{names: map[int]string{}}
	for i := 0; i < 4; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r.mu.Lock()
			r.names[i] = fmt.Sprint("n", i)
			r.mu.Unlock()
		}()
	}
	wg.Wait()
	found := 0
	for i := 0; i < 6; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, ok := r.get(i); ok {
				a.mu.Lock()
				found++
				a.mu.Unlock()
			}
		}()
	}
	wg.Wait()
	fmt.Println("found", found)
	if a.mu.TryLock() {
		fmt.Println("trylock ok")
		a.mu.Unlock()
	}
}
