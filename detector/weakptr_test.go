// Copyright 2026 The bigfoot Authors. All rights reserved.

package detector

import (
	"runtime"
	"testing"
	"unsafe"
	"weak"
)

// TestWeakLive checks weakLive against weak.Pointer.Value: set while the
// object lives, clear once the collector freed it.
func TestWeakLive(t *testing.T) {
	if !weakRaw {
		t.Fatal("weak.Pointer's layout is not the one weakLive reads; it falls back to Value (slower)")
	}
	p := new([4]uintptr)
	wp := weak.Make((*byte)(unsafe.Pointer(p)))
	if !weakLive(wp) {
		t.Fatal("weakLive = false for a live object")
	}
	runtime.KeepAlive(p)
	for i := 0; i < 20 && wp.Value() != nil; i++ {
		runtime.GC()
	}
	if wp.Value() != nil {
		t.Skip("the object survived 20 collections (kept alive by the stack?)")
	}
	if weakLive(wp) {
		t.Fatal("weakLive = true after the object was freed")
	}
	if weakLive(weak.Pointer[byte]{}) {
		t.Fatal("weakLive = true for the zero weak pointer")
	}
}
