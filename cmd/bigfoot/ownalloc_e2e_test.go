package main

import "testing"

// TestDetectorAllocationsNotCounted: testing.AllocsPerRun counts what go
// test -race counts for operations whose first run makes the detector's
// state on the heap (a fresh buffer's shadow page and run, a new
// channel's state and queue entries, a new goroutine's state, a context's
// registration), and for common standard-library calls. Before the
// runtime left the detector's marked allocations out of
// runtime.MemStats (driver/ownalloc.go), a fresh 8 KiB buffer filled by
// copy counted 7 allocations against go -race's 2, a buffered channel's
// send and receive 5 against 1, context.WithCancel 9 against 2, and a
// collection, whose end the shadow's sweep follows, 23 against 0
// (valyala/fasthttp's TestFixedSizeBodyStreamWriteAllocations and
// goccy/go-json's TestDecodeStreamElementsIndexBounded failed only under
// bigfoot).
func TestDetectorAllocationsNotCounted(t *testing.T) {
	dir := writeModule(t, map[string]string{
		"go.mod": "module example.com/ownalloc\n\ngo 1.24\n",
		"ownalloc_test.go": `package ownalloc

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

var (
	src  = bytes.Repeat([]byte("x"), 8192)
	sink any
)

type rec struct {
	Name string
	N    int
	Tags []string
}

var cases = []struct {
	name string
	f    func()
}{
	{"fresh buffer copy", func() { b := make([]byte, 8192); copy(b, src); sink = b }},
	{"fresh struct", func() { p := &rec{N: 1}; p.Name = "a"; sink = p }},
	{"fresh mutex", func() { mu := new(sync.Mutex); mu.Lock(); mu.Unlock(); sink = mu }},
	{"fresh rwmutex", func() { mu := new(sync.RWMutex); mu.RLock(); mu.RUnlock(); mu.Lock(); mu.Unlock(); sink = mu }},
	{"fresh channel", func() { c := make(chan int, 1); c <- 1; <-c; sink = c }},
	{"goroutine", func() {
		var wg sync.WaitGroup
		wg.Add(1)
		go func() { wg.Done() }()
		wg.Wait()
	}},
	{"fresh map", func() { m := make(map[string]int); m["a"] = 1; sink = m }},
	{"fresh atomic", func() { x := new(int64); atomic.AddInt64(x, 1); sink = x }},
	{"strings.Builder", func() { var b strings.Builder; b.WriteString("abc"); b.WriteByte('d'); sink = b.String() }},
	{"fmt.Sprintf", func() { sink = fmt.Sprintf("%d-%s", 42, "x") }},
	{"strconv", func() { sink = strconv.Itoa(123456) + "x" }},
	{"sync.Once", func() { o := new(sync.Once); o.Do(func() {}); sink = o }},
	{"context", func() { ctx, cancel := context.WithCancel(context.Background()); cancel(); sink = ctx }},
	{"json", func() { b, _ := json.Marshal(rec{"a", 1, []string{"x"}}); sink = b }},
	{"sort", func() { s := []int{3, 1, 2, 5, 4}; sort.Ints(s); sink = s }},
	{"append", func() { var s []int; for i := range 20 { s = append(s, i) }; sink = s }},
	{"runtime.GC", func() { runtime.GC() }},
}

func TestAllocs(t *testing.T) {
	for _, c := range cases {
		c.f()
		fmt.Printf("%s: %v allocations\n", c.name, testing.AllocsPerRun(200, c.f))
	}
}

// TestTotalAlloc: the bytes a loop of fresh buffers adds to
// MemStats.TotalAlloc, and Mallocs - Frees against HeapObjects.
func TestTotalAlloc(t *testing.T) {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for range 100 {
		b := make([]byte, 8192)
		copy(b, src)
		sink = b
	}
	runtime.ReadMemStats(&after)
	fmt.Printf("TotalAlloc grew by %d00 KiB\n", (after.TotalAlloc-before.TotalAlloc+50<<10)/(100<<10))
	if after.Mallocs-after.Frees != after.HeapObjects {
		t.Errorf("Mallocs %d - Frees %d != HeapObjects %d", after.Mallocs, after.Frees, after.HeapObjects)
	}
}

// TestMetricsAgree: runtime/metrics reads the figures ReadMemStats
// reads, with the collector off between the two reads (client_golang's
// TestMemStatsEquivalence), after work whose shadow state the detector
// keeps on the heap: fresh buffers, channels, goroutines.
func TestMetricsAgree(t *testing.T) {
	for range 2000 {
		b := make([]byte, 512)
		copy(b, src)
		c := make(chan []byte, 1)
		go func() { c <- b }()
		sink = <-c
	}
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	samples := []metrics.Sample{{Name: "/gc/heap/allocs:bytes"}, {Name: "/gc/heap/allocs:objects"}}
	metrics.Read(samples)
	allocated, objects := samples[0].Value.Uint64(), samples[1].Value.Uint64()
	if math.Abs(float64(ms.TotalAlloc)-float64(allocated))/float64(allocated) > 0.05 {
		t.Errorf("TotalAlloc %d, /gc/heap/allocs:bytes %d", ms.TotalAlloc, allocated)
	}
	// Mallocs counts tiny objects, the metric does not: at most as many.
	if objects > ms.Mallocs {
		t.Errorf("Mallocs %d, /gc/heap/allocs:objects %d", ms.Mallocs, objects)
	}
	fmt.Println("runtime/metrics agree")
}
`,
	})
	sameAsGoRace(t, dir, nil, "-count=1", "-v", ".")
}

// TestDetectorObjectsNotLive: the heap objects a live value has after a
// collection (runtime.MemStats.HeapObjects), and those a dropped one
// leaves, are go test -race's: the detector's objects for the value (its
// locks' and atomics' clocks, its channel's state, its goroutine's
// state, its shadow) are left out, as they are of Mallocs, although they
// live until the sweeps after the value's death drop them
// (driver/ownalloc.go). Before, a live cache of testdata's kind had 22
// heap objects against go -race's 3, and a dropped one left more than
// 1.5 (maypok86/otter's TestCache_BuiltInClockStopsTicker failed only
// under bigfoot); then, with the detector's objects left out but some
// still allocated unmarked (free-list objects, clocks grown by append),
// 2 to 4 by the timing of the sweeps.
func TestDetectorObjectsNotLive(t *testing.T) {
	dir := writeModule(t, map[string]string{
		"go.mod": "module example.com/heapobjects\n\ngo 1.24\n",
		"heapobjects_test.go": `package heapobjects

import (
	"fmt"
	"math"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// A cache has what a cache has: locks, an atomic, a channel, a goroutine
// of its own (so clocks are as wide as the goroutines live).
type cache struct {
	mu    sync.Mutex
	rw    sync.RWMutex
	hits  atomic.Int64
	tick  chan int
	items []int
	reads int // guarded by rw
}

const n = 1000

var kept []*cache

// useCaches makes n caches whose goroutines and two others use them,
// keeps them in kept if keep is set, and returns once their goroutines
// have returned.
func useCaches(keep bool) {
	cs := make([]*cache, n)
	for i := range cs {
		cs[i] = &cache{tick: make(chan int, 1), items: make([]int, 64)}
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for _, c := range cs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case v := <-c.tick:
					c.mu.Lock()
					for j := range c.items {
						c.items[j] += v
					}
					c.mu.Unlock()
				case <-stop:
					c.rw.Lock()
					c.reads++
					c.rw.Unlock()
					c.hits.Add(1)
					return
				}
			}
		}()
	}
	for range 2 {
		for _, c := range cs {
			c.tick <- 1
			c.rw.RLock()
			_ = c.reads
			c.rw.RUnlock()
			c.hits.Add(1)
		}
	}
	close(stop)
	wg.Wait()
	if keep {
		kept = cs
	}
}

func liveHeapObjects() uint64 {
	for range 3 {
		runtime.GC()
	}
	time.Sleep(10 * time.Millisecond)
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapObjects
}

// TestHeapObjects: the heap objects a live cache has after a
// collection, and those a dropped one leaves (maypok86/otter's
// TestCache_BuiltInClockStopsTicker allows 1.5).
func TestHeapObjects(t *testing.T) {
	useCaches(false) // warms up
	for range 2 {
		kept = nil
		before := liveHeapObjects()
		useCaches(true)
		live := float64(int64(liveHeapObjects())-int64(before)) / n
		kept = nil
		dropped := float64(int64(liveHeapObjects())-int64(before)) / n
		fmt.Printf("a live cache: %v heap objects; a dropped one: at most 1.5 (%v)\n", math.Round(live), dropped <= 1.5)
	}
}
`,
	})
	sameAsGoRace(t, dir, nil, "-count=1", "-v", ".")
}
