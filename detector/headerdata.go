// Copyright 2026 The bigfoot Authors. All rights reserved.

package detector

// HeaderData returns v. Emitted code passes it the checked read of the
// Data field of a reflect.SliceHeader or reflect.StringHeader that the
// program converts to unsafe.Pointer, as in
// unsafe.Pointer(hdr.Data). Under -d=checkptr (which -race implies) the
// compiler checks every conversion from uintptr to unsafe.Pointer for
// arithmetic that leaves its objects, and exempts two operands: a call's
// result and that field read through a pointer. The checked read is
// neither, and would fail the check wherever Data points into the heap; a
// call the compiler does not inline keeps the exemption the program had.
//
//go:noinline
func HeaderData(v uintptr) uintptr { return v }
