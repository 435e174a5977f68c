// Copyright 2026 The bigfoot Authors. All rights reserved.

package shadow

import (
	"math/rand/v2"
	"runtime"
	"testing"
	"unsafe"
	"weak"
)

// adopt records a write by one goroutine and an ordered read by another at
// p, which adopts the granule, and returns the granule's ident.
func adopt(t *testing.T, s *Space, p unsafe.Pointer) *ident {
	t.Helper()
	a := thread(1, 1, nil)
	b := thread(2, 1, map[uint32]uint64{1: 1}) // after a
	s.Write(a, p, 8, 0)
	if _, race := s.Read(b, p, 8, 0); race {
		t.Fatal("read ordered after the write races")
	}
	gr := slotOf(s, p)
	if gr == nil || gr.id == nil {
		t.Fatalf("no ident after adoption: %+v", gr)
	}
	return gr.id
}

// A small object is held from its adoption until the holds are released;
// the release gives it a weak pointer, and from then on the object dies
// when the program drops it.
func TestHoldReleased(t *testing.T) {
	untracked(t) // the first write gets no weak pointer of its own
	ReleaseHolds()
	s := NewSpace()
	x := new([4]int64)
	id := adopt(t, s, unsafe.Pointer(&x[1]))
	if id.held.Load() != (*byte)(unsafe.Pointer(x)) || id.base != uintptr(unsafe.Pointer(x)) {
		t.Fatalf("adopted small object not held: held %p, base %#x, object %p", id.held.Load(), id.base, x)
	}
	// Dropped by the program, the object stays alive while held: the
	// state recorded for it remains its state.
	w := weak.Make(x)
	x = nil
	runtime.GC()
	if w.Value() == nil {
		t.Fatal("held object collected")
	}
	ReleaseHolds()
	if id.held.Load() != nil || id.wp.Value() == nil {
		t.Fatalf("release left held %p, weak pointer %p", id.held.Load(), id.wp.Value())
	}
	Quiesce()
	runtime.GC()
	runtime.GC()
	if w.Value() != nil || id.live() {
		t.Errorf("released object not collected: weak %p, ident live %v", w.Value(), id.live())
	}
}

// Objects larger than holdMax get their weak pointer at adoption.
func TestHoldLargeObjectWeak(t *testing.T) {
	untracked(t)
	s := NewSpace()
	x := escape(new([holdMax/8 + 1]int64))
	id := adopt(t, s, unsafe.Pointer(&x[3]))
	if id.held.Load() != nil || id.wp.Value() != (*byte)(unsafe.Pointer(x)) {
		t.Fatalf("large object: held %p, weak pointer %p, want none and %p", id.held.Load(), id.wp.Value(), x)
	}
}

// adoptMany adopts n new small objects from one goroutine and returns
// their idents.
func adoptMany(t *testing.T, s *Space, n int) []*ident {
	var ids []*ident
	for range n {
		x := escape(new([2]int64))
		ids = append(ids, adopt(t, s, unsafe.Pointer(&x[0])))
	}
	return ids
}

// wantReleased fails unless every ident has a weak pointer and no shard
// holds anything.
func wantReleased(t *testing.T, ids []*ident) {
	t.Helper()
	for i, id := range ids {
		if id.held.Load() != nil || id.wp.Value() == nil {
			t.Fatalf("ident %d: held %p, weak pointer %p", i, id.held.Load(), id.wp.Value())
		}
	}
	for i := range holds {
		holds[i].mu.Lock()
		n := len(holds[i].ids)
		holds[i].mu.Unlock()
		if n != 0 {
			t.Errorf("shard %d keeps %d holds after the release", i, n)
		}
	}
}

// A shard that reaches its part of holdBatch starts a release of every
// hold in a goroutine of its own.
func TestHoldBatchReleases(t *testing.T) {
	untracked(t)
	ReleaseHolds()
	ids := adoptMany(t, NewSpace(), holdBatch/holdShards)
	for releaseRunning.Load() {
		runtime.Gosched()
	}
	releasing.Lock()
	//lint:ignore SA2001 the empty critical section is the wait: a release that took the holds has finished
	releasing.Unlock()
	wantReleased(t, ids)
}

// If that goroutine lags, the adopting goroutine releases itself once its
// shard holds holdLag times its part.
func TestHoldLagReleasesInline(t *testing.T) {
	untracked(t)
	ReleaseHolds()
	for !releaseRunning.CompareAndSwap(false, true) { // no release goroutine
		runtime.Gosched()
	}
	defer releaseRunning.Store(false)
	ids := adoptMany(t, NewSpace(), holdLag*holdBatch/holdShards)
	wantReleased(t, ids)
}

// The idents of several goroutines and objects share one entry per object:
// a second adoption of the same object (another granule, another
// goroutine) reuses the first one's ident, held or not.
func TestHoldSharedIdent(t *testing.T) {
	untracked(t)
	ReleaseHolds()
	s := NewSpace()
	x := escape(new([4]int64))
	id := adopt(t, s, unsafe.Pointer(&x[0]))
	if id2 := adopt(t, s, unsafe.Pointer(&x[2])); id2 != id {
		t.Errorf("second granule of one object got another ident")
	}
	ReleaseHolds()
	if id3 := adopt(t, s, unsafe.Pointer(&x[3])); id3 != id {
		t.Errorf("granule adopted after the release got another ident")
	}
}

func TestSortDescending(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{0, 1, 2, 3, 17, 1000} {
		ids := make([]*ident, n)
		for i := range ids {
			ids[i] = &ident{base: uintptr(r.IntN(50))}
		}
		sortDescending(ids)
		for i := 1; i < n; i++ {
			if ids[i-1].base < ids[i].base {
				t.Fatalf("n=%d: base %d before %d", n, ids[i-1].base, ids[i].base)
			}
		}
	}
}

// Objects with pointers get their weak pointer at adoption: holding one
// would keep what it points to alive too.
func TestHoldPointerObjectWeak(t *testing.T) {
	untracked(t)
	s := NewSpace()
	type header struct {
		n    int64
		body *[1 << 20]byte
	}
	x := escape(&header{body: new([1 << 20]byte)})
	id := adopt(t, s, unsafe.Pointer(&x.n))
	if id.held.Load() != nil || id.wp.Value() != (*byte)(unsafe.Pointer(x)) {
		t.Fatalf("object with pointers: held %p, weak pointer %p, want none and %p", id.held.Load(), id.wp.Value(), x)
	}
}

// noscanObject reads whether an object holds pointers from its span's
// class, at the offset calibrateSpanclass measured, for every small size.
func TestNoscanObject(t *testing.T) {
	if spanclassOff < 0 {
		t.Fatal("span class offset not measured")
	}
	var keep []any
	for n := 2; n <= 128; n *= 2 {
		pf := make([]uint64, n)  // n*8 bytes, pointer-free
		ps := make([]*uint64, n) // n*8 bytes, pointers
		keep = append(keep, pf, ps)
		for _, c := range []struct {
			p      unsafe.Pointer
			noscan bool
		}{{unsafe.Pointer(&pf[1]), true}, {unsafe.Pointer(&ps[1]), false}} {
			base, size, noscan := noscanObject(uintptr(c.p))
			// (Objects of more than 512 bytes with pointers start
			// with a header, before the slice's first element.)
			if base == 0 || base > uintptr(c.p)-8 || size < uintptr(n*8) || noscan != c.noscan {
				t.Errorf("%d bytes: noscanObject = %#x, %d, %v; want <= %#x, >= %d, %v", n*8, base, size, noscan, uintptr(c.p)-8, n*8, c.noscan)
			}
		}
	}
	runtime.KeepAlive(keep)
}

// versionTable is a runtime's allocation versions, for the tests of
// versioned idents: base -> version; absent: not an object's base.
type versionTable map[uintptr]uint8

func (vt versionTable) lookup(base uintptr) (uint8, bool) {
	v, ok := vt[base]
	return v, ok
}

// A versioned ident is live while the version at its base is the one it
// read, and not once another object was allocated there or base stopped
// being an object's base.
func TestVersionIdent(t *testing.T) {
	vt := versionTable{0x1000: 7}
	id := &ident{base: 0x1000}
	if !id.proveVersionAt(vt.lookup, 10) || !id.versioned || id.ver != 7 {
		t.Fatalf("prove: versioned %v, ver %d", id.versioned, id.ver)
	}
	if !id.versionLiveAt(vt.lookup, 10) || !id.versionLiveAt(vt.lookup, 11) {
		t.Error("unchanged version: not live")
	}
	vt[0x1000] = 8 // another object allocated at base
	if id.versionLiveAt(vt.lookup, 12) {
		t.Error("version advanced: still live")
	}
	delete(vt, 0x1000) // base inside a larger object now, or a free span
	if id.versionLiveAt(vt.lookup, 12) {
		t.Error("base no longer an object's base: still live")
	}
	if (&ident{base: 0x2000}).proveVersionAt(vt.lookup, 12) {
		t.Error("proved an ident for an address that is not an object's base")
	}
}

// A version proves identity for fewer than versionSpan cycles after the
// count read before it: an address is allocated at most once per cycle,
// so only then can the byte not have wrapped around. A check that holds
// renews the proof, so an ident in use does not age out.
func TestVersionIdentSpan(t *testing.T) {
	vt := versionTable{0x1000: 3}
	id := &ident{base: 0x1000}
	id.proveVersionAt(vt.lookup, 100)
	if id.versionLiveAt(vt.lookup, 100+versionSpan) {
		t.Errorf("live %d cycles after the proof", versionSpan)
	}
	id.proveVersionAt(vt.lookup, 100)
	if !id.versionLiveAt(vt.lookup, 100+versionSpan-1) {
		t.Errorf("not live %d cycles after the proof", versionSpan-1)
	}
	if g := id.vgen.Load(); g != 100+versionSpan-1 {
		t.Fatalf("proof not renewed: vgen %d", g)
	}
	if !id.versionLiveAt(vt.lookup, 100+2*versionSpan-2) {
		t.Error("renewed proof: not live")
	}
	// An older count never undoes a renewal.
	if !id.versionLiveAt(vt.lookup, 100) || id.vgen.Load() != 100+2*versionSpan-2 {
		t.Errorf("renewal undone by an older count: vgen %d", id.vgen.Load())
	}
}
