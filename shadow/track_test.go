// Copyright 2026 The bigfoot Authors. All rights reserved.

package shadow

import (
	"testing"
	"unsafe"
)

var trackSink *[4]int64

// trackIdent's memo of the last object is the thread's: an ident made for
// a new object costs its entry and nothing more (a shared memo was a heap
// object per ident), and the object's other words reuse it.
func TestTrackIdentAllocs(t *testing.T) {
	quiet(t)
	a := thread(1, 1, nil)
	allocs := testing.AllocsPerRun(100, func() {
		trackSink = new([4]int64)
		id := trackIdent(a, uintptr(unsafe.Pointer(&trackSink[0])))
		if id == nil || trackIdent(a, uintptr(unsafe.Pointer(&trackSink[3]))) != id {
			t.Fatal("the words of one object got different idents")
		}
	})
	if allocs != 2 {
		t.Errorf("a new object and its ident: %v heap allocations, want 2 (the object, its ident's entry)", allocs)
	}
}
