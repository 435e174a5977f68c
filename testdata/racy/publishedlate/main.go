// A goroutine builds a node whose fields it writes before sending it to
// main (no check is needed there: no other goroutine can reach the node
// yet, bigfoot's unpublished objects) and writes one again after the
// send, while main reads it: that write races with main's read. main
// waits for the goroutine's end (after its read), so that the write is
// made in every run; the wait orders nothing before the read.
package main

import "fmt"

type node struct {
	v    int
	next *node
}

func build(ch chan *node, done chan struct{}, n int) {
	defer close(done)
	head := &node{v: -1}
	for i := 0; i < n; i++ {
		head = &node{v: i, next: head}
		head.v += head.next.v
	}
	ch <- head
	head.v = 42 // RACE
}

func main() {
	ch, done := make(chan *node, 1), make(chan struct{})
	go build(ch, done, 100)
	n := <-ch
	s := 0
	for p := n; p != nil; p = p.next {
		s += p.v
	}
	<-done
	fmt.Println(s != 0)
}
