// A loop over s changes s through a pointer half way: from i = 4 on it
// writes the elements of t. Another goroutine reads t[6] without
// synchronizing: the loop's write of t[6] races with it.
package main

import "fmt"

func fill(s, t []int) {
	ps := &s
	for i := 0; i < len(s); i++ {
		s[i] = 7 // RACE
		if i == 3 {
			*ps = t
		}
	}
}

func main() {
	s, t := make([]int, 10), make([]int, 10)
	read := make(chan int)
	done := make(chan bool)
	go func() {
		fill(s, t)
		done <- true
	}()
	go func() { read <- t[6] }()
	x := <-read
	<-done
	fmt.Println(x >= 0)
}
