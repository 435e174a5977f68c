// A counting loop over the fields of struct elements is left by break;
// another goroutine reads a field it wrote, ordered with nothing. Bigfoot
// mode checks the loop's static range of the field when the function
// returns.
package main

import "fmt"

type cell struct{ a, b int }

func writeUntil(cs []cell, stop int) {
	for i := 0; i < len(cs); i++ {
		if i == stop {
			break
		}
		cs[i].b = i // RACE
	}
}

func main() {
	cs := make([]cell, 1000)
	done := make(chan int)
	go func() { done <- cs[100].b }()
	writeUntil(cs, 600)
	fmt.Println(<-done >= 0)
}
