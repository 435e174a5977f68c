// Copyright 2026 The bigfoot Authors. All rights reserved.

package detector

import (
	"reflect"
	"unsafe"
)

// Accesses through package reflect. The standard library is not
// instrumented, so emitted code announces the memory a reflect.Value
// method reads or writes at the call site: v.SetInt(1) becomes
// __bf.ReflectW(g, site, v).SetInt(1), v.Int() becomes
// __bf.ReflectR(g, site, v).Int(). Only addressable values name memory
// (a Value holding a copy does not); others are not checked.

// ReflectR checks a read of the memory v designates and returns v.
func ReflectR(g *G, site uint32, v reflect.Value) reflect.Value {
	if v.CanAddr() {
		if size := v.Type().Size(); size > 0 {
			g.Read(unsafe.Pointer(v.UnsafeAddr()), size, site)
		}
	}
	return v
}

// ReflectW checks a write of the memory v designates and returns v.
func ReflectW(g *G, site uint32, v reflect.Value) reflect.Value {
	if v.CanAddr() {
		if size := v.Type().Size(); size > 0 {
			g.Write(unsafe.Pointer(v.UnsafeAddr()), size, site)
		}
	}
	return v
}

// ReflectHdr checks the reads of a method that reads v's memory only where
// v is a header (Len, Index, Elem, MapIndex, ...): the header itself, and
// on a map the map, as the runtime's map functions check it under go
// -race (mapaccess and maplen read it).
func ReflectHdr(g *G, site uint32, v reflect.Value) reflect.Value {
	switch v.Kind() {
	case reflect.Slice, reflect.String, reflect.Pointer, reflect.Interface, reflect.Chan, reflect.UnsafePointer:
		ReflectR(g, site, v)
	case reflect.Map:
		ReflectR(g, site, v)
		if p := v.UnsafePointer(); p != nil {
			g.Read(p, 1, site)
		}
	}
	return v
}

// ReflectMapW checks v.SetMapIndex: a read of v's memory and a write of
// the map (mapassign and mapdelete write it).
func ReflectMapW(g *G, site uint32, v reflect.Value) reflect.Value {
	if v.Kind() != reflect.Map {
		return v
	}
	ReflectR(g, site, v)
	if p := v.UnsafePointer(); p != nil {
		g.Write(p, 1, site)
	}
	return v
}

// ReflectCopy is reflect.Copy(dst, src) with the element ranges it writes
// and reads checked, as copy(dst, src) is.
func ReflectCopy(g *G, site uint32, dst, src reflect.Value) int {
	n := reflect.Copy(dst, src)
	if n == 0 {
		return n
	}
	elem := dst.Type().Elem().Size()
	if elem == 0 {
		return n
	}
	if base, ok := elements(src); ok {
		g.ReadRange(base, elem, 0, n, 1, site)
	}
	if base, ok := elements(dst); ok {
		g.WriteRange(base, elem, 0, n, 1, site)
	}
	return n
}

// elements returns the address of the first element of a slice or of an
// addressable array (a string's bytes are immutable: not checked).
func elements(v reflect.Value) (unsafe.Pointer, bool) {
	switch v.Kind() {
	case reflect.Slice:
		return v.UnsafePointer(), v.Len() > 0
	case reflect.Array:
		if v.CanAddr() && v.Len() > 0 {
			return unsafe.Pointer(v.UnsafeAddr()), true
		}
	}
	return nil, false
}
