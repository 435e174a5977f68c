// A loop writes s[i] and u[i] in one statement; u is shorter, so at i = 5
// the statement panics on u[i] after writing s[5] (Go assigns left to
// right). The goroutine recovers and then signals main, but another
// goroutine read s[5] without synchronizing: the write of s[5] before the
// panic races with that read.
package main

import "fmt"

func fill(s, u []int) {
	for i := 0; i < len(s); i++ {
		s[i], u[i] = 1, 2 // RACE
	}
}

func main() {
	s := make([]int, 10)
	u := make([]int, 5)
	read := make(chan int)
	done := make(chan bool)
	go func() {
		func() {
			defer func() { recover() }()
			fill(s, u)
		}()
		done <- true
	}()
	go func() { read <- s[5] }()
	x := <-read
	<-done
	fmt.Println(x >= 0)
}
