package main

import (
	"errors"
	"fmt"
	"sync"
)

type myErr struct{ msg string }

func (e *myErr) Error() string { return e.msg }

type name string

type rwLocker interface {
	sync.Locker
	RLock()
	RUnlock()
}

type bytesT []byte

// pitfalls exercises rewrites where generic helpers must not change how
// Go assigns values: elements to []any, values to chan error, named
// strings and slices, user interfaces embedding sync.Locker.
func pitfalls() {
	var mu sync.RWMutex
	var l rwLocker = &mu
	lock := l.Lock
	unlock := l.Unlock
	lock()
	unlock()
	errs := make(chan error, 2)
	errs <- &myErr{"boom"}
	errs <- nil
	e1, e2 := <-errs, <-errs
	var xs []any
	xs = append(xs, 1, "two", e1)
	xs = append(xs,
		// a comment between the slice and the elements
		3.5)
	n := name("xyz")
	b := make(bytesT, 2)
	k := copy(b, n)
	b = append(b, n...)
	var target *myErr
	fmt.Println(errors.As(e1, &target), e2 == nil, xs, k, string(b), target.msg)
	var once sync.Once
	do := once.Do
	do(func() { fmt.Println("once") })
	var wg sync.WaitGroup
	add, done, wait := wg.Add, wg.Done, wg.Wait
	add(1)
	go done()
	wait()
	// A typed constant of another type than the parameter's converts
	// at the call: the go statement must not pass it as its own type.
	add(1)
	go func(err error) { defer done(); fmt.Println(err) }(constErr("typed constant"))
	wait()
}

type constErr string

func (e constErr) Error() string { return string(e) }
