// Copyright 2026 The bigfoot Authors. All rights reserved.

package detector

// Calls into C as synchronization. C code is not instrumented, and it may
// synchronize goroutines in ways no hook sees (a C mutex, an atomic in C,
// a thread that signals another). As Go's race runtime does (cgocall in
// runtime/cgocall.go: racereleasemerge(&racecgosync) before the call,
// raceacquire(&racecgosync) after it; cgocallbackg the reverse around a
// call from C into Go), there is one process-wide sync object for all of
// C: a goroutine releases into it before each C call and acquires from it
// after the call returns, and a Go function called from C (//export)
// acquires at entry and releases at exit. This orders every C call after
// every C call that began before it returned: it may hide a race, never
// invent one. The instrumenter emits the hooks at the C calls and in the
// exported functions of files that import "C".

// cgoSync is the process-wide sync object of C code.
var cgoSync clockBox

// CgoArg releases into the C sync object and returns v: emitted code wraps
// the last argument of a C call in it, so that the release follows the
// evaluation (and the checks) of the arguments and precedes the call.
func CgoArg[T any](g *G, v T) T {
	cgoSync.release(g)
	return v
}

// CgoPre releases into the C sync object and returns g: for a C call with
// no argument CgoArg can wrap, it is evaluated right before the call, as
// the first argument of CgoRet.
func CgoPre(g *G) *G {
	cgoSync.release(g)
	return g
}

// CgoRet acquires from the C sync object after a C call and returns the
// call's result: CgoRet(g, C.f(CgoArg(g, x))).
func CgoRet[T any](g *G, v T) T {
	cgoSync.acquire(g)
	return v
}

// CgoRelease releases into the C sync object: it precedes a C call run by
// a go or defer statement, whose arguments were evaluated earlier, or a
// statement whose C call has no argument CgoArg can wrap.
func CgoRelease(g *G) { cgoSync.release(g) }

// CgoAcquire acquires from the C sync object after a C call that CgoRet
// cannot wrap: a void call whose pointer arguments cgo checks (cgo makes
// it a function literal without a result), the two-result form r, err :=
// C.f(x), or a call run by a go or defer statement. CgoRelease precedes
// such a call when no argument can carry CgoArg.
func CgoAcquire(g *G) { cgoSync.acquire(g) }

// CgoCallback is called at the entry of a Go function exported to C: it
// acquires from the C sync object, as Go's runtime does when C calls into
// Go.
func CgoCallback(g *G) { cgoSync.acquire(g) }

// CgoCallbackEnd is deferred by a Go function exported to C: it releases
// into the C sync object when the function returns to C.
func CgoCallbackEnd(g *G) { cgoSync.release(g) }
