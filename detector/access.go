// Copyright 2026 The bigfoot Authors. All rights reserved.

package detector

import (
	"unsafe"

	"github.com/bigfoot-go/bigfoot/shadow"
)

// Addresses below this are never valid; an access to them panics in the
// program itself, and the shadow reserves page 0.
const minAddr = 4096

// check checks an access of [p, p+size) by g at site and reports a race.
// Checking never makes the variable escape to the heap (see
// shadow.Space.Access).
func (g *G) check(p unsafe.Pointer, size uintptr, write bool, site uint32) {
	if verifyChecks {
		g.verifyRecord(p, size, 0, 1, verifyKind(write)|vAccess|vCheck, site)
	}
	if countAccesses {
		g.accesses++
		g.checkOps++
	}
	// space.Same, written out: its common case (Cached and Granule.Same)
	// inlines here, so that a same-epoch access costs no call; a miss
	// in a granule Cached found goes on from it (SameIn).
	// An address in no cached page may be on the goroutine's own
	// stack, which the shadow never records (docs/runtime.md, "Stack
	// memory"): a pointer to a local that does not escape (a field
	// element's limbs in crypto code, a scratch array) is decided here,
	// not by the page table's lookup and the slow path's calls.
	if gr := g.t.Cached(uintptr(p)); gr != nil && (gr.Same(&g.t, uintptr(p), size, write) ||
		space.SameIn(&g.t, gr, uintptr(p), size, write)) || gr == nil && (onStack(g, p) || space.SameMiss(&g.t, uintptr(p), size, write)) {
		return
	}
	// checkSlow, written out: check does not inline (Same's call is over
	// the budget), so a call to checkSlow was a third frame on the first
	// access of every granule in an epoch (the first write of a fresh
	// object above all).
	// An access the inline path cannot decide may still be in the
	// epoch: one of a run (sortrec's records, sorted by swaps) or
	// wider than Same's 64 bytes. SameRange decides it in any form of
	// state, before the history walks the stack for nothing.
	if uintptr(p) < minAddr || space.SameRange(&g.t, uintptr(p), size, write) {
		return
	}
	g.note(site, uintptr(p), uintptr(p)+size)
	var r shadow.Race // written only on a conflict (shadow.Space.Check)
	if space.Check(&g.t, p, size, write, site, &r) {
		report(g, r, site)
	}
}

// checkSlow is check without the same-epoch check (Same), for callers
// that made it already.
func (g *G) checkSlow(p unsafe.Pointer, size uintptr, write bool, site uint32) {
	if uintptr(p) < minAddr || space.SameRange(&g.t, uintptr(p), size, write) {
		return // in the epoch: see check
	}
	g.note(site, uintptr(p), uintptr(p)+size)
	var r shadow.Race // written only on a conflict (shadow.Space.Check)
	if space.Check(&g.t, p, size, write, site, &r) {
		report(g, r, site)
	}
}

// R checks a read of *p at site and returns p: *__bf.R(__bfg, &x.f, s).
func R[T any](g *G, p *T, site uint32) *T {
	viaCheck((*G).check, g, unsafe.Pointer(p), unsafe.Sizeof(*p), false, site)
	return p
}

// W checks a write of *p at site and returns p: *__bf.W(__bfg, &x.f, s) = v.
func W[T any](g *G, p *T, site uint32) *T {
	viaCheck((*G).check, g, unsafe.Pointer(p), unsafe.Sizeof(*p), true, site)
	return p
}

// The check helpers (R, W, R1, W1, RG, WG, RG1, WG1, ReadAll1, WriteAll1)
// call their check through viaCheck and its kin, which call a parameter.
// go -race instruments after inlining; bigfoot's checks are calls the
// inliner sees, and a call of a function it cannot inline costs 57 of a
// function's budget of 80, where a call of a parameter costs 17
// (cmd/compile's inlineParamCallCost: the argument may turn out to be a
// constant function). Inlined into a helper, the kin pass a constant
// function, so the call stays one call, an indirect one, and a check costs
// the function that makes it about 32 instead of 65: functions that inline
// in a plain build stay inlinable under more checks, and what escapes in
// their callers does not change (bufio's Reader.reset, TestCheckCost).

func viaCheck(check func(*G, unsafe.Pointer, uintptr, bool, uint32), g *G, p unsafe.Pointer, size uintptr, write bool, site uint32) {
	check(g, p, size, write, site)
}

func viaCheckCur(check func(unsafe.Pointer, uintptr, bool, uint32), p unsafe.Pointer, size uintptr, write bool, site uint32) {
	check(p, size, write, site)
}

func viaGroup(check func(*G, unsafe.Pointer, uintptr, uintptr, uintptr, uintptr, bool, uint32), g *G, p unsafe.Pointer, size, anchor, lo, hi uintptr, write bool, site uint32) {
	check(g, p, size, anchor, lo, hi, write, site)
}

func viaGroupCur(check func(unsafe.Pointer, uintptr, uintptr, uintptr, uintptr, bool, uint32), p unsafe.Pointer, size, anchor, lo, hi uintptr, write bool, site uint32) {
	check(p, size, anchor, lo, hi, write, site)
}

func viaRangeCur(check func(unsafe.Pointer, uintptr, int, bool, uint32), base unsafe.Pointer, elem uintptr, n int, write bool, site uint32) {
	check(base, elem, n, write, site)
}

// R1 is R in a function whose only use of the goroutine state it is: it
// finds the state itself, so that the function needs no prologue
// (__bfg := __bf.Cur()) and, like a getter before instrumentation, stays
// within the compiler's inlining budget (two calls are over it). go -race
// instruments after inlining; a getter that no longer inlines costs a call
// and changes what escapes in its callers (a string(b) it returns then
// allocates).
func R1[T any](p *T, site uint32) *T {
	viaCheckCur(checkCur, unsafe.Pointer(p), unsafe.Sizeof(*p), false, site)
	return p
}

// W1 is W as R1 is R.
func W1[T any](p *T, site uint32) *T {
	viaCheckCur(checkCur, unsafe.Pointer(p), unsafe.Sizeof(*p), true, site)
	return p
}

// checkCur is check by the calling goroutine.
func checkCur(p unsafe.Pointer, size uintptr, write bool, site uint32) {
	Cur().check(p, size, write, site)
}

// ReadAll1 is ReadAll as R1 is R: string(b) in a String method.
func ReadAll1[S ~[]E, E any](site uint32, s S) S {
	viaRangeCur(checkRangeCur, unsafe.Pointer(unsafe.SliceData(s)), unsafe.Sizeof(*unsafe.SliceData(s)), len(s), false, site)
	return s
}

// WriteAll1 is WriteAll as R1 is R.
func WriteAll1[S ~[]E, E any](site uint32, s S) S {
	viaRangeCur(checkRangeCur, unsafe.Pointer(unsafe.SliceData(s)), unsafe.Sizeof(*unsafe.SliceData(s)), len(s), true, site)
	return s
}

// checkRangeCur is checkRange of n elements by the calling goroutine; none
// if n is 0.
func checkRangeCur(base unsafe.Pointer, elem uintptr, n int, write bool, site uint32) {
	if n > 0 {
		Cur().checkRange(base, elem, 0, n, 1, write, site)
	}
}

// RG1 is RG as R1 is R.
func RG1[T any](p *T, anchor, lo, hi uintptr, site uint32) *T {
	viaGroupCur(checkGroupCur, unsafe.Pointer(p), unsafe.Sizeof(*p), anchor, lo, hi, false, site)
	return p
}

// WG1 is WG as R1 is R.
func WG1[T any](p *T, anchor, lo, hi uintptr, site uint32) *T {
	viaGroupCur(checkGroupCur, unsafe.Pointer(p), unsafe.Sizeof(*p), anchor, lo, hi, true, site)
	return p
}

// checkGroupCur is checkGroup by the calling goroutine.
func checkGroupCur(p unsafe.Pointer, size, anchor, lo, hi uintptr, write bool, site uint32) {
	Cur().checkGroup(p, size, anchor, lo, hi, write, site)
}

// RG checks, at one of its accesses, the reads of a group of adjacent
// fields of one struct that the static pass coalesced (BigFoot's field
// groups, Rhodes' thesis §3.4), and returns p. p is the
// address of the accessed field, at offset anchor in the struct; the
// group is the bytes [lo, hi) of the struct. The instrumenter emits it
// with unsafe.Offsetof, so the offsets are those of the build's target:
//
//	(*__bf.RG(__bfg, &s.radius, __bfu.Offsetof(s.radius), __bfu.Offsetof(s.centre),
//		__bfu.Offsetof(s.radius)+__bfu.Sizeof(s.radius), site))
func RG[T any](g *G, p *T, anchor, lo, hi uintptr, site uint32) *T {
	viaGroup((*G).checkGroup, g, unsafe.Pointer(p), unsafe.Sizeof(*p), anchor, lo, hi, false, site)
	return p
}

// WG is RG for writes: every field of the group was written in the span
// (a write check is legitimate only for written memory).
func WG[T any](g *G, p *T, anchor, lo, hi uintptr, site uint32) *T {
	viaGroup((*G).checkGroup, g, unsafe.Pointer(p), unsafe.Sizeof(*p), anchor, lo, hi, true, site)
	return p
}

// checkGroup checks the bytes [lo, hi) of the struct whose field of size
// bytes at offset anchor is at p: one check for the group.
//
// It repeats check's shadow steps rather than calling check, which would
// record the whole group as accessed for the verifier (check is not
// inlined, so a shared helper would add a call to every R and W).
func (g *G) checkGroup(p unsafe.Pointer, size, anchor, lo, hi uintptr, write bool, site uint32) {
	q := unsafe.Add(p, int(lo)-int(anchor))
	if verifyChecks {
		// The anchor is an access; the group is a check.
		g.verifyRecord(p, size, 0, 1, verifyKind(write)|vAccess, site)
		g.verifyRecord(q, hi-lo, 0, 1, verifyKind(write)|vCheck, site)
	}
	if countAccesses {
		g.accesses++
		g.checkOps++
	}
	if gr := g.t.Cached(uintptr(q)); gr != nil && (gr.Same(&g.t, uintptr(q), hi-lo, write) ||
		space.SameIn(&g.t, gr, uintptr(q), hi-lo, write)) || gr == nil && (onStack(g, q) || space.SameMiss(&g.t, uintptr(q), hi-lo, write)) { // space.Same and the stack, written out (check)
		return
	}
	if uintptr(q) < minAddr || space.SameRange(&g.t, uintptr(q), hi-lo, write) {
		return // in the epoch: see check
	}
	g.note(site, uintptr(q), uintptr(q)+hi-lo)
	var r shadow.Race // written only on a conflict (shadow.Space.Check)
	if space.Check(&g.t, q, hi-lo, write, site, &r) {
		// The struct's start: the report names the member that raced.
		reportIn(g, r, site, uintptr(p)-anchor)
	}
}

// Read checks a read of size bytes at addr.
func (g *G) Read(addr unsafe.Pointer, size uintptr, site uint32) {
	g.check(addr, size, false, site)
}

// Write checks a write of size bytes at addr.
func (g *G) Write(addr unsafe.Pointer, size uintptr, site uint32) {
	g.check(addr, size, true, site)
}

// ReadRange checks reads of the elements lo, lo+stride, ... < hi of an
// array of elem-byte elements at base, in one call.
func (g *G) ReadRange(base unsafe.Pointer, elem uintptr, lo, hi, stride int, site uint32) {
	g.checkRange(base, elem, lo, hi, stride, false, site)
}

// WriteRange checks writes of the elements lo, lo+stride, ... < hi of an
// array of elem-byte elements at base, in one call.
func (g *G) WriteRange(base unsafe.Pointer, elem uintptr, lo, hi, stride int, site uint32) {
	g.checkRange(base, elem, lo, hi, stride, true, site)
}

func (g *G) checkRange(base unsafe.Pointer, elem uintptr, lo, hi, stride int, write bool, site uint32) {
	g.ranges++
	if countAccesses && stride > 0 && hi > lo {
		g.accesses += uint64((hi - lo + stride - 1) / stride)
		g.checkOps++
	}
	if uintptr(base) < minAddr || hi <= lo || elem == 0 {
		return
	}
	if verifyChecks {
		s := max(stride, 1) // as AccessRange takes it
		g.verifyRecord(unsafe.Add(base, uintptr(lo)*elem), elem, uintptr(s)*elem, (hi-lo+s-1)/s,
			verifyKind(write)|vAccess|vCheck, site)
	}
	if stride <= 1 && shortBytes(elem, hi-lo) {
		g.checkBytes(unsafe.Add(base, uintptr(lo)*elem), uintptr(hi-lo)*elem, write, site)
		return
	}
	g.note(site, uintptr(base)+uintptr(lo)*elem, uintptr(base)+uintptr(hi)*elem)
	if r, ok := space.AccessRange(&g.t, base, elem, lo, hi, stride, write, site); ok {
		report(g, r, site)
	}
}

// shortSpan is the most bytes of a contiguous range of sub-word elements
// that checkBytes checks as one access.
const shortSpan = 256

// shortBytes reports whether n contiguous elements of elem bytes are a
// short run of sub-word elements (a copy into a bytes.Buffer, the bytes
// an FNV hash or a scanner reads): checkBytes checks those as one access
// of their bytes.
//
// The range path (shadow.Space.AccessRange) checks element by element,
// which suits elements of a word or more and long arrays, whose runs
// (shadow/runs.go) it keeps; for a short run of bytes it costs a check
// per byte, and the first check of each byte in an epoch splits its
// granule into per-byte cells on the heap. One access of the bytes
// records the same epoch on the same bytes (the shadow is byte-precise
// for an access of any size), a check per granule.
func shortBytes(elem uintptr, n int) bool {
	return elem < 8 && n > 0 && uintptr(n)*elem <= shortSpan
}

// checkBytes checks an access of the n bytes at p as one access.
func (g *G) checkBytes(p unsafe.Pointer, n uintptr, write bool, site uint32) {
	// A short range is often checked again in the same epoch (flate's
	// matchLen over its window, a regexp's input read by each pattern,
	// a buffer's bytes read by each copy out of it): then there is
	// nothing to do, and no stack to note in the history.
	if space.SameRange(&g.t, uintptr(p), n, write) || onStack(g, p) {
		return
	}
	g.note(site, uintptr(p), uintptr(p)+n)
	var r shadow.Race // written only on a conflict (shadow.Space.Check)
	if space.Check(&g.t, p, n, write, site, &r) {
		report(g, r, site)
	}
}

// MapRead checks a read of map m (m[k], len(m), range m) as a read of one
// location, its header, and returns m. A nil map is not checked.
func MapRead[M any](g *G, m M, site uint32) M {
	g.check(*(*unsafe.Pointer)(unsafe.Pointer(&m)), 1, false, site)
	return m
}

// MapWrite checks a write of map m (m[k] = v, delete, clear) and returns m.
func MapWrite[M any](g *G, m M, site uint32) M {
	g.check(*(*unsafe.Pointer)(unsafe.Pointer(&m)), 1, true, site)
	return m
}
