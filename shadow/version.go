// Copyright 2026 The bigfoot Authors. All rights reserved.

package shadow

// Allocation versions: the runtime's count of the frees of each word of
// the heap.
//
// Where bigfoot's driver built the program, the sweep advances a version
// byte for every 8-byte word of each object it frees (driver/allocver.go),
// where go -race's runtime resets its shadow (racefree); memory is
// allocated again only after that. State recorded for an object stays the object's as long as
// its words' versions do not change: a granule shared by two goroutines
// keeps the version of its word (granule.vok, granule.ver) instead of an
// ident, needs no weak pointer, hold or heap copy, and is dropped when the
// version moves on or its span is no longer an in-use heap span. Idents
// that remain (track, runs) are proven by the version at their object's
// base (ident.go).

// runtimeVersionPage returns the allocation versions of the 512 words of
// the 4 KiB page at p (aligned), or nil if p is not in an in-use heap
// span. It is set by the file bigfoot's driver adds to package runtime
// (driver/allocver.go), in the runtime's own init, where the sweep
// advances the versions; nil otherwise (this package's tests, a toolchain the
// driver cannot patch, experiments that reuse memory without a cycle).
// The variable is the file's through a linkname: no other code writes it.
// (A shadow page lies within one page of the runtime, so within one span.)
var runtimeVersionPage func(p uintptr) (*[512]uint8, uint8)

// The runtime file's page of versions is a shadow page.
var _ [pageSize/8 - 512]struct{}
var _ [512 - pageSize/8]struct{}

// versionSpan is how many GC cycles an allocation version proves identity
// for. The runtime advances a word's version when the sweep frees an
// object that covers it. Memory is freed only by the sweep after a
// completed cycle and allocated again only after that, so a word's
// version advances at most once per completed cycle, and at most n+1
// times while n cycles complete: if fewer than versionSpan cycles
// completed since the count that was read before the version, fewer than
// 256 advances followed the version read, and an unchanged version
// (modulo 256) means none did. (The bound is the one of session 13, when
// allocation advanced the versions too, twice per cycle: it holds with
// room to spare.)
const versionSpan = 127

// A versionSource returns the allocation versions of a page, as
// runtimeVersionPage does: one per word, and the page's, which adds to
// each (the runtime counts a large object's free once per
// page, not per word). A Space keeps the one it uses (its tests give it
// their own).
type versionSource func(p uintptr) (*[512]uint8, uint8)

// at returns the allocation version of the word at p, and false if p is
// not in an in-use heap span.
func (f versionSource) at(p uintptr) (uint8, bool) {
	vp, pv := f(p &^ (pageSize - 1))
	if vp == nil {
		return 0, false
	}
	return vp[p&(pageSize-1)>>3] + pv, true
}

// versionHolds reports whether version ver, read at addr with f when g
// cycles had completed, still proves the same object after n: fewer than
// versionSpan cycles later, the version is unchanged. (Signed: a proof
// renewed with a newer count than n may be read.)
func versionHolds(f func(uintptr) (uint8, bool), addr uintptr, ver uint8, g, n uint32) bool {
	if int32(n-g) >= versionSpan {
		return false
	}
	v, ok := f(addr)
	return ok && v == ver
}

// versionLive reports whether the object whose state gr holds, proven by
// its word's version (gr.vok) when g cycles had completed, still occupies
// the word at addr after n cycles (n read before this call), by the
// versions of vs.
func (gr *granule) versionLive(vs versionSource, addr uintptr, g, n uint32) bool {
	return versionHolds(vs.at, addr, gr.ver, g, n)
}

// versionLiveIn is versionLive for the sweep, which looked up the
// versions of gr's page once (vp and pv, as versionSource returns them;
// vp nil: the page is not in an in-use heap span, and every object whose
// state it holds is dead). gi is gr's slot.
func (gr *granule) versionLiveIn(vp *[512]uint8, pv uint8, gi uintptr, g, n uint32) bool {
	return vp != nil && int32(n-g) < versionSpan && vp[gi]+pv == gr.ver
}

// stillLive reports whether gr's state is still its object's, if gr has
// a proof (a version or an ident) that can say otherwise; it is asked
// before a conflict is reported. addr is in gr's word.
func (s *Space) stillLive(gr *granule, addr uintptr) bool {
	switch {
	case gr.vok:
		return gr.versionLive(s.versions, addr, gr.gen.Load(), uint32(exactGen()))
	case gr.id != nil:
		return gr.id.live()
	}
	return true
}

// A VersionProof shows, by its word's allocation version, that the heap
// object at an address is still the one it was made for: the detector's
// clocks of sync objects (an atomically accessed word, a mutex) use it
// where the runtime keeps versions, instead of a weak pointer per
// address, which the runtime keeps in a sorted list per span (a million
// atomically accessed words of one slice made every weak.Make a walk of
// that list).
type VersionProof struct {
	ver uint8
	gen uint32 // completed GC cycles, read before ver
}

// ProveVersion returns the proof of the object at addr, which the caller
// keeps reachable, and false if the runtime keeps no versions or addr is
// not in an in-use heap span.
func ProveVersion(addr uintptr) (VersionProof, bool) {
	if runtimeVersionPage == nil {
		return VersionProof{}, false
	}
	n := uint32(exactGen())
	v, ok := versionSource(runtimeVersionPage).at(addr)
	return VersionProof{v, n}, ok
}

// Check reports whether p still proves that the object at addr is the one
// p was made for, and if so renews it with the current count of cycles.
// False says nothing more: the object may have been freed, or the proof
// only aged. The caller serializes the calls on p.
//
// While no cycle completed since the count p holds, the check needs no
// version: the object was live after that cycle had completed, so it was
// marked in it, and only the sweep after a later cycle can free it.
func (p *VersionProof) Check(addr uintptr) bool {
	n := uint32(exactGen())
	if n == p.gen {
		return true
	}
	if !versionHolds(versionSource(runtimeVersionPage).at, addr, p.ver, p.gen, n) {
		return false
	}
	p.gen = n
	return true
}

// Freed reports whether the object p was made for was certainly freed: the
// version at addr moved on, or addr is no longer in an in-use heap span.
func (p VersionProof) Freed(addr uintptr) bool {
	v, ok := versionSource(runtimeVersionPage).at(addr)
	return !ok || v != p.ver
}
