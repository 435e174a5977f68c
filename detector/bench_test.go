// Copyright 2026 The bigfoot Authors. All rights reserved.

//go:build !race

package detector

// Microbenchmarks of the runtime. race_bench_test.go has the same names
// for Go's race runtime (go test -race -bench), so the two result files
// compare with benchstat.

import (
	"testing"
	"unsafe"
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
