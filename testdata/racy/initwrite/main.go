// An if statement's init assigns a call's second result to a field,
// _, z.err = z.header(), and the condition reads another field. The call
// may synchronize (it reads through an interface), so the write's check
// follows it, after the statement: in an init, that once meant no check
// at all. Another goroutine writes z.err without synchronizing.
package main

import (
	"fmt"
	"io"
	"strings"
	"time"
)

type reader struct {
	r   io.Reader
	err error
	n   int
}

func (z *reader) header() (int, error) {
	var b [1]byte
	return z.r.Read(b[:])
}

func (z *reader) next() int {
	if _, z.err = z.header(); z.n > 0 { // RACE
		return 0
	}
	return 1
}

func main() {
	z := &reader{r: strings.NewReader("ab")}
	done := make(chan bool)
	go func() { z.next(); done <- true }()
	time.Sleep(50 * time.Millisecond)
	z.err = io.EOF
	<-done
	fmt.Println(z.err)
}
