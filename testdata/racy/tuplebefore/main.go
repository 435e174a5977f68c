// A tuple assignment writes s[5], then panics on u[5] (Go assigns left to
// right), and the caller recovers. Another goroutine reads s[5] without
// synchronizing: the write made before the panic races with that read,
// so its check must come before the later target's store.
package main

import "fmt"

func set(s, u []int, i int) {
	s[i], u[i] = 1, 2 // RACE
}

func main() {
	s := make([]int, 10)
	u := make([]int, 5)
	read := make(chan int)
	go func() { read <- s[5] }()
	func() {
		defer func() { recover() }()
		set(s, u, 5)
	}()
	fmt.Println(<-read >= 0, s[5])
}
