// Iterpull: iter.Pull and iter.Pull2 run their iterators on coroutines,
// which write memory the caller then reads and writes, and the reverse;
// every switch of control between them is synchronization, so none of
// this races. Also: stop before the end, a Pull consumed by another
// goroutine after a channel handoff, and an iterator that panics.
package main

import (
	"fmt"
	"iter"
	"maps"
	"slices"
	"sync"
)

type node struct {
	val  int
	seen bool
	next *node
}

// all yields the list's nodes, marking each on the coroutine.
func all(n *node) iter.Seq[*node] {
	return func(yield func(*node) bool) {
		for ; n != nil; n = n.next {
			n.seen = true
			n.val++
			if !yield(n) {
				return
			}
		}
	}
}

func list(k int) *node {
	var head *node
	for i := 0; i < k; i++ {
		head = &node{val: i, next: head}
	}
	return head
}

// zip pulls two sequences in step.
func zip(a, b iter.Seq[*node]) int {
	na, sa := iter.Pull(a)
	defer sa()
	nb, sb := iter.Pull(b)
	defer sb()
	sum := 0
	for {
		x, ok1 := na()
		y, ok2 := nb()
		if !ok1 || !ok2 {
			return sum
		}
		x.val *= 2
		y.val *= 3
		sum += x.val + y.val
	}
}

func main() {
	a, b := list(6), list(4)
	fmt.Println("zip", zip(all(a), all(b)))
	for n := a; n != nil; n = n.next {
		fmt.Print(n.val, n.seen, " ")
	}
	fmt.Println()

	// Stop early: the iterator's deferred work runs on its coroutine.
	state := map[string]int{}
	seq := func(yield func(string, int) bool) {
		defer func() { state["done"]++ }()
		for _, k := range []string{"a", "b", "c"} {
			state[k] = len(k)
			if !yield(k, state[k]) {
				return
			}
		}
	}
	next, stop := iter.Pull2(seq)
	k, v, ok := next()
	state[k] += 10
	fmt.Println(k, v, ok)
	stop()
	fmt.Println(slices.Sorted(maps.Keys(state)), state["a"], state["done"])

	// Another goroutine takes over the pull after a channel handoff.
	c := list(5)
	nc, sc := iter.Pull(all(c))
	first, _ := nc()
	first.val = 100
	handoff := make(chan bool)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		<-handoff
		for n, ok := nc(); ok; n, ok = nc() {
			n.val += first.val
		}
		sc()
	}()
	handoff <- true
	wg.Wait()
	for n := c; n != nil; n = n.next {
		fmt.Print(n.val, " ")
	}
	fmt.Println()

	// An iterator that panics: the panic reaches next's caller.
	bad := func(yield func(int) bool) {
		state["bad"] = 1
		yield(1)
		panic("iterator failed")
	}
	nb, sb := iter.Pull(bad)
	defer sb()
	x, _ := nb()
	state["bad"] += x
	func() {
		defer func() { fmt.Println("recovered:", recover(), state["bad"]) }()
		nb()
	}()
}
