// Copyright 2026 The bigfoot Authors. All rights reserved.

//go:build (amd64 || arm64) && !bigfoot_portable

package detector

import "unsafe"

// haveG reports whether getg is implemented: the registry is then keyed by
// the runtime's g pointer and stack memory is recognized.
const haveG = true

// getg returns the runtime's g of the calling goroutine (in assembly: the
// TLS slot on amd64, register g (R28) on arm64).
func getg() unsafe.Pointer

// goidOff is the offset of goid in runtime.g, found by calibrate; 0 if
// unknown. Go reuses a g for a new goroutine after the old one exits, so a
// registry entry is valid only while the goid stored in the g matches.
var goidOff uintptr

func init() { calibrate() }

// calibrate finds goidOff by scanning the g of several goroutines for a
// word equal to their goid (parsed from runtime.Stack); the offset common
// to all of them is goid's. Field layouts of runtime.g change between Go
// releases, which is why this is measured instead of hard-coded.
func calibrate() {
	const maxOff = 256 // within runtime.g, which is larger; goid is near 160
	const ptr = unsafe.Sizeof(uintptr(0))
	scan := func() map[uintptr]bool {
		gp := getg()
		id := uint64(stackGoid())
		m := map[uintptr]bool{}
		for off := uintptr(2 * ptr); off < maxOff; off += 8 {
			if *(*uint64)(unsafe.Add(gp, off)) == id {
				m[off] = true
			}
		}
		return m
	}
	cand := scan()
	for i := 0; i < 4 && len(cand) > 1; i++ {
		ch := make(chan map[uintptr]bool)
		go func() { ch <- scan() }()
		m := <-ch
		for off := range cand {
			if !m[off] {
				delete(cand, off)
			}
		}
	}
	if len(cand) == 1 {
		for off := range cand {
			goidOff = off
		}
	}
}

// curKey returns the registry key and g of the calling goroutine.
func curKey() (uintptr, unsafe.Pointer) {
	gp := getg()
	return uintptr(gp), gp
}

// goidOf returns the goid of the goroutine whose g is gp, or 0 if unknown.
func goidOf(gp unsafe.Pointer) uint64 {
	if goidOff == 0 {
		return 0
	}
	return *(*uint64)(unsafe.Add(gp, goidOff))
}

// curGoid returns the calling goroutine's id.
func curGoid(gp unsafe.Pointer) uint64 {
	if id := goidOf(gp); id != 0 {
		return id
	}
	return uint64(stackGoid())
}
