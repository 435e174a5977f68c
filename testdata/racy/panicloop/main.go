// A loop writes elements and panics half way; the goroutine recovers and
// then signals main over a channel, but main read an element before
// waiting: the writes before the panic race with that read.
package main

import "fmt"

func writeUntilBad(a []int) {
	for i := range a {
		if i == 600 {
			panic("bad element")
		}
		a[i] = 1 // RACE
	}
}

func main() {
	a := make([]int, 1000)
	read := make(chan int)
	done := make(chan bool)
	go func() {
		func() {
			defer func() { recover() }()
			writeUntilBad(a)
		}()
		done <- true
	}()
	go func() { read <- a[100] }()
	x := <-read
	<-done
	fmt.Println(x >= 0)
}
