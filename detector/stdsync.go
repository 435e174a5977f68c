// Copyright 2026 The bigfoot Authors. All rights reserved.

package detector

import (
	"github.com/bigfoot-go/bigfoot/internal/ownheap"
	"sync/atomic"
	"unsafe"
)

// Synchronization hooks of instrumented standard-library packages whose
// user-level counterparts are generic or methods (docs/build.md, "The
// standard library"): the shim (driver/stdshim.go) keeps the generic
// part and reaches these through //go:linkname. The shim calls them only
// with a goroutine state (stdCur's, not nil); without one it performs the
// plain operation. The exported, non-generic hooks (SelectPre, SendPre,
// AfterFunc, the atomics, ...) are linknamed directly.

//lint:file-ignore U1000 the hooks are called from the instrumented standard library through //go:linkname.

// stdFork is g.Fork.
//
//go:linkname stdFork
func stdFork(g *G, site uint32) *Child { return g.Fork(site) }

// stdForkNext is g.ForkNext.
//
//go:linkname stdForkNext
func stdForkNext(g *G, site uint32) { g.ForkNext(site) }

// stdStart is Start.
//
//go:linkname stdStart
func stdStart(c *Child) *G { return Start(c) }

// stdExit is g.Exit.
//
//go:linkname stdExit
func stdExit(g *G) { g.Exit() }

// stdSendPre announces a send on the channel at p (its pointer word);
// stdSendPost completes it, as SendPre and SendPost do.
//
//go:linkname stdSendPre
func stdSendPre(g *G, p unsafe.Pointer) { g.sendPre(uintptr(p)) }

//go:linkname stdSendPost
func stdSendPost(g *G, p unsafe.Pointer, capacity int) {
	if p != nil {
		g.sendPost(g.chanOf(uintptr(p)), capacity)
	}
}

// stdRecvPre announces a receive from the channel at p; stdRecvPost
// completes it (gotValue: the receive got a sent value, not the close).
//
//go:linkname stdRecvPre
func stdRecvPre(g *G, p unsafe.Pointer) { g.recvPre(uintptr(p)) }

//go:linkname stdRecvPost
func stdRecvPost(g *G, p unsafe.Pointer, gotValue bool) {
	if p != nil {
		g.recvPost(g.chanOf(uintptr(p)), gotValue)
	}
}

// stdClose precedes close of the channel at p (Close).
//
//go:linkname stdClose
func stdClose(g *G, p unsafe.Pointer) { Close(g, p) }

// stdAtomicPointerLoad and the rest are atomic.Pointer's methods, whose
// layout does not depend on the element type.
//
//go:linkname stdAtomicPointerLoad
func stdAtomicPointerLoad(g *G, x unsafe.Pointer) unsafe.Pointer {
	return unsafe.Pointer(AtomicPointerLoad(g, (*atomic.Pointer[byte])(x)))
}

//go:linkname stdAtomicPointerStore
func stdAtomicPointerStore(g *G, x, val unsafe.Pointer) {
	AtomicPointerStore(g, (*atomic.Pointer[byte])(x), (*byte)(val))
}

//go:linkname stdAtomicPointerSwap
func stdAtomicPointerSwap(g *G, x, new unsafe.Pointer) unsafe.Pointer {
	return unsafe.Pointer(AtomicPointerSwap(g, (*atomic.Pointer[byte])(x), (*byte)(new)))
}

//go:linkname stdAtomicPointerCompareAndSwap
func stdAtomicPointerCompareAndSwap(g *G, x, old, new unsafe.Pointer) bool {
	return AtomicPointerCompareAndSwap(g, (*atomic.Pointer[byte])(x), (*byte)(old), (*byte)(new))
}

// stdRelease and stdAcquire release into and acquire the clock of the
// sync object at p: a timer's creation and resets before the receives
// from its channel (TimerRelease, TimerAcquire).
//
//go:linkname stdRelease
func stdRelease(g *G, p unsafe.Pointer) { g.release(uintptr(p)) }

//go:linkname stdAcquire
func stdAcquire(g *G, p unsafe.Pointer) { g.acquire(uintptr(p)) }

// stdSnapshot returns a clock holding what g has done so far, and
// stdAfterSnapshot orders the calling goroutine after it, as a cleanup
// (AddCleanup) or a finalizer is ordered after its registration.
//
//go:linkname stdSnapshot
func stdSnapshot(g *G) *clockBox { return g.snapshot() }

//go:linkname stdAfterSnapshot
func stdAfterSnapshot(b *clockBox) { afterRegistration(b) }

// stdOnceStart returns a clock for a OnceValue or OnceValues function;
// stdOnceDone releases the goroutine that ran it into the clock, and
// stdOnceAfter orders a caller after it (OnceValue's edge).
//
//go:linkname stdOnceStart
func stdOnceStart() *clockBox { return ownheap.New[clockBox]() }

//go:linkname stdOnceDone
func stdOnceDone(b *clockBox) { b.release(Cur()) }

//go:linkname stdOnceAfter
func stdOnceAfter(b *clockBox) { b.acquire(Cur()) }
