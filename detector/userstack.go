// Copyright 2026 The bigfoot Authors. All rights reserved.

package detector

import (
	"runtime"
	"sync/atomic"

	"github.com/bigfoot-go/bigfoot/internal/ownheap"
)

// The program's part of a stack the detector walks from inside itself.
//
// A walk from a detector function starts with the detector's own frames,
// and their number depends on the path that reached it: a pending check
// takes ranges from copy (Copy, moveRange) and from footprints committed
// at a return (PopFootprints, popFootprints, commitAll, commit,
// checkElems). Two ranges the program made with one stack must compare
// equal (a merge's loop and its trailing copy), so a pending check
// compares and keeps the stack from the first frame that is not the
// detector's.

// userPCs returns the return addresses of pcs from the first that is not
// in a function of the detector (or of the standard library's shim).
func userPCs(pcs []uintptr) []uintptr {
	for i, pc := range pcs {
		if !detectorPC(pc) {
			return pcs[i:]
		}
	}
	return nil
}

// detPCs caches detectorPC: the word of a return address holds it
// shifted left by one, plus one if its function is the detector's. A
// walk from one place meets the same few return addresses of the
// detector again and again.
var detPCs [256]atomic.Uint64

// detectorPC reports whether the return address pc is in a frame of a
// function of the detector's package (not its tests) or of the standard
// library's shim, as a report's isDetectorFrame decides for a frame.
func detectorPC(pc uintptr) bool {
	w := &detPCs[pc>>2%uintptr(len(detPCs))]
	if v := w.Load(); v>>1 == uint64(pc) {
		return v&1 != 0
	}
	// The function whose frame it is: the outermost of those the pc
	// expands to, whose entry FuncForPC gives (a return address in a
	// user function, after the call of a detector function inlined
	// there, is the user function's).
	// FuncForPC allocates the Func of an inlined frame: the detector's
	// (internal/ownheap), or a cache collision inside a test's
	// testing.AllocsPerRun counts allocations go -race does not make.
	m := ownheap.Begin()
	defer m.End()
	det := false
	if fn := runtime.FuncForPC(pc - 1); fn != nil {
		if outer := runtime.FuncForPC(fn.Entry()); outer != nil {
			file, _ := outer.FileLine(fn.Entry())
			det = inDetectorDir(file) || baseName(file) == stdShimName
		}
	}
	v := uint64(pc) << 1
	if det {
		v |= 1
	}
	w.Store(v)
	return det
}

// inDetectorDir reports whether file is a source file of the detector's
// directory other than a test. By hand, as baseName: the standard
// library's string packages may be instrumented.
func inDetectorDir(file string) bool {
	d := detectorDir
	if len(file) <= len(d)+1 || file[:len(d)] != d || file[len(d)] != '/' {
		return false
	}
	base := file[len(d)+1:]
	if baseName(base) != base {
		return false // a subdirectory's
	}
	const test = "_test.go"
	return len(base) < len(test) || base[len(base)-len(test):] != test
}

// baseName returns the last element of a slash-separated path.
func baseName(file string) string {
	for i := len(file) - 1; i >= 0; i-- {
		if file[i] == '/' {
			return file[i+1:]
		}
	}
	return file
}
