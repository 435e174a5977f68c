// Copyright 2026 The bigfoot Authors. All rights reserved.

//go:build !race

package shadow

// prefetch starts loading the cache line at addr, without waiting for it
// (PREFETCHT0): the next off-heap block a goroutine will write.
//
//go:noescape
func prefetch(addr uintptr)
