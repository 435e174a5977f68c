// Copyright 2026 The bigfoot Authors. All rights reserved.

package shadow

import (
	"unsafe"

	"github.com/bigfoot-go/bigfoot/internal/ownheap"
)

// Arrays of words outside the Go heap, for the detector's pointer-free
// state whose owner knows when it is no longer used: a channel's arena
// of vector clocks, replaced as it widens and freed with the channel's
// state. On the heap each replacement was garbage the pacer counted
// against the program: a fan-out program that makes a channel per
// request allocated 37 MB of arenas where it allocates 10 MB itself.
//
// Arrays come in size classes of 8<<k words (a cache line, doubling),
// each a blockPool of its own; larger ones come from the heap, where
// FreeWords leaves them to the collector.

const (
	wordsMin     = 8  // words of the smallest class
	wordsClasses = 14 // classes: up to wordsMin<<13 words, 512 KiB
	wordsMax     = wordsMin << (wordsClasses - 1)
	wordsChunk   = 64 << 10 // bytes mapped at a time for a class's arrays, at least
)

// wordsPools are the classes' pools (sizes set by init).
var wordsPools [wordsClasses]blockPool

func init() {
	for k := range wordsPools {
		size := uintptr(wordsMin<<k) * 8
		wordsPools[k].size, wordsPools[k].chunk = size, max(size, wordsChunk)
	}
}

// wordsClass returns the class of an array of n words, n <= wordsMax.
func wordsClass(n int) int {
	k := 0
	for wordsMin<<k < n {
		k++
	}
	return k
}

// AllocWords returns a zeroed array of n words whose capacity is its size
// class, outside the Go heap if n <= wordsMax. The caller frees it with
// FreeWords once nothing refers to it; it must hold no pointer.
func AllocWords(n int) []uint64 {
	w := AllocWordsUncleared(n)
	if n <= wordsMax {
		clear(w[:cap(w)]) // the last user's words (the heap's come zeroed)
	}
	return w
}

// AllocWordsUncleared is AllocWords without the clear: the words hold
// whatever their last user left. It is for an owner that reads no word
// it has not written, such as a channel's arena, whose slots are read
// only up to the length of the clock copied into them: clearing the
// arenas of clocks as wide as thousands of goroutines, made anew as a
// channel's queue shrinks and grows, was a quarter of the time of a
// goroutine pool's suite (docs/results.md).
func AllocWordsUncleared(n int) []uint64 {
	if n > wordsMax {
		return ownheap.Make[uint64](n, n)
	}
	k := wordsClass(n)
	var b [1]uintptr
	wordsPools[k].get(b[:])
	return unsafe.Slice((*uint64)(ptrOf(b[0])), wordsMin<<k)[:n]
}

// FreeWords returns the array of w, which AllocWords made (any slice of it
// that starts at its first word, at its full capacity), for reuse; nil and
// heap arrays are left to the collector.
func FreeWords(w []uint64) {
	c := cap(w)
	if c < wordsMin || c > wordsMax || c&(c-1) != 0 {
		return // nil, or from the heap (above wordsMax)
	}
	wordsPools[wordsClass(c)].put([]uintptr{uintptr(unsafe.Pointer(unsafe.SliceData(w[:1])))})
}
