// WaitGroup: fan-out into per-index slots, WaitGroup.Go, sync.Once and
// sync.OnceValue, atomics.
package main

import (
	"fmt"
	"sync"
	"sync/atomic"
)

var (
	once   sync.Once
	config map[string]int
)

func loadConfig() {
	config = map[string]int{"workers": 4}
}

func main() {
	results := make([]int, 16)
	var wg sync.WaitGroup
	for i := range results {
		wg.Add(1)
		go func() {
			defer wg.Done()
			once.Do(loadConfig)
			results[i] = i * config["workers"]
		}()
	}
	wg.Wait()
	total := 0
	for _, r := range results {
		total += r
	}
	fmt.Println("total", total)

	var hits atomic.Int64
	var plain int64
	for i := 0; i < 10; i++ {
		wg.Go(func() {
			hits.Add(int64(i))
			atomic.AddInt64(&plain, 1)
		})
	}
	wg.Wait()
	fmt.Println("hits", hits.Load(), "plain", atomic.LoadInt64(&plain))

	get := sync.OnceValue(func() string { return "computed once" })
	out := make([]string, 3)
	for i := range out {
		wg.Go(func() { out[i] = get() })
	}
	wg.Wait()
	fmt.Println(out)

	var flag atomic.Bool
	var payload string
	wg.Add(1)
	go func() {
		defer wg.Done()
		payload = "published"
		flag.Store(true)
	}()
	wg.Wait()
	if flag.Load() {
		fmt.Println(payload)
	}
}
