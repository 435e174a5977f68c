// Receivers: the copies of value receivers read through pointers, in
// calls, method values, go and defer statements; the same through a
// pointer to an object no other goroutine reaches; named results that a
// goroutine reads, stored by return statements; maps and byte strings
// only this function sees. Race-free: every program of testdata/programs
// prints what go run prints, in every mode, and bigfoot analyze's plan of
// it is what the overlay contains (TestAnalyzePlanMatchesOverlay).
package main

import (
	"fmt"
	"sync"
)

type point struct{ x, y int }

func (p point) sum() int { return p.x + p.y }

func (p point) show(wg *sync.WaitGroup, out *[]string, mu *sync.Mutex) {
	defer wg.Done()
	mu.Lock()
	*out = append(*out, fmt.Sprint("show ", p.x, p.y))
	mu.Unlock()
}

var shared = &point{1, 2}

// calls copies *shared through calls, a method value, a go and a defer
// statement.
func calls() (total int) {
	var wg sync.WaitGroup
	var mu sync.Mutex
	var out []string
	total = shared.sum()
	f := shared.sum
	total += f()
	wg.Add(1)
	go shared.show(&wg, &out, &mu)
	wg.Wait()
	defer func() { total += len(out) }()
	wg.Add(1)
	defer shared.show(&wg, &out, &mu)
	return total + 1
}

// fresh copies a point only this function has.
func fresh() int {
	p := &point{3, 4}
	g := p.sum
	return p.sum() + g()
}

// results returns through named results a goroutine reads, after it is
// done.
func results() (n int, err error) {
	done := make(chan bool)
	go func() {
		fmt.Println("results before", n, err)
		done <- true
	}()
	<-done
	if n > 0 {
		return n, nil
	}
	return 7, fmt.Errorf("none")
}

// counts ranges over maps: its own and a shared one.
var totals = map[string]int{"a": 1}

func counts(words []string) int {
	m := map[string]int{}
	for _, w := range words {
		m[w]++
	}
	n := 0
	for _, v := range m {
		n += v
	}
	for _, v := range totals {
		n += v
	}
	return n + len(m)
}

// first indexes a byte string of either kind.
func first[S ~string | ~[]byte](s S) byte { return s[0] }

func main() {
	fmt.Println("calls", calls())
	fmt.Println("fresh", fresh())
	fmt.Println(results())
	fmt.Println("counts", counts([]string{"x", "y", "x"}))
	b := []byte("bytes")
	fmt.Println("first", first("str"), first(b))
}
