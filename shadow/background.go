// Copyright 2026 The bigfoot Authors. All rights reserved.

package shadow

import "github.com/bigfoot-go/bigfoot/internal/ownheap"

// The shadow's background work (a sweep after each GC cycle, the release
// of held objects, the detector's hooks after a cycle, a cycle the pacer
// starts) runs in goroutines of its own. Go's race runtime does the same
// work in threads the program never sees; a goroutine the program can see
// changes what it observes: runtime.NumGoroutine, the goroutine profile,
// runtime.Stack of all goroutines (a test that checks for leaked
// goroutines counts it), and a goroutine started while the caller runs in
// a synctest bubble, or under pprof labels, inherits them.
//
// The driver's file in package runtime (driver/gohook.go) sets runtimeGo
// to a function that starts f from a go statement of the runtime's own,
// so that the new goroutine is a system goroutine, which the runtime hides
// from all of these as it hides its GC workers. Without that file (the
// shadow's own tests, a toolchain whose runtime does not take the hooks)
// the goroutine is an ordinary one.

// runtimeGo starts f in a system goroutine; set in the runtime's init
// through a linkname, nil without the driver's file.
var runtimeGo func(f func())

// goBackground runs f in a goroutine of its own, a system goroutine where
// the runtime allows it.
//
// Everything the goroutine allocates is the detector's (internal/ownheap),
// left out of the program's allocation statistics: a sweep during a
// test's testing.AllocsPerRun is not the code under test.
func goBackground(f func()) {
	run := func() {
		m := ownheap.Begin()
		defer m.End() // the g is reused, as the program's next goroutine
		f()
	}
	if start := runtimeGo; start != nil {
		start(run)
		return
	}
	go run()
}
