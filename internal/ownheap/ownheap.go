// Copyright 2026 The bigfoot Authors. All rights reserved.

// Package ownheap marks the heap allocations the race-detection runtime
// (detector and shadow) makes for itself, so that the Go runtime leaves
// them out of the program's allocation statistics.
//
// go -race keeps ThreadSanitizer's state off the Go heap: a program's
// runtime.MemStats.Mallocs and TotalAlloc, which testing.AllocsPerRun and
// a benchmark's allocs/op read, are the same under go -race as in a
// plain build, and real suites assert them ("0 allocations per write").
// bigfoot's shadow keeps its bulk off the heap (shadow/offheap.go), but
// pages, runs, object identities, history notes and clocks are heap
// objects. A bigfoot build patches the runtime (driver/ownalloc.go):
// while a goroutine is marked, mallocgc counts what it allocates apart,
// keeps it out of the tiny allocator (so that no detector object shares,
// and keeps alive, a program object's 16-byte block), and ReadMemStats
// subtracts those counts from Mallocs, Frees and TotalAlloc. The objects
// still take heap memory and pace the collector; runtime/metrics, which
// the bench reads, still counts them.
//
// The mark is the goroutine's g.raceignore, which only -race builds use
// otherwise; the runtime gives its offset in markOff. Without the patch,
// or without getg (bigfoot_portable, other architectures), Begin does
// nothing.
package ownheap

import "unsafe"

// markOff is the offset of raceignore in the runtime's g, set by the
// runtime's init in a bigfoot build (driver/ownalloc.go); 0 otherwise.
// It has no initializer: the runtime's init runs before this package's.
var markOff uintptr

// Marking reports whether Begin marks: the runtime is patched and the
// architecture gives getg. Where it does, an object the detector allocates
// on its own is left out of the program's statistics as a chunk of them
// would be.
func Marking() bool {
	return markOff != 0 && haveG
}

// A Mark is a goroutine's marked state, to be ended by End.
type Mark struct {
	p   *int8
	old int8
}

// Begin marks the calling goroutine: until End, what it allocates is the
// detector's. Marks nest (End restores the state Begin found). Code
// between Begin and End must not call the program's code.
func Begin() Mark {
	if markOff == 0 || !haveG {
		return Mark{}
	}
	p := (*int8)(unsafe.Add(getg(), markOff))
	m := Mark{p, *p}
	*p = 1
	return m
}

// End restores the mark Begin found.
func (m Mark) End() {
	if m.p != nil {
		*m.p = m.old
	}
}

// runtimeCounts, set by the runtime's init in a bigfoot build, returns
// the number and bytes of the marked allocations so far.
var runtimeCounts func() (n, bytes uint64)

// Counts returns the number of heap objects the detector allocated while
// marked and their bytes (size classes), or zeros without the patch.
func Counts() (n, bytes uint64) {
	if runtimeCounts == nil {
		return 0, 0
	}
	return runtimeCounts()
}

// New returns a new zero T allocated as the detector's.
func New[T any]() *T {
	m := Begin()
	p := new(T)
	m.End()
	return p
}

// Make returns make([]T, n, c) allocated as the detector's.
func Make[T any](n, c int) []T {
	m := Begin()
	s := make([]T, n, c)
	m.End()
	return s
}

// Append returns append(s, v...) with any new backing array allocated as
// the detector's.
func Append[T any](s []T, v ...T) []T {
	if len(s)+len(v) <= cap(s) {
		return append(s, v...)
	}
	m := Begin()
	s = append(s, v...)
	m.End()
	return s
}
