// A captured variable written after the goroutine that reads it started:
// not in the static safe class, so its accesses keep their checks in
// bigfoot mode (placement/safe.go).
package main

import (
	"fmt"
	"sync"
)

func main() {
	limit := 10
	var wg sync.WaitGroup
	wg.Add(1)
	sum := 0
	go func() {
		defer wg.Done()
		for i := 0; i < limit; i++ { // RACE
			sum += i
		}
	}()
	limit = 20
	wg.Wait()
	fmt.Println(sum >= 0)
}
