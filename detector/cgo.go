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

// CgoArgSync releases into and acquires from the C sync object before a C
// call whose result CgoRet cannot wrap (the two-result form r, err :=
// C.f(x), whose context cgo must see): it wraps the last argument.
func CgoArgSync[T any](g *G, v T) T {
	cgoSync.release(g)
	cgoSync.acquire(g)
	return v
}

// CgoRet acquires from the C sync object after a C call and returns the
// call's result: CgoRet(g, C.f(CgoArg(g, x))).
func CgoRet[T any](g *G, v T) T {
	cgoSync.acquire(g)
	return v
}

// CgoCallback is called at the entry of a Go function exported to C: it
// acquires from the C sync object, as Go's runtime does when C calls into
// Go.
func CgoCallback(g *G) { cgoSync.acquire(g) }

// CgoCallbackEnd is deferred by a Go function exported to C: it releases
// into the C sync object when the function returns to C.
func CgoCallbackEnd(g *G) { cgoSync.release(g) }
