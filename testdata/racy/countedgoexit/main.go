// A goroutine writes elements in a counting loop of step 2 and ends itself
// with runtime.Goexit from inside the loop; main reads an element without
// waiting for it. Bigfoot mode checks the loop's static range when the
// goroutine ends.
package main

import (
	"fmt"
	"runtime"
	"time"
)

func writeThenExit(a []int) {
	for i := 0; i+1 < len(a); i += 2 {
		a[i] = 2 // RACE
		if i == 700 {
			runtime.Goexit()
		}
	}
}

func main() {
	a := make([]int, 1000)
	go writeThenExit(a)
	time.Sleep(50 * time.Millisecond)
	fmt.Println(a[10] >= 0)
}
