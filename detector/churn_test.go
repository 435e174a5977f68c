// Copyright 2026 The bigfoot Authors. All rights reserved.

package detector

import (
	"runtime"
	"sync/atomic"
	"testing"
)

// churn starts n goroutines the way instrumented code does (Fork, Start,
// Exit), at most batch at a time, each writing its own heap object, and
// reports the detector's thread-id high-water mark before and after.
func churn(g *G, n, batch int) {
	for i := 0; i < n; i += batch {
		var ws []<-chan struct{}
		for range min(batch, n-i) {
			ws = append(ws, spawn(g, func(g *G) {
				x := new(int64)
				*W(g, x, 0) = 1
				benchHeapSink.Store(x) // keep x on the heap
			}))
		}
		for _, w := range ws {
			<-w
		}
	}
}

var benchHeapSink atomic.Pointer[int64]

func tidHighWater() int {
	tids.mu.Lock()
	defer tids.mu.Unlock()
	return int(tids.next)
}

// TestGoroutineChurnBounded checks that thread ids, and with them vector
// clocks, stay bounded under goroutine churn without joins.
func TestGoroutineChurnBounded(t *testing.T) {
	n := 100_000
	if raceEnabled || testing.Short() {
		n = 10_000
	}
	g := Cur()
	before := tidHighWater()
	churn(g, n, 100)
	after := tidHighWater()
	if grown := after - before; grown > 100+quarantine+64 {
		t.Errorf("%d goroutines grew the thread ids by %d", n, grown)
	}
	if l := len(g.t.VC); l > after {
		t.Errorf("vector clock length %d > thread ids %d", l, after)
	}
	if r := registry.Len(); r > 1000 {
		t.Errorf("registry holds %d goroutines", r)
	}
}

// BenchmarkGoroutineChurn starts 1M goroutines (Fork, Start, Exit each,
// 1,000 at a time) per iteration and reports the heap in use and the
// thread-id high-water mark after the last one.
func BenchmarkGoroutineChurn(b *testing.B) {
	g := Cur()
	var ms runtime.MemStats
	for b.Loop() {
		churn(g, 1_000_000, 1000)
	}
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&ms)
	b.ReportMetric(float64(ms.HeapInuse)/(1<<20), "MiB-heap")
	b.ReportMetric(float64(tidHighWater()), "tids")
	b.ReportMetric(float64(registry.Len()), "registry")
	b.ReportMetric(float64(space.Len()), "shadow-pages")
}
