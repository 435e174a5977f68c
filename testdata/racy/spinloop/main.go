// A goroutine spins forever writing one element, never synchronizing;
// main reads it without synchronization after a while and exits.
package main

import (
	"fmt"
	"time"
)

func spin(a []int) {
	for {
		a[0]++ // RACE
	}
}

func main() {
	a := make([]int, 4)
	go spin(a)
	time.Sleep(100 * time.Millisecond)
	fmt.Println(a[0] >= 0)
}
