// Copyright 2026 The bigfoot Authors. All rights reserved.

package shadow

import "unsafe"

// Object bounds.
//
// Deferred checks (footprints) and the runs of the adaptive array shadow
// must each stay within one heap object: the garbage collector frees and
// reuses each object on its own, so a pending range that runs from one
// object into the next, or a run whose GC state (generation stamp, weak
// pointer) is that of its first object, would outlive the second and check
// or keep state of whatever the memory holds next (a false race).
//
// The runtime's findObject (reachable by linkname, go.dev/issue/67401)
// returns the base of the object that contains an address and its span;
// the object's slot size is the span's elemsize (a size class, or the
// span's bytes for a large object). The offset of elemsize in the runtime's
// mspan is not exported; it is measured once at start-up (calibrateSpan)
// on objects whose slot size is known, as the goroutine id's offset in g
// is (detector.calibrate). Objects of a slot never share it with other
// objects, except the tiny allocator's 16-byte blocks of pointer-free
// objects, which are freed together.

// elemsizeOff is the offset of elemsize in the runtime's mspan, 0 if it
// could not be measured.
var elemsizeOff = calibrateSpan()

var probeSink []spanProbe

// spanProbe is an object whose slot size is known.
type spanProbe struct {
	p    unsafe.Pointer
	size uintptr
}

// calibrateSpan returns the offset of the word in the runtime's mspan that
// holds the slot size of the span's objects, found on objects of several
// known slot sizes (size classes 48 and 3072, a pointer-holding class of
// 80 bytes and a large object of 5 pages), or 0 if no offset fits them all.
func calibrateSpan() uintptr {
	// The probes go through probeSink so that they are heap objects.
	probeSink = []spanProbe{
		{unsafe.Pointer(&make([]byte, 48)[0]), 48},
		{unsafe.Pointer(new([10]*int)), 80},
		{unsafe.Pointer(&make([]byte, 3072)[0]), 3072},
		{unsafe.Pointer(&make([]byte, 5*8192)[0]), 5 * 8192},
	}
	probes := probeSink
	defer func() { probeSink = nil }()
	const maxOff = 256
	off := uintptr(0)
	word := unsafe.Sizeof(uintptr(0))
	for o := word; o < maxOff && off == 0; o += word {
		fits := true
		for _, pr := range probes {
			base, s, _ := findObject(uintptr(pr.p), 0, 0)
			if base != uintptr(pr.p) || s == nil || *(*uintptr)(unsafe.Add(s, o)) != pr.size {
				fits = false
				break
			}
		}
		if fits {
			off = o
		}
	}
	return off
}

// spanclassOff is the offset of spanclass in the runtime's mspan (the size
// class shifted left by one, or-ed with 1 for spans of pointer-free
// objects), or -1 if it could not be measured.
var spanclassOff = calibrateSpanclass()

// noscanProbes are pairs of objects of one size class, pointer-free and
// with pointers, for calibrateSpanclass; the two pairs' classes differ.
var noscanProbes []unsafe.Pointer

// calibrateSpanclass returns the offset of the byte in the runtime's mspan
// that holds the span's class, found on pointer-free and pointer-holding
// objects of two size classes (48 and 80 bytes), or -1 if no offset fits
// them all.
func calibrateSpanclass() int {
	noscanProbes = []unsafe.Pointer{
		unsafe.Pointer(&make([]byte, 48)[0]), unsafe.Pointer(new([6]*int)),
		unsafe.Pointer(&make([]byte, 80)[0]), unsafe.Pointer(new([10]*int)),
	}
	defer func() { noscanProbes = nil }()
	var spans [4]unsafe.Pointer
	for i, p := range noscanProbes {
		_, spans[i], _ = findObject(uintptr(p), 0, 0)
		if spans[i] == nil {
			return -1
		}
	}
	const maxOff = 256
	for o := range maxOff {
		var c [4]byte
		for i, sp := range spans {
			c[i] = *(*byte)(unsafe.Add(sp, o))
		}
		if c[0]&1 == 1 && c[1]&1 == 0 && c[2]&1 == 1 && c[3]&1 == 0 &&
			c[0]>>1 == c[1]>>1 && c[2]>>1 == c[3]>>1 && c[0]>>1 != 0 && c[0] != c[2] {
			return o
		}
	}
	return -1
}

// objectSpan returns the base address, the slot size (0 if unknown) and
// the span of the heap object that contains a, which the caller keeps
// reachable, or a nil span for memory outside the heap.
//
// a may be an address on the calling goroutine's stack (a footprint's
// first element, a copy's range), which findObject answers as outside
// the heap. A uintptr is not adjusted when the stack moves: if this
// function's prologue grew the stack, a would point into the old stack's
// span, freed, and findObject would take it for a bad pointer and throw
// (a recursive sort of a local array, whose frames grew with the
// compiler's pointer checks). So it is nosplit, as findObject is.
//
//go:nosplit
func objectSpan(a uintptr) (base, size uintptr, s unsafe.Pointer) {
	base, s, _ = findObject(a, 0, 0)
	if base == 0 || s == nil {
		return 0, 0, nil
	}
	if elemsizeOff != 0 {
		size = *(*uintptr)(unsafe.Add(s, elemsizeOff))
	}
	return base, size, s
}

// noscanObject reports whether the heap object that contains a (which the
// caller keeps reachable) is known to hold no pointers, and returns its
// base address and slot size (0 if unknown).
func noscanObject(a uintptr) (base, size uintptr, noscan bool) {
	base, size, s := objectSpan(a)
	noscan = s != nil && spanclassOff >= 0 && *(*byte)(unsafe.Add(s, spanclassOff))&1 == 1
	return base, size, noscan
}

// ObjectBounds returns the base address and the slot size of the heap
// object that contains a, which the caller keeps reachable. heap is false
// for memory outside the heap (globals, stacks, memory not managed by Go).
// size is 0 for a heap object whose size could not be determined (the
// runtime's mspan changed layout); callers must then not assume the
// object extends beyond the bytes they know of.
func ObjectBounds(a uintptr) (base, size uintptr, heap bool) {
	base, size, s := objectSpan(a)
	return base, size, s != nil
}

// SameObject reports whether a and b lie in one heap object, or both
// outside the heap (the caller keeps both reachable). It is nosplit for
// the reason objectSpan is.
//
//go:nosplit
func SameObject(a, b uintptr) bool {
	ba, _, _ := findObject(a, 0, 0)
	bb, _, _ := findObject(b, 0, 0)
	return ba == bb
}
