package main

import (
	"fmt"
	"time"
)

type box struct{ ch chan int }

func producer(n int) <-chan int {
	ch := make(chan int)
	go func() {
		defer close(ch)
		for i := 0; i < n; i++ {
			ch <- i
		}
	}()
	return ch
}

// chans exercises channel operations, select and range over channels.
func chans() {
	sum := 0
	for v := range producer(4) {
		sum += v
	}
	var x int
	done := make(chan bool)
	go func() {
		x = 1
		done <- true
	}()
	<-done
	x++
	b := &box{ch: make(chan int, 2)}
	b.ch <- 1
	b.ch <- x
	y, ok := <-b.ch
	z := <-b.ch
	close(b.ch)
	_, ok2 := <-b.ch
	results := make(chan int, 1)
	timeout := time.After(time.Hour)
	shared := 0
	go func() {
		shared = 5
		results <- shared
	}()
	select {
	case r := <-results:
		sum += r
	case <-timeout:
		sum = -1
	}
	sum += shared
	quit := make(chan struct{})
	out := make(chan int, 1)
	closed := false
loop:
	for i := 0; ; i++ {
		select {
		case out <- i:
		case v := <-out:
			if v > 2 && !closed {
				close(quit)
				closed = true
			}
		case <-quit:
			break loop
		}
	}
	var recvd int
	c2 := make(chan int, 1)
	c2 <- 9
	select {
	case recvd = <-c2:
	default:
	}
	for range producer(2) {
	}
	fmt.Println(sum, x, y, ok, z, ok2, recvd)
}
