// Deps: goroutines started by a dependency (golang.org/x/sync/errgroup),
// which bigfoot does not instrument, writing into per-index slots that the
// parent allocated before starting them and reads after Wait.
package main

import (
	"fmt"

	"golang.org/x/sync/errgroup"
)

func main() {
	var g errgroup.Group
	res := make([]int, 4)
	for i := range res {
		g.Go(func() error {
			res[i] = i * i
			return nil
		})
	}
	err := g.Wait()
	fmt.Println(err, res)
}
