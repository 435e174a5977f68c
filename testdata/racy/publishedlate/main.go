// A goroutine builds a node whose fields it writes before sending it to
// main (no check is needed there: no other goroutine can reach the node
// yet, bigfoot's unpublished objects) and writes one again after the
// send, while main reads it: that write races with main's read.
package main

import "fmt"

type node struct {
	v    int
	next *node
}

func build(ch chan *node, n int) {
	head := &node{v: -1}
	for i := 0; i < n; i++ {
		head = &node{v: i, next: head}
		head.v += head.next.v
	}
	ch <- head
	head.v = 42 // RACE
}

func main() {
	ch := make(chan *node, 1)
	go build(ch, 100)
	n := <-ch
	s := 0
	for p := n; p != nil; p = p.next {
		s += p.v
	}
	fmt.Println(s != 0)
}
