// Command errgroup uses golang.org/x/sync/errgroup, whose goroutines are
// started by a dependency the instrumenter does not rewrite: the edges of
// Go and Wait must come from the instrumented calls.
package main

import (
	"fmt"

	"golang.org/x/sync/errgroup"
)

type result struct{ squares []int }

func main() {
	res := &result{squares: make([]int, 8)}
	base := 10 // written before Go, read by the goroutines
	var g errgroup.Group
	for i := range res.squares {
		g.Go(func() error {
			res.squares[i] = i*i + base
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		panic(err)
	}
	sum := 0
	for _, s := range res.squares { // read after Wait
		sum += s
	}
	fmt.Println(sum)
}
