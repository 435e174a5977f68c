// Copyright 2026 The bigfoot Authors. All rights reserved.

package detector

import "runtime"

// Package testing's edges (docs/runtime.md, "Package testing").
//
// bigfoot's driver adds calls of these hooks to package testing, at the
// channel operations and go statements that order tests as Go's race
// detector sees them (driver/testingedges.go): a release of a key before
// a send, close or go statement, an acquire of it after the receive or at
// the new goroutine's start. The key is a channel or a *T, *B or *F,
// keyed by its pointer. testing's files reach the variables through
// linknames.
//
//lint:ignore U1000 package testing reads them through linknames.
var testingAcquire, testingRelease func(x any)

func init() {
	testingAcquire = func(x any) {
		Cur().acquire(dataWord(x))
		runtime.KeepAlive(x)
	}
	testingRelease = func(x any) {
		g := Cur()
		g.release(dataWord(x))
		g.publishIfWider()
		runtime.KeepAlive(x)
	}
}

// testingEdges is set, in package testing's init, where bigfoot's driver
// added the edges to it: Run then passes the subtest's function as it is.
// The variable is that file's through a linkname: no other code writes
// it.
var testingEdges bool
