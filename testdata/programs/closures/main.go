// Closures: captured variables shared with goroutines, counters returned
// from functions, method values and method expressions.
package main

import (
	"fmt"
	"strings"
	"sync"
)

type greeter struct{ prefix string }

func (g greeter) greet(name string) string { return g.prefix + " " + name }
func (g *greeter) set(p string)            { g.prefix = p }

func counter() (func() int, func() int) {
	n := 0
	return func() int { n++; return n }, func() int { return n }
}

func apply(fs []func(int) int, x int) int {
	for _, f := range fs {
		x = f(x)
	}
	return x
}

func main() {
	inc, get := counter()
	inc()
	inc()
	fmt.Println("counter", get())

	var mu sync.Mutex
	var parts []string
	var wg sync.WaitGroup
	words := []string{"alpha", "beta", "gamma"}
	for i, w := range words {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s := strings.ToUpper(w)
			mu.Lock()
			parts = append(parts, fmt.Sprint(i, s))
			mu.Unlock()
		}()
	}
	wg.Wait()
	fmt.Println("parts", len(parts))

	g := &greeter{prefix: "hi"}
	f := g.greet
	g.set("hello")
	fmt.Println(f("a"), g.greet("b"))
	h := (*greeter).set
	h(g, "hey")
	fmt.Println(greeter.greet(*g, "c"))

	fs := []func(int) int{
		func(x int) int { return x + 1 },
		func(x int) int { return x * 3 },
	}
	k := 5
	fs = append(fs, func(x int) int { k += x; return k })
	fmt.Println("apply", apply(fs, 2), k)

	var fib func(int) int
	fib = func(n int) int {
		if n < 2 {
			return n
		}
		return fib(n-1) + fib(n-2)
	}
	fmt.Println("fib", fib(15))

	result := make(chan int)
	go func(base int) {
		result <- base * k
	}(7)
	fmt.Println("goroutine arg", <-result)
}
