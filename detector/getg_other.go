// Copyright 2026 The bigfoot Authors. All rights reserved.

//go:build !(amd64 || arm64) || bigfoot_portable

package detector

import "unsafe"

// haveG reports whether getg is implemented. Here it is not: goroutines are
// identified by the goid parsed from runtime.Stack (about a microsecond),
// and stack memory cannot be recognized.
const haveG = false

var goidOff uintptr

// slotOff is 0: there is no g to keep a goroutine's G in (see getg_asm.go).
const slotOff = 0

func slot(unsafe.Pointer) *uintptr { return nil }

func curG() *G { return nil }

func curKey() (uintptr, unsafe.Pointer) {
	return uintptr(stackGoid()), nil
}

func goidOf(unsafe.Pointer) uint64 { return 0 }

func curGoid(unsafe.Pointer) uint64 { return uint64(stackGoid()) }
