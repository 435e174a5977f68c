// Dijkstra is a routing service: goroutines answer shortest-path queries
// on a shared, read-only road graph (adjacency lists of edge structs) with
// Dijkstra's algorithm over a container/heap priority queue of *entry
// values, each query allocating its queue entries, distance map and path
// afresh, and memoize answers in a sync.RWMutex-guarded cache.
//
// It prints one line, "checksum: <hex>", folded from every query's
// distance and path length.
package main

import (
	"container/heap"
	"flag"
	"fmt"
	"math"
	"sync"

	"github.com/bigfoot-go/bigfoot/bench/internal/peak"
)

type edge struct {
	to     int32
	weight float64
}

// entry is a queue entry: a vertex and its tentative distance.
type entry struct {
	v     int32
	dist  float64
	index int
}

// queue is a min-heap of entries by distance.
type queue []*entry

func (q queue) Len() int { return len(q) }
func (q queue) Less(i, j int) bool {
	if q[i].dist != q[j].dist {
		return q[i].dist < q[j].dist
	}
	return q[i].v < q[j].v
}
func (q queue) Swap(i, j int) {
	q[i], q[j] = q[j], q[i]
	q[i].index = i
	q[j].index = j
}
func (q *queue) Push(x any) {
	e := x.(*entry)
	e.index = len(*q)
	*q = append(*q, e)
}
func (q *queue) Pop() any {
	old := *q
	e := old[len(old)-1]
	old[len(old)-1] = nil
	*q = old[:len(old)-1]
	return e
}

// graph builds a grid-like road network of side×side vertices with some
// diagonal shortcuts.
func graph(side int) [][]edge {
	g := make([][]edge, side*side)
	s := uint64(0x853c49e6748fea9b)
	next := func() uint64 {
		s ^= s << 13
		s ^= s >> 7
		s ^= s << 17
		return s
	}
	link := func(a, b int) {
		w := 1 + float64(next()%1000)/100
		g[a] = append(g[a], edge{int32(b), w})
		g[b] = append(g[b], edge{int32(a), w})
	}
	for y := 0; y < side; y++ {
		for x := 0; x < side; x++ {
			v := y*side + x
			if x+1 < side {
				link(v, v+1)
			}
			if y+1 < side {
				link(v, v+side)
			}
			if x+1 < side && y+1 < side && next()%5 == 0 {
				link(v, v+side+1)
			}
		}
	}
	return g
}

// shortest returns the distance from src to dst and the number of
// vertices on a shortest path.
func shortest(g [][]edge, src, dst int32) (float64, int) {
	dist := map[int32]float64{src: 0}
	prev := make(map[int32]int32)
	items := map[int32]*entry{}
	q := &queue{}
	e := &entry{v: src}
	items[src] = e
	heap.Push(q, e)
	for q.Len() > 0 {
		u := heap.Pop(q).(*entry)
		delete(items, u.v)
		if u.v == dst {
			break
		}
		for _, ed := range g[u.v] {
			d := u.dist + ed.weight
			if old, ok := dist[ed.to]; ok && old <= d {
				continue
			}
			dist[ed.to] = d
			prev[ed.to] = u.v
			if it, ok := items[ed.to]; ok {
				it.dist = d
				heap.Fix(q, it.index)
			} else {
				it := &entry{v: ed.to, dist: d}
				items[ed.to] = it
				heap.Push(q, it)
			}
		}
	}
	d, ok := dist[dst]
	if !ok {
		return math.Inf(1), 0
	}
	var path []int32
	for v := dst; v != src; v = prev[v] {
		path = append(path, v)
	}
	return d, len(path) + 1
}

type answer struct {
	dist float64
	hops int
}

func main() {
	size := flag.Int("size", 0, "queries (0: default)")
	short := flag.Bool("short", false, "tiny size, for tests")
	workers := flag.Int("workers", 4, "goroutines")
	flag.Parse()
	n := 500
	side := 120
	if *short {
		n, side = 60, 40
	}
	if *size > 0 {
		n = *size
	}
	w := max(*workers, 1)
	g := graph(side)

	var mu sync.RWMutex
	cache := make(map[[2]int32]answer)
	sums := make([]uint64, w)
	var wg sync.WaitGroup
	for k := 0; k < w; k++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := k; i < n; i += w {
				s := uint64(i%(n/2+1))*0x9e3779b97f4a7c15 + 23
				s ^= s << 13
				s ^= s >> 7
				s ^= s << 17
				q := [2]int32{int32(s % uint64(len(g))), int32(s >> 32 % uint64(len(g)))}
				mu.RLock()
				a, ok := cache[q]
				mu.RUnlock()
				if !ok {
					d, hops := shortest(g, q[0], q[1])
					a = answer{d, hops}
					mu.Lock()
					cache[q] = a
					mu.Unlock()
				}
				sums[k] += math.Float64bits(a.dist)>>8 + uint64(a.hops)
			}
		}()
	}
	wg.Wait()

	var sum uint64
	for _, s := range sums {
		sum += s
	}
	fmt.Printf("checksum: %016x%x\n", sum, len(cache))
	peak.Report()
}
