// Copyright 2026 The bigfoot Authors. All rights reserved.

//go:build linux && !race

package shadow

import (
	"syscall"
	"unsafe"
)

// Bytes mapped at a time for granules and slot arrays.
const (
	granuleChunk = hugePage
	slotsChunk   = 1 << 20
)

// hugePage is the size of a transparent huge page on common Linux
// configurations.
const hugePage = 2 << 20

// mapMemory returns n bytes of zeroed memory outside the Go heap. It is
// never unmapped: blocks are recycled through their pool's free list.
//
// If huge, the memory is aligned to and advised for transparent huge
// pages: granules are recycled in the order the sweeper frees them, so a
// goroutine's consecutive granules lie far apart, and with 4 KiB pages
// each first touch of one missed the TLB (the largest cost on montecarlo
// after the move off the heap). The bytes of the mapping outside the
// aligned n are never touched and so never resident. Slot arrays are
// used a page at a time and are not worth the resident overhead.
//
// It makes the system calls itself: syscall.Mmap locks a sync.Mutex,
// which in a race-checked binary is a synchronization event the detector
// records, in the middle of a shadow access.
func mapMemory(n uintptr, huge bool) unsafe.Pointer {
	extra := uintptr(0)
	if huge {
		extra = hugePage
	}
	p, _, errno := syscall.RawSyscall6(syscall.SYS_MMAP, 0, n+extra,
		syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE, ^uintptr(0), 0)
	if errno != 0 {
		panic("bigfoot: cannot map shadow memory: " + errno.Error())
	}
	if !huge {
		return ptrOf(p)
	}
	a := (p + hugePage - 1) &^ (hugePage - 1)
	// Advice only: without huge pages the memory works the same.
	syscall.RawSyscall(syscall.SYS_MADVISE, a, n, 14 /* MADV_HUGEPAGE */)
	return ptrOf(a)
}
