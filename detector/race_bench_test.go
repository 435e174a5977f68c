// Copyright 2026 The bigfoot Authors. All rights reserved.

//go:build race

package detector

// The operations of bench_test.go with Go's own race runtime (ThreadSanitizer
// v3), through the runtime.Race* hooks the compiler's instrumentation also
// uses. Run with go test -race -bench.

import (
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"unsafe"
)

var (
	benchSink int64
	benchHeap []any
)

func heap[T any](x T) T {
	benchHeap = append(benchHeap, x)
	return x
}

// Go's runtime finds the goroutine's race context in g, for free.
func BenchmarkCur(b *testing.B) {
	b.Skip("no equivalent: Go's race runtime reads the context from g")
}

func BenchmarkReadSameEpoch(b *testing.B) {
	x := heap(new(int64))
	runtime.RaceRead(unsafe.Pointer(x))
	for b.Loop() {
		runtime.RaceRead(unsafe.Pointer(x))
	}
}

func BenchmarkWriteSameEpoch(b *testing.B) {
	x := heap(new(int64))
	for b.Loop() {
		runtime.RaceWrite(unsafe.Pointer(x))
	}
}

func BenchmarkWriteExclusive(b *testing.B) {
	x, s := heap(new(int64)), heap(new(int64))
	for b.Loop() {
		runtime.RaceRelease(unsafe.Pointer(s))
		runtime.RaceWrite(unsafe.Pointer(x))
	}
}

func BenchmarkReadShared(b *testing.B) {
	x, s := heap(new(int64)), heap(new(int64))
	done := make(chan bool)
	for range 2 {
		go func() { runtime.RaceRead(unsafe.Pointer(x)); done <- true }()
		<-done
	}
	for b.Loop() {
		runtime.RaceRelease(unsafe.Pointer(s))
		runtime.RaceRead(unsafe.Pointer(x))
	}
}

func BenchmarkReadSharedSameEpoch(b *testing.B) {
	x := heap(new(int64))
	done := make(chan bool)
	for range 2 {
		go func() { runtime.RaceRead(unsafe.Pointer(x)); done <- true }()
		<-done
	}
	for b.Loop() {
		runtime.RaceRead(unsafe.Pointer(x))
	}
}

func BenchmarkRange1024(b *testing.B) {
	s := heap(make([]int64, 1024))
	for b.Loop() {
		runtime.RaceReadRange(unsafe.Pointer(&s[0]), 8*len(s))
	}
}

func BenchmarkRange1024NewEpoch(b *testing.B) {
	s, r := heap(make([]int64, 1024)), heap(new(int64))
	for b.Loop() {
		runtime.RaceRelease(unsafe.Pointer(r))
		runtime.RaceWriteRange(unsafe.Pointer(&s[0]), 8*len(s))
	}
}

func BenchmarkAcquire(b *testing.B) {
	s := heap(new(int64))
	runtime.RaceRelease(unsafe.Pointer(s))
	for b.Loop() {
		runtime.RaceAcquire(unsafe.Pointer(s))
	}
}

func BenchmarkRelease(b *testing.B) {
	s := heap(new(int64))
	for b.Loop() {
		runtime.RaceRelease(unsafe.Pointer(s))
	}
}

// The compiler instruments the code below: the channel and mutex
// operations call the race runtime's acquire and release, new calls
// racemalloc, and every access of the loop racewrite.

func BenchmarkChanPair(b *testing.B) {
	ch := make(chan int, 1)
	for b.Loop() {
		ch <- 1
		benchSink += int64(<-ch)
	}
}

func BenchmarkAtomicDistinct(b *testing.B) {
	var s []int64
	i := 0
	for b.Loop() {
		if i == len(s) {
			s, i = make([]int64, 1<<20), 0
		}
		atomic.AddInt64(&s[i], 1)
		i++
	}
}

func BenchmarkMutexPair(b *testing.B) {
	mu := heap(new(sync.Mutex))
	for b.Loop() {
		mu.Lock()
		mu.Unlock()
	}
}

func BenchmarkFreshObject(b *testing.B) {
	benchHeap = append(benchHeap, nil)
	for b.Loop() {
		p := new([8]int64)
		p[0] = 1
		benchHeap[0] = p
	}
}

// BenchmarkFreshAlloc is BenchmarkFreshObject without the checked write
// (the allocation still tells the race runtime of the object).
func BenchmarkFreshAlloc(b *testing.B) {
	benchHeap = append(benchHeap, nil)
	freshAllocLoop(b)
}

//go:norace
func freshAllocLoop(b *testing.B) {
	for b.Loop() {
		p := new([8]int64)
		p[0] = 1
		benchHeap[0] = p
	}
}

func BenchmarkFootprint1M(b *testing.B) {
	a := heap(make([]int64, 1<<20))
	for b.Loop() {
		runtime.RaceRelease(unsafe.Pointer(&benchSink))
		for i := range a {
			a[i] = int64(i)
		}
	}
}

func BenchmarkChanPipeline(b *testing.B) {
	n := b.N
	gen, done := make(chan int, 64), make(chan int, 64)
	b.ResetTimer()
	go func() {
		for i := range n {
			gen <- i
		}
		close(gen)
	}()
	for range 4 {
		go func() {
			for v := range gen {
				done <- v + 1
			}
		}()
	}
	for range n {
		benchSink += int64(<-done)
	}
}
