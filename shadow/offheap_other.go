// Copyright 2026 The bigfoot Authors. All rights reserved.

//go:build !linux || race

package shadow

import (
	"unsafe"

	"github.com/bigfoot-go/bigfoot/internal/spin"
)

// Bytes allocated at a time for granules and slot arrays: small, because
// here they come from the Go heap, where a large allocation can start a GC
// cycle between two accesses of a race (unshared state from before a cycle
// is dropped: gc.go).
const (
	granuleChunk = 64 << 10
	slotsChunk   = 64 << 10
)

var (
	chunksMu spin.Mutex
	chunks   [][]byte
)

// mapMemory returns n bytes of zeroed memory. Outside Linux, and in the
// shadow's own tests under go test -race (whose detector ignores atomic
// operations outside the memory Go manages, and so would miss the
// ordering that publishing a granule through a slot provides), it comes
// from the Go heap, as pointer-free chunks kept reachable forever: the
// pacer counts them, but the rules of offheap.go (nothing the collector
// must see is reachable only from them) hold all the same.
func mapMemory(n uintptr, huge bool) unsafe.Pointer {
	b := make([]byte, n)
	chunksMu.Lock()
	chunks = append(chunks, b)
	chunksMu.Unlock()
	return unsafe.Pointer(unsafe.SliceData(b))
}
