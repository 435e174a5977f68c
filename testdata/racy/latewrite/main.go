// Writes whose right-hand side may panic are checked after the store: the
// check must still be made when the right-hand side does not panic. main
// writes p.n from an index expression while another goroutine reads it.
package main

import "fmt"

type box struct{ n int }

func set(p *box, table []int, i int) {
	p.n = table[i] // RACE
}

func main() {
	p := &box{}
	read := make(chan int)
	go func() { read <- p.n }()
	set(p, []int{1, 2, 3}, 2)
	fmt.Println(<-read >= 0)
}
