// Copyright 2026 The bigfoot Authors. All rights reserved.

//go:build (amd64 || arm64) && !bigfoot_portable

package detector

import "unsafe"

// framePointer returns the frame pointer of its caller: the word where
// the caller saved its own caller's frame pointer, one word below the
// caller's return address (amd64: BP; arm64: R29). A frameless
// assembly function leaves the register as its caller set it.
func framePointer() unsafe.Pointer

// The history (history.go) identifies the stack of an access by walking
// the frame pointers of the goroutine's stack, as Go's execution tracer
// does (runtime.fpTracebackPCs): two loads per frame, where
// runtime.Callers looks up each frame's function metadata. The walk
// yields return addresses, like runtime.Callers, so that
// runtime.CallersFrames expands them, inlined calls included. It stays
// within the goroutine's stack (gp's bounds) and stops at a frame
// pointer that does not move towards the stack's top, so a frame
// without one ends the walk early rather than leaving the stack.

const ptrSize = unsafe.Sizeof(uintptr(0))

// walkFrames stores in pcs (if not nil) the return address of each frame
// from fp, the frame pointer of a function running on gp's stack, towards
// the stack's top, at most maxStack, and returns their number and hash.
func walkFrames(gp, fp unsafe.Pointer, pcs *[maxStack]uintptr) (n int, hash uint64) {
	hash = hashSeed
	if gp == nil {
		return 0, hash
	}
	lo := *(*uintptr)(gp)
	hi := *(*uintptr)(unsafe.Add(gp, ptrSize))
	for n < maxStack {
		a := uintptr(fp)
		if a < lo || a+2*ptrSize > hi {
			break
		}
		pc := *(*uintptr)(unsafe.Add(fp, ptrSize))
		if pc == 0 {
			break
		}
		if pcs != nil {
			pcs[n] = pc
		}
		hash = (hash ^ uint64(pc)) * hashPrime
		n++
		next := *(*unsafe.Pointer)(fp)
		if uintptr(next) <= a {
			break
		}
		fp = next
	}
	return n, hash
}

// stackHash returns the hash of the stack of the goroutine whose g is
// gp, the calling one, from its caller's return address (FNV-1a over the
// return addresses), and stackPCs stores the same return addresses in
// pcs. Both start at their caller's frame, so one caller calling both
// gets one stack.
//
//go:noinline
func stackHash(gp unsafe.Pointer) uint64 {
	_, h := walkFrames(gp, *(*unsafe.Pointer)(framePointer()), nil)
	return h
}

// stackPCs: see stackHash.
//
//go:noinline
func stackPCs(gp unsafe.Pointer, pcs *[maxStack]uintptr) int {
	n, _ := walkFrames(gp, *(*unsafe.Pointer)(framePointer()), pcs)
	return n
}
