// A goroutine bumps a counter it allocated through a method, first while
// no other goroutine can reach it (bigfoot calls a copy of the method
// without checks: unpublished objects), then after sending it to main,
// which reads it: the last bump races with main's read.
package main

import "fmt"

type counter struct{ n int }

func (c *counter) bump() { c.n++ } // RACE

func work(ch chan *counter) {
	c := &counter{}
	for i := 0; i < 10; i++ {
		c.bump()
	}
	ch <- c
	c.bump()
}

func main() {
	ch := make(chan *counter, 1)
	go work(ch)
	c := <-ch
	fmt.Println(c.n >= 10)
}
