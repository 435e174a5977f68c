// Copyright 2026 The bigfoot Authors. All rights reserved.

package detector

import (
	"sync/atomic"
	"unsafe"
	"weak"
)

// weakLive reports whether the object wp was made for has not been freed,
// for a caller that keeps an object at wp's address reachable: then it
// answers "is the object at this address still the one wp was made for",
// which is what the sync-object and channel tables ask on every operation
// (a dead mutex or channel whose memory now holds a new one).
//
// wp.Value answers it too, but it makes a strong pointer: it finds the
// span, sweeps it if needed and shades the object during a mark phase,
// about 15 ns, which was a third of an Acquire or a Release. Asking the
// question needs less. A weak pointer refers to a handle word that holds
// the object's address until the sweep that frees the object clears it,
// and the runtime clears it before the memory can be allocated again
// (runtime.mspan.sweep frees an object's specials, the weak handle
// among them, before the slot returns to the free list). So if the
// handle is still set, the object was not freed; the live object the
// caller holds at that address is the same one. If it is clear, the
// object was freed (or queued for finalization, which clears it too),
// and Value would return nil as well.
//
// The handle is package weak's internal representation; weakRaw is set
// at initialization only if a weak pointer to a fresh object has that
// shape, else weakLive calls Value.
func weakLive(wp weak.Pointer[byte]) bool {
	if !weakRaw {
		return weakValueLive(wp)
	}
	h := *(*unsafe.Pointer)(unsafe.Pointer(&wp))
	return h != nil && atomic.LoadUintptr((*uintptr)(h)) != 0
}

// weakValueLive is weakLive's fallback, out of line so that weakLive
// inlines.
//
//go:noinline
func weakValueLive(wp weak.Pointer[byte]) bool { return wp.Value() != nil }

// weakRaw reports whether weak.Pointer is one word pointing to a handle
// that holds the object's address (see weakLive).
var weakRaw = probeWeak()

var weakProbe *[4]uintptr // keeps probeWeak's object reachable

func probeWeak() bool {
	var zero weak.Pointer[byte]
	if unsafe.Sizeof(zero) != unsafe.Sizeof(uintptr(0)) || *(*unsafe.Pointer)(unsafe.Pointer(&zero)) != nil {
		return false
	}
	weakProbe = new([4]uintptr)
	p := (*byte)(unsafe.Pointer(weakProbe))
	wp := weak.Make(p)
	h := *(*unsafe.Pointer)(unsafe.Pointer(&wp))
	return h != nil && atomic.LoadUintptr((*uintptr)(h)) == uintptr(unsafe.Pointer(p)) && wp.Value() == p
}
