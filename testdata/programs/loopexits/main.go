// Loopexits leaves loops over slices in every way Go allows while other
// goroutines use the same arrays after synchronizing: break, return,
// goto, a labeled continue or break of an outer loop, a recovered panic
// and runtime.Goexit, in counting loops with steps 1, 2 and -1, index
// range loops, and loops whose body calls functions. Bigfoot mode gives
// such loops static ranges whose checks the runtime makes when the loop
// is left; built with the tag bigfoot_verify, every access must be
// covered and every check legitimate (cmd/bigfoot TestVerifyLoopExits).
package main

import (
	"fmt"
	"runtime"
	"sync"
)

type particle struct{ x, v float64 }

func firstNegative(a []int) int {
	for i := 0; i < len(a); i++ {
		x := a[i]
		if x < 0 {
			return i
		}
	}
	return -1
}

func fillUntil(a []int, stop int) {
	for i := 0; i < len(a); i += 2 {
		if i >= stop {
			break
		}
		a[i] = i
		a[i+1] = -i
	}
}

func withGoto(a []int) int {
	n := 0
	for i := len(a) - 1; i >= 0; i-- {
		n += a[i]
		if n > 1000 {
			goto out
		}
	}
	return n
out:
	return -n
}

func rows(g [][]int) int {
	s := 0
outer:
	for r := range g {
		row := g[r]
		for j := 0; j < len(row); j++ {
			v := row[j]
			if v == 7 {
				continue outer
			}
			if v == 9 {
				break outer
			}
			s += v
		}
	}
	return s
}

// A grid is a matrix of fixed size, reached through a pointer.
type grid [6][5]int

// gridSum sums the rows of g through a pointer to nested arrays, leaving
// the inner loop by break and by a continue of the outer one, and reads
// row 0 again for each row: the range of g[0][j] is reopened inside its
// pending part, the range of g[i][j] continues where the last row ended.
func gridSum(g *grid) int {
	s := 0
outer:
	for i := 0; i < len(g); i++ {
		for j := 0; j < len(g[i]); j++ {
			s += g[i][j] + g[0][j]
			if g[i][j] == 7 {
				continue outer
			}
			if g[i][j] == 9 {
				break outer
			}
		}
	}
	return s
}

func square(i int) int { return i * i }

func squares(a []int) {
	for i := range a {
		a[i] = square(i)
	}
}

func mustSmall(a []int) {
	for i := 0; i < len(a); i++ {
		if a[i] > 50 {
			panic("large")
		}
		a[i]++
	}
}

func exitHalfway(a []int, wg *sync.WaitGroup) {
	defer wg.Done()
	for i := 0; i < len(a); i++ {
		a[i] = 2 * i
		if i == len(a)/2 {
			runtime.Goexit()
		}
	}
}

func move(ps []particle) {
	for i := 0; i < len(ps); i++ {
		ps[i].x += ps[i].v
	}
}

func main() {
	a := make([]int, 100)
	for i := range a {
		a[i] = i % 10
	}
	var mu sync.Mutex
	var wg sync.WaitGroup
	results := make([]int, 8)
	for k := 0; k < 4; k++ {
		wg.Add(1)
		go func(k int) {
			defer wg.Done()
			part := a[k*25 : (k+1)*25]
			mu.Lock()
			results[k] = firstNegative(part) + withGoto(part)
			mu.Unlock()
			fillUntil(part, 10)
			func() {
				defer func() { recover() }()
				mustSmall(part)
			}()
			squares(part[20:])
		}(k)
	}
	wg.Wait()
	fmt.Println("results", results[:4], a[:12], a[99])

	b := make([]int, 50)
	wg.Add(1)
	go exitHalfway(b, &wg)
	wg.Wait()
	b[3] = 1 // after the goroutine's exit: ordered by wg
	fmt.Println("goexit", b[:6], b[25], b[26])

	g := [][]int{{1, 2, 7, 4}, {5, 6}, {9, 1}, {3}}
	fmt.Println("rows", rows(g))

	ps := make([]particle, 40)
	for i := range ps {
		ps[i].v = float64(i)
	}
	for k := 0; k < 2; k++ {
		wg.Add(1)
		go func(k int) {
			defer wg.Done()
			move(ps[k*20 : (k+1)*20])
		}(k)
	}
	wg.Wait()
	fmt.Println("particles", ps[39].x)

	gp := new(grid)
	for i := range gp {
		for j := range gp[i] {
			gp[i][j] = i + j
		}
	}
	gp[2][3], gp[5][0] = 7, 9
	for k := 0; k < 2; k++ {
		wg.Add(1)
		go func(k int) {
			defer wg.Done()
			s := gridSum(gp)
			mu.Lock()
			results[4+k] = s
			mu.Unlock()
		}(k)
	}
	wg.Wait()
	fmt.Println("grid", results[4:6])
}
