// Copyright 2026 The bigfoot Authors. All rights reserved.

//go:build !race

package detector

// Microbenchmarks of the runtime. race_bench_test.go has the same names
// for Go's race runtime (go test -race -bench), so the two result files
// compare with benchstat.

import (
	"sync"
	"testing"
	"unsafe"

	"github.com/bigfoot-go/bigfoot/shadow"
)

var (
	benchSink int64
	benchHeap []any
)

// heap moves x to the heap; the runtime does not check stack memory.
func heap[T any](x T) T {
	benchHeap = append(benchHeap, x)
	return x
}

func BenchmarkCur(b *testing.B) {
	Cur()
	for b.Loop() {
		Cur()
	}
}

func BenchmarkReadSameEpoch(b *testing.B) {
	g, x := Cur(), heap(new(int64))
	_ = *R(g, x, 0)
	for b.Loop() {
		benchSink += *R(g, x, 0)
	}
}

func BenchmarkWriteSameEpoch(b *testing.B) {
	g, x := Cur(), heap(new(int64))
	for b.Loop() {
		*W(g, x, 0) = 1
	}
}

// The goroutine's epoch advances (a release) before every write, so every
// write takes the write-exclusive slow path, as when goroutines alternate
// on a location under a lock.
func BenchmarkWriteExclusive(b *testing.B) {
	g, x, s := Cur(), heap(new(int64)), heap(new(int64))
	for b.Loop() {
		RaceRelease(unsafe.Pointer(s))
		*W(g, x, 0) = 1
	}
}

// Reads of a read-shared location, in a new epoch every time.
func BenchmarkReadShared(b *testing.B) {
	g, x, s := Cur(), heap(new(int64)), heap(new(int64))
	_ = *R(g, x, 0)
	<-spawn(g, func(g *G) { _ = *R(g, x, 0) })
	<-spawn(g, func(g *G) { _ = *R(g, x, 0) })
	for b.Loop() {
		RaceRelease(unsafe.Pointer(s))
		benchSink += *R(g, x, 0)
	}
}

func BenchmarkReadSharedSameEpoch(b *testing.B) {
	g, x := Cur(), heap(new(int64))
	<-spawn(g, func(g *G) { _ = *R(g, x, 0) })
	<-spawn(g, func(g *G) { _ = *R(g, x, 0) })
	_ = *R(g, x, 0)
	for b.Loop() {
		benchSink += *R(g, x, 0)
	}
}

// A range check of 1,024 int64 elements in the same epoch.
func BenchmarkRange1024(b *testing.B) {
	g, s := Cur(), heap(make([]int64, 1024))
	g.ReadRange(unsafe.Pointer(&s[0]), 8, 0, len(s), 1, 0)
	for b.Loop() {
		g.ReadRange(unsafe.Pointer(&s[0]), 8, 0, len(s), 1, 0)
	}
}

// A range check of 1,024 int64 elements in a new epoch every time.
func BenchmarkRange1024NewEpoch(b *testing.B) {
	g, s, r := Cur(), heap(make([]int64, 1024)), heap(new(int64))
	for b.Loop() {
		RaceRelease(unsafe.Pointer(r))
		g.WriteRange(unsafe.Pointer(&s[0]), 8, 0, len(s), 1, 0)
	}
}

func BenchmarkAcquire(b *testing.B) {
	s := heap(new(int64))
	RaceRelease(unsafe.Pointer(s))
	for b.Loop() {
		RaceAcquire(unsafe.Pointer(s))
	}
}

func BenchmarkRelease(b *testing.B) {
	s := heap(new(int64))
	for b.Loop() {
		RaceRelease(unsafe.Pointer(s))
	}
}

// BenchmarkChanPair is a send and a receive on a buffered channel, as
// emitted code makes them (a send statement is Chan(c).Send, a receive
// Recv): the hooks' releases and acquires included. Until 2026-11-26 it
// called Send and RecvPre/RecvPost itself, and no SendPost.
func BenchmarkChanPair(b *testing.B) {
	g, ch := Cur(), make(chan int, 1)
	for b.Loop() {
		Chan(ch).Send(g, 1)
		benchSink += int64(Recv(g, ch))
	}
}

// BenchmarkMutexPair is a Lock and an Unlock.
func BenchmarkMutexPair(b *testing.B) {
	g, mu := Cur(), heap(new(sync.Mutex))
	for b.Loop() {
		Lock(g, mu)
		Unlock(g, mu)
	}
}

// BenchmarkAtomicDistinct is an atomic add on a word no atomic operation
// used before, the next of a slice of 1M words, a new slice every 1M
// operations: the slots of a concurrent map's table (issue 29). Each word
// gets a sync object, proven by its allocation version; without versions
// (a test binary built without the driver's runtime files) each would get
// a weak pointer, whose cost grows with the span's, so the benchmark
// runs only under bigfoot bench -micro.
func BenchmarkAtomicDistinct(b *testing.B) {
	if shadow.IdentProof() != "version" {
		b.Skip("the runtime keeps no allocation versions: run with bigfoot bench -micro")
	}
	g := Cur()
	var s []int64
	i := 0
	for b.Loop() {
		if i == len(s) {
			s, i = make([]int64, 1<<20), 0
		}
		AtomicAddInt64(g, &s[i], 1)
		i++
	}
}

// BenchmarkFreshObject allocates a 64-byte object and writes its first
// word: the first access to memory the shadow has not seen (or has seen
// for an object the garbage collector freed).
func BenchmarkFreshObject(b *testing.B) {
	g := Cur()
	benchHeap = append(benchHeap, nil)
	for b.Loop() {
		p := new([8]int64)
		*W(g, &p[0], 0) = 1
		benchHeap[0] = p
	}
}

// BenchmarkFreshAlloc is BenchmarkFreshObject without the check: the
// allocation and the collections it causes, the part of FreshObject's
// cost that a plain build pays too (the floor under it).
func BenchmarkFreshAlloc(b *testing.B) {
	benchHeap = append(benchHeap, nil)
	for b.Loop() {
		p := new([8]int64)
		p[0] = 1
		benchHeap[0] = p
	}
}

// BenchmarkFootprint1M records writes of 1M elements in a footprint and
// commits it, in a new epoch each time: a deferred loop.
func BenchmarkFootprint1M(b *testing.B) {
	g, a := Cur(), heap(make([]int64, 1<<20))
	for b.Loop() {
		RaceRelease(unsafe.Pointer(&benchSink))
		f := g.Footprint(0, true)
		for i := range a {
			*F(f, &a[i], 0) = int64(i)
		}
		g.PopFootprints(f)
	}
}

// BenchmarkChanPipeline is the channel traffic of the pipeline workload
// per item: a generator, 4 transformers and a reducer (the benchmark's
// goroutine) over two channels of capacity 64, with the hooks emitted
// code calls (Chan(c).Send, Recv2). An op is one item through both
// channels: two sends and two receives, on two cores.
func BenchmarkChanPipeline(b *testing.B) {
	g, n := Cur(), b.N
	gen, done := make(chan int, 64), make(chan int, 64)
	b.ResetTimer()
	spawn(g, func(g *G) {
		for i := range n {
			Chan(gen).Send(g, i)
		}
		close(Close(g, gen))
	})
	for range 4 {
		spawn(g, func(g *G) {
			for {
				v, ok := Recv2(g, gen)
				if !ok {
					return
				}
				Chan(done).Send(g, v+1)
			}
		})
	}
	for range n {
		v, _ := Recv2(g, done)
		benchSink += int64(v)
	}
}
