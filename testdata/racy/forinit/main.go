// A for statement's init assigns a call's result to a field,
// l.cur = l.first(), and the call may synchronize (it takes a lock), so
// the write's check follows the call: in an init, that once meant no
// check at all. Another goroutine writes l.cur without synchronizing.
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

func (l *list) first() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return 1
}

func (l *list) walk() int {
	k := 0
	for l.cur = l.first(); k < 3; k++ { // RACE
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
