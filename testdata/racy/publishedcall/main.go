// A goroutine bumps a counter it allocated through a method, first while
// no other goroutine can reach it (bigfoot calls a copy of the method
// without checks: unpublished objects), then after sending it to main,
// which reads it: the last bump races with main's read. main waits for
// the goroutine's end after its read, so that the bump is made in every
// run.
package main

import "fmt"

type counter struct{ n int }

func (c *counter) bump() { c.n++ } // RACE

func work(ch chan *counter, done chan struct{}) {
	defer close(done)
	c := &counter{}
	for i := 0; i < 10; i++ {
		c.bump()
	}
	ch <- c
	c.bump()
}

func main() {
	ch, done := make(chan *counter, 1), make(chan struct{})
	go work(ch, done)
	c := <-ch
	ok := c.n >= 10
	<-done
	fmt.Println(ok)
}
