// Channels: unbuffered and buffered channels, close and range, select with
// and without default, a pipeline and a semaphore.
package main

import "fmt"

func producer(n int) <-chan int {
	out := make(chan int)
	go func() {
		defer close(out)
		for i := 0; i < n; i++ {
			out <- i
		}
	}()
	return out
}

func square(in <-chan int) <-chan int {
	out := make(chan int, 4)
	go func() {
		for v := range in {
			out <- v * v
		}
		close(out)
	}()
	return out
}

func main() {
	sum := 0
	for v := range square(producer(10)) {
		sum += v
	}
	fmt.Println("sum of squares", sum)

	// Data handed over through a channel.
	data := make([]int, 5)
	done := make(chan struct{})
	go func() {
		for i := range data {
			data[i] = i * 10
		}
		done <- struct{}{}
	}()
	<-done
	fmt.Println("data", data)

	// Semaphore with a buffered channel.
	sem := make(chan int, 2)
	results := make(chan string, 6)
	for i := 0; i < 6; i++ {
		go func() {
			sem <- i
			results <- fmt.Sprint("job", i)
			<-sem
		}()
	}
	got := map[string]bool{}
	for i := 0; i < 6; i++ {
		got[<-results] = true
	}
	fmt.Println("jobs", len(got))

	// Select.
	a, b := make(chan int), make(chan string)
	quit := make(chan bool)
	go func() {
		for i := 0; i < 3; i++ {
			a <- i
		}
		b <- "hello"
		close(quit)
	}()
	var log []string
	for running := true; running; {
		select {
		case v := <-a:
			log = append(log, fmt.Sprint("a", v))
		case s, ok := <-b:
			log = append(log, fmt.Sprint("b", s, ok))
		case <-quit:
			running = false
		}
	}
	fmt.Println("select", log)

	full := make(chan int, 1)
	full <- 1
	select {
	case full <- 2:
		fmt.Println("sent")
	default:
		fmt.Println("full")
	}
	v, ok := <-full
	fmt.Println("recv", v, ok, len(full), cap(full))
	close(full)
	v, ok = <-full
	fmt.Println("closed", v, ok)
}
