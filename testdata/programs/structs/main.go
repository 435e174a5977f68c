// Structs: struct and array copies, slices aliasing arrays, append and copy,
// string conversions, adjacent fields written by different goroutines.
package main

import (
	"fmt"
	"sync"
)

type vec struct{ x, y, z float64 }

type particle struct {
	pos, vel vec
	tag      [4]byte
	hits     int
}

func step(p particle) particle {
	p.pos.x += p.vel.x
	p.pos.y += p.vel.y
	p.hits++
	return p
}

func main() {
	a := particle{pos: vec{1, 2, 3}, vel: vec{0.5, 0.5, 0}, tag: [4]byte{'a', 'b'}}
	b := a
	b = step(b)
	fmt.Println(a.pos, b.pos, a.hits, b.hits, string(b.tag[:2]))

	arr := [5]int{1, 2, 3, 4, 5}
	arr2 := arr
	arr2[0] = 100
	s := arr[1:4]
	s[0] = 20
	fmt.Println(arr, arr2, s, len(s), cap(s))

	s = append(s, 40)
	fmt.Println(arr, s)
	s = append(s, 50, 60)
	s[0] = -1
	fmt.Println(arr, s)
	dst := make([]int, 3)
	n := copy(dst, arr[:])
	fmt.Println(n, dst)

	bs := []byte("hello")
	str := string(bs)
	bs[0] = 'j'
	fmt.Println(str, string(bs), []rune("héllo")[1])

	// Adjacent fields and elements owned by different goroutines.
	var ps [4]particle
	var wg sync.WaitGroup
	for i := range ps {
		wg.Add(2)
		go func() {
			defer wg.Done()
			ps[i].pos.x = float64(i)
		}()
		go func() {
			defer wg.Done()
			ps[i].hits = i * 2
		}()
	}
	wg.Wait()
	for _, p := range ps {
		fmt.Print(p.pos.x, " ", p.hits, "; ")
	}
	fmt.Println()

	grid := make([][]int, 3)
	for i := range grid {
		grid[i] = make([]int, 3)
	}
	for i := range grid {
		wg.Add(1)
		go func(row []int) {
			defer wg.Done()
			for j := range row {
				row[j] = i*3 + j
			}
		}(grid[i])
	}
	wg.Wait()
	fmt.Println(grid)
}
