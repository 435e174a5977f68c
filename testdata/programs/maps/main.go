// Maps: built-in maps under a mutex, delete, clear, sync.Map, map of
// structs and sorted output.
package main

import (
	"fmt"
	"maps"
	"slices"
	"sync"
)

type point struct{ x, y int }

func main() {
	counts := map[string]int{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	words := []string{"a", "b", "a", "c", "b", "a"}
	for _, w := range words {
		wg.Add(1)
		go func() {
			defer wg.Done()
			mu.Lock()
			counts[w]++
			mu.Unlock()
		}()
	}
	wg.Wait()
	for _, k := range slices.Sorted(maps.Keys(counts)) {
		fmt.Println(k, counts[k])
	}
	delete(counts, "a")
	fmt.Println("after delete", len(counts))
	clear(counts)
	fmt.Println("after clear", len(counts))

	var sm sync.Map
	for i := 0; i < 5; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sm.Store(i, i*i)
		}()
	}
	wg.Wait()
	v, _ := sm.Load(3)
	actual, loaded := sm.LoadOrStore(3, 100)
	fmt.Println("sync.Map", v, actual, loaded)
	n := 0
	sm.Range(func(k, v any) bool { n++; return true })
	fmt.Println("entries", n)

	grid := map[point][]int{}
	for i := 0; i < 3; i++ {
		p := point{i, i % 2}
		grid[p] = append(grid[p], i)
	}
	keys := slices.SortedFunc(maps.Keys(grid), func(a, b point) int { return a.x - b.x })
	for _, k := range keys {
		fmt.Println(k, grid[k])
	}
	m2 := maps.Clone(map[int]int{1: 2})
	m2[3] = 4
	fmt.Println(len(m2), m2[1], m2[3])
}
