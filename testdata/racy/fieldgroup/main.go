// A goroutine writes the three fields of a point, which bigfoot mode
// checks with one field-group check made at p.z, while main reads p.x with
// no synchronization: the race on the group's first field must be found.
package main

import (
	"fmt"
	"sync"
)

type point struct{ x, y, z float64 }

func set(p *point) {
	p.x = 1
	p.y = 2
	p.z = p.x + p.y
}

func main() {
	p := &point{}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		set(p)
	}()
	x := p.x // RACE
	wg.Wait()
	fmt.Println(x >= 0)
}
