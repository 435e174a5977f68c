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

func init() {
	if goidOff = runtimeGoidOff; goidOff == 0 {
		calibrate()
	}
	calibrateSlot()
}

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

// slotOff is the offset in runtime.g of the word in which the calling
// goroutine's G is kept once it has one, making Cur a load (curG); 0
// where the runtime does not have the goroutine hooks. The word is
// racectx, which only -race builds use otherwise and the hooks use to
// hand a go statement's state to the new goroutine (driver/gohook.go):
// the runtime's newproc1 sets it for every new goroutine, so a reused g
// never carries its previous goroutine's G, and moves to the new goroutine
// only a value whose low bit is clear, a go statement's state (ForkNext).
// The goroutine's own G is kept with the bit set (G.keep).
var slotOff uintptr

// calibrateSlot finds slotOff: the one offset at which the runtime's
// setter (runtimeSetChild) stores each of two values in the calling
// goroutine's g. Like goidOff, it is measured rather than hard-coded. It
// calls no other function while a value is in the word: the instrumented
// standard library's hooks would take it for a go statement's state.
func calibrateSlot() {
	if runtimeSetChild == nil || runtimeTakeChild == nil {
		return
	}
	const maxOff = 448 // within runtime.g (456 bytes in go1.26, racectx at 312)
	const ptr = unsafe.Sizeof(uintptr(0))
	const v1, v2 = 0x5a5a_1f2e_3d4c_5b6a, 0x1a2b_3c4d_5e6f_7081
	gp := getg()
	saved := runtimeTakeChild()
	var at [maxOff / ptr]uint8 // bit 0: holds v1; bit 1: holds v2
	for i, v := range [2]uintptr{v1, v2} {
		runtimeSetChild(v)
		for off := 2 * ptr; off < maxOff; off += ptr {
			if *(*uintptr)(unsafe.Add(gp, off)) == v {
				at[off/ptr] |= 1 << i
			}
		}
	}
	runtimeSetChild(saved)
	found := uintptr(0)
	for i, b := range at {
		if b == 3 {
			if found != 0 {
				return // two candidates
			}
			found = uintptr(i) * ptr
		}
	}
	slotOff = found
}

// slot returns the calling goroutine's word at slotOff, whose g is gp.
// slotOff must not be 0.
func slot(gp unsafe.Pointer) *uintptr { return (*uintptr)(unsafe.Add(gp, slotOff)) }

// curG returns the G kept in the calling goroutine's slot (G.keep), or nil
// if the slot holds none: it is empty, or holds the state a go statement
// prepared (for the goroutine the caller's next go statement creates, or
// for the calling goroutine, which adopt takes). A G in a slot is kept
// reachable by the registry until Exit empties the slot.
func curG() *G {
	if slotOff == 0 {
		return nil
	}
	gp := getg()
	if w := *slot(gp); w&1 != 0 {
		w &^= 1
		if g := *(**G)(unsafe.Pointer(&w)); g.t.GP == gp {
			return g
		}
	}
	return nil
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
