// Copyright 2026 The bigfoot Authors. All rights reserved.

//go:build !(amd64 || arm64) || bigfoot_portable

package detector

import (
	"runtime"
	"unsafe"
)

// Without frame pointers to walk (callers_fp.go), the history takes
// stacks from runtime.Callers: the same return addresses, at the cost of
// a lookup of each frame's function metadata.

// stackHash returns the hash of the calling goroutine's stack from its
// caller's return address (FNV-1a over the return addresses), and
// stackPCs stores the same return addresses in pcs.
//
//go:noinline
func stackHash(unsafe.Pointer) uint64 {
	var pcs [maxStack]uintptr
	return hashPCs(pcs[:runtime.Callers(3, pcs[:])])
}

// stackPCs: see stackHash.
//
//go:noinline
func stackPCs(_ unsafe.Pointer, pcs *[maxStack]uintptr) int {
	return runtime.Callers(3, pcs[:])
}
