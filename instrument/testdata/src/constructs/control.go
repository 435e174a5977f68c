package main

import (
	"errors"
	"fmt"
	"iter"
	"os"
	"runtime"
)

type number interface{ ~int | ~float64 }

type list[T any] struct {
	items []T
}

func (l *list[T]) push(v T) { l.items = append(l.items, v) }

func (l *list[T]) all() iter.Seq2[int, T] {
	return func(yield func(int, T) bool) {
		for i, v := range l.items {
			if !yield(i, v) {
				return
			}
		}
	}
}

func sum[T number](xs []T) (s T) {
	for _, x := range xs {
		s += x
	}
	return
}

type ctr struct{ n int }

func (c ctr) get() int { return c.n }
func (c *ctr) inc()    { c.n++ }

func named() (res int, err error) {
	defer func() {
		if r := recover(); r != nil {
			res, err = -1, fmt.Errorf("recovered: %v", r)
		}
	}()
	var m map[string]int
	m["boom"] = 1 // panics: assignment to nil map
	return 1, nil
}

//go:noinline
func control() {
	l := &list[string]{}
	l.push("a")
	l.push("b")
	for i, v := range l.all() {
		fmt.Print(i, v, " ")
	}
	fmt.Println(sum([]int{1, 2, 3}), sum([]float64{1.5, 2}))
	i := 0
again:
	if i < 3 {
		i++
		goto again
	}
	c := &ctr{}
	inc := c.inc
	inc()
	get := c.get
	c.inc()
	fmt.Println(i, get(), c.get())
	switch x := i * 2; {
	case x > 4:
		fmt.Println("big", x)
	default:
		fmt.Println("small", x)
	}
	var e error = errors.New("e")
	switch e := e.(type) {
	case interface{ Unwrap() error }:
		fmt.Println("wraps", e)
	default:
		fmt.Println("plain", e)
	}
	res, err := named()
	fmt.Println(res, err)
	runtime.Gosched()
	go fmt.Sprint("go statement with a package function")
	if len(os.Args) > 5 {
		os.Exit(3)
	}
}

func main() {
	accesses()
	ranges()
	syncs()
	chans()
	control()
	pitfalls()
}
