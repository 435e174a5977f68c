// Command tricky exercises the rewrites that restructure statements:
// labels and goto around hoisted temporaries, select forms, go and defer
// forms, assignments whose right-hand side synchronizes.
package main

import (
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"
)

type inner struct{ v int }

func (in inner) value() int { return in.v }

type outer struct {
	*inner
	name string
}

type pair struct{ a, b int }

var (
	results = map[string]int{}
	resMu   sync.Mutex
	hook    = func(s string) string { return strings.ToUpper(s) }
	order   []string
)

func init() {
	order = append(order, "init")
}

func record(k string, v int) {
	resMu.Lock()
	defer resMu.Unlock()
	results[k] = v
}

func sum(xs ...int) int {
	t := 0
	for _, x := range xs {
		t += x
	}
	return t
}

func (p *pair) swap() { p.a, p.b = p.b, p.a }

func gotoAndLabels() {
	ch := make(chan int, 1)
	i := 0
retry:
	i++
	if i < 3 {
		goto retry
	}
	var wg sync.WaitGroup
	wg.Add(1)
	go func(xs ...int) {
		defer wg.Done()
		record("variadic", sum(xs...))
	}(1, 2, i)
	wg.Wait()
	n := 0
	goto sel
sel:
	select {
	case ch <- i * 10:
		n++
		if n < 2 {
			goto sel
		}
	case v := <-ch:
		record("sel", v)
		n++
		goto sel
	case <-time.After(time.Hour):
	}
	record("n", n)
}

func selects() {
	m := map[string]int{}
	var p pair
	c := make(chan int, 2)
	c <- 4
	c <- 5
	var mu sync.Mutex
	done := make(chan struct{})
	go func() {
		mu.Lock()
		p.a = 1
		mu.Unlock()
		close(done)
	}()
	<-done
	select {
	case m["x"] = <-c:
	}
	select {
	case p.b = <-c:
	}
	var ok bool
	c <- 6
	select {
	case p.a, ok = <-c:
	}
	src := make(chan int, 1)
	src <- 7
	dst := make(chan int, 1)
	select {
	case dst <- <-src:
	}
	record("selects", m["x"]+p.a+p.b+<-dst)
	_ = ok
	p.swap()
	record("swap", p.a*10+p.b)
}

func goForms() {
	var wg sync.WaitGroup
	o := outer{inner: &inner{v: 3}, name: "o"}
	wg.Add(3)
	go func() { defer wg.Done(); record("promoted", o.value()) }()
	get := o.value
	go func(f func() int) { defer wg.Done(); record("mv", f()) }(get)
	c := make(chan int)
	go close(c)
	go wg.Done()
	wg.Wait()
	_, open := <-c
	record("closed", map[bool]int{true: 1, false: 0}[open])
	arr := [3]pair{{1, 2}, {3, 4}, {5, 6}}
	pa := &arr
	cp := pa[1]
	pa[2] = cp
	var x, y int
	fin := make(chan int, 1)
	go func() { x = 1; fin <- 2 }()
	y = <-fin + x
	x += <-fin2(fin)
	record("copies", arr[2].a+y+x)
	hook2 := hook
	record(hook2("k"), len(order))
}

func fin2(c chan int) chan int { c <- 3; return c }

func loops() {
	seq := func(yield func(int) bool) {
		for i := range 5 {
			if !yield(i) {
				return
			}
		}
	}
	total := 0
	var mu sync.Mutex
	var wg sync.WaitGroup
	for v := range seq {
		if v == 3 {
			break
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			mu.Lock()
			total += v
			mu.Unlock()
		}()
	}
	wg.Wait()
	work := make(chan int)
	go func() {
		defer close(work)
		for i := range 4 {
			work <- i
		}
	}()
outer:
	for w := range work {
		switch {
		case w == 1:
			continue outer
		case w == 3:
			total += 100
			fallthrough
		default:
			total += w
		}
	}
	record("loops", total)
}

func main() {
	gotoAndLabels()
	selects()
	goForms()
	loops()
	var keys []string
	for k := range results {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Println(k, results[k])
	}
}
