// Command callees exercises callee checks moved into callers
// (-mode=bigfoot, instrument/cover.go): a function that reads or writes
// memory through a pointer parameter on every call, called in a loop, is
// called as a copy without those checks, and the caller records the
// memory as one range per loop; every hazard keeps the callee's checks.
// It is race-free and deterministic; every function runs on shared data.
package main

import (
	"fmt"
	"sync"
)

type schedule [8][2]uint16

type body struct {
	x, y, r float64
	tag     string
}

// mix reads k[0] and k[1] on every call: covered.
func mix(h uint32, k *[2]uint16) uint32 {
	a := uint32(k[0]) * (h | 1)
	return a ^ uint32(k[1])
}

// rounds calls mix over the schedule, an array behind a pointer.
func rounds(k *schedule, h uint32) uint32 {
	for j := 0; j < len(k); j++ {
		h = mix(h, &k[j])
	}
	return h
}

// dist reads x, y and r on every call and tag on one path only: tag keeps
// its check in the copy.
func dist(b *body, x float64) float64 {
	d := (b.x-x)*(b.x-x) + b.y*b.y - b.r
	if d > 100 && b.tag == "far" {
		return 100
	}
	return d
}

// nearest calls dist on each element of a slice (&bs[i]) and through an
// alias (p := &bs[i]).
func nearest(bs []body, x float64) (float64, float64) {
	best, sum := 1e18, 0.0
	for i := range bs {
		if d := dist(&bs[i], x); d < best {
			best = d
		}
	}
	for i := 0; i < len(bs); i++ {
		p := &bs[i]
		sum += dist(p, x)
	}
	return best, sum
}

// grow writes through its parameter: a write range in the caller.
func grow(b *body) {
	b.r = b.r + 1
}

func growAll(bs []body) {
	for i := range bs {
		grow(&bs[i])
	}
}

var mu sync.Mutex

// locked synchronizes: no copy, the call keeps its checks.
func locked(b *body) float64 {
	mu.Lock()
	defer mu.Unlock()
	return b.x
}

// spawn hands the pointer to a goroutine: no copy.
func spawn(b *body, wg *sync.WaitGroup) float64 {
	v := b.y
	wg.Add(1)
	go func() {
		defer wg.Done()
		_ = b.x
	}()
	return v
}

// depth recurses: no copy.
func depth(b *body, n int) float64 {
	if n == 0 {
		return b.x
	}
	return b.x + depth(b, n-1)
}

type shape interface{ size(x float64) float64 }

func (b *body) size(x float64) float64 { return b.r * x }

// hazards calls functions that keep their checks, and dist in ways the
// caller cannot cover: through a func value, an interface, and with a
// later argument that calls.
func hazards(bs []body) float64 {
	var wg sync.WaitGroup
	f := dist
	s := 0.0
	for i := range bs {
		s += locked(&bs[i])
		s += spawn(&bs[i], &wg)
		s += depth(&bs[i], 2)
		s += f(&bs[i], 1)
		var sh shape = &bs[i]
		s += sh.size(2)
		s += dist(&bs[i], float64(len(fmt.Sprint(i))))
	}
	wg.Wait()
	return s
}

func main() {
	var k schedule
	for i := range k {
		k[i] = [2]uint16{uint16(i + 1), uint16(7 * i)}
	}
	bs := make([]body, 6)
	for i := range bs {
		bs[i] = body{x: float64(i), y: float64(2 * i), r: 1, tag: "far"}
	}
	var wg sync.WaitGroup
	var h uint32
	var best, sum, hz float64
	wg.Add(1)
	go func() {
		defer wg.Done()
		for i := 0; i < 10; i++ {
			h = rounds(&k, h+uint32(i))
		}
		growAll(bs)
		best, sum = nearest(bs, 2)
		hz = hazards(bs)
	}()
	wg.Wait()
	fmt.Println(h, best, sum, hz)
}
