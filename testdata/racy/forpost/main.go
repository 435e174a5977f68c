// A for statement's post statement assigns a call's result to a field,
// l.cur = l.next(i), and the call may synchronize (it takes a lock), so
// the write's check follows the call: in a post statement, that once
// meant no check at all. Another goroutine writes l.cur without
// synchronizing.
package main

import (
	"fmt"
	"sync"
	"time"
)

type list struct {
	mu  sync.Mutex
	cur int
}

func (l *list) next(i int) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return i + 1
}

func (l *list) walk() int {
	k := 0
	for i := 0; i < 3; l.cur = l.next(i) { // RACE
		i++
		k += i
	}
	return k
}

func main() {
	l := &list{}
	done := make(chan bool)
	go func() { l.walk(); done <- true }()
	time.Sleep(50 * time.Millisecond)
	l.cur = 7
	<-done
	fmt.Println(l.cur)
}
