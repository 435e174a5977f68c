// Command cgorace races on a package-level variable in a package whose
// only file imports "C" (issue 13, item 7): a goroutine writes it while
// main increments it, with no synchronization between them.
package main

/*
static int twice(int x) { return 2 * x; }
*/
import "C"

import (
	"fmt"
	"time"
)

var counter int

func main() {
	done := make(chan bool)
	go func() {
		counter = int(C.twice(21))
		done <- true
	}()
	time.Sleep(10 * time.Millisecond)
	counter++
	<-done
	fmt.Println("counter", counter > 0)
}
