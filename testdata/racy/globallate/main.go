// A package-level variable written by main after a goroutine that reads
// it started: not in the static safe class (placement/safe.go).
package main

import (
	"fmt"
	"sync"
)

var scale = 2

func main() {
	var wg sync.WaitGroup
	wg.Add(1)
	total := 0
	go func() {
		defer wg.Done()
		for i := 0; i < 100; i++ {
			total += i * scale // RACE
		}
	}()
	scale = 3
	wg.Wait()
	fmt.Println(total >= 0)
}
