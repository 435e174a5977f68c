// Copyright 2026 The bigfoot Authors. All rights reserved.

package detector

import (
	"unsafe"

	"github.com/bigfoot-go/bigfoot/internal/ownheap"
)

// Sync objects share the clocks of the goroutines that release into them.
//
// A goroutine that releases into several objects in a row (a test's end
// unlocks its mutexes, loads its context's atomic values, cancels the
// context, sends on its channel) would give each a copy of its clock, as
// wide as the thread ids in use: 4,000 t.Parallel subtests, each of whose
// clock has the entries of the others, kept one such copy per object for
// the whole of their parent (docs/results.md). Between two of these
// releases the goroutine's clock changes only in its own entry (the tick
// after each release), so the objects can share one frozen copy of it,
// each raising the goroutine's own entry to its value at the release: the
// clock of an object released into by one goroutine only is that
// goroutine's frozen clock (shared) and one entry (inline[0], inline[1]),
// and inline[2] names the goroutine (G.serial). A goroutine's snapshot
// for the frontier shares the frozen clock too (snapOf).
// A release by another goroutine, or by the same one after its clock
// changed elsewhere, gives the object a clock of its own again (own),
// as before. Objects of narrow clocks keep them inline instead.
//
// An object also names a goroutine whose clock is at least its own
// (syncVar.dom): the last to acquire it, or to release into it what it
// had acquired, or whose clock it copied. That goroutine's next acquire of
// it would change nothing, and is skipped: a pool's worker that loads and
// adds to its task's atomics, a context's values loaded by the goroutine
// that made it, a mutex locked again by its last holder. A goroutine's
// clock only grows (trim drops entries at or below the floor, which HB
// reads for a missing entry), so the bound holds until another goroutine
// releases into the object.

// frozenClock returns a copy of g's clock that objects g releases into may
// share: the last one made, if g's clock has changed since in g's own
// entry only, else a new one, made ahead (frozenWords). Nobody changes it.
func (g *G) frozenClock() []uint64 {
	if !g.frozenCurrent() {
		g.frozen = frozenWords.copyOf(g.t.VC)
	}
	return g.frozen
}

// frozenWords holds the frozen clocks (reserve.go), in chunks of 64 KiB.
var frozenWords = newWordSlab(8192)

// frozenCurrent reports whether g's last frozen clock differs from g's
// clock in g's own entry only.
func (g *G) frozenCurrent() bool {
	f := g.frozen
	return f != nil && len(f) == len(g.t.VC) && sameBut(f, g.t.VC, int(g.tid))
}

// sameBut reports whether a and b, of one length, are equal but at i
// (i < len(a)). The runtime's memory comparison does it a vector at a
// time: a goroutine's every unlock asks it of a clock as wide as the
// thread ids in use.
func sameBut(a, b []uint64, i int) bool {
	return sameWords(a[:i], b[:i]) && sameWords(a[i+1:], b[i+1:])
}

// sameWords reports whether a and b, of one length, are equal.
func sameWords(a, b []uint64) bool {
	if len(a) == 0 {
		return true
	}
	return unsafe.String((*byte)(unsafe.Pointer(&a[0])), 8*len(a)) == unsafe.String((*byte)(unsafe.Pointer(&b[0])), 8*len(b))
}

// releaseBy joins g's clock into v's; v is locked. A clock v shares
// with g (inline[2] is g's serial) is g's own at an earlier release, which
// g's clock now includes: v then shares g's clock as it is now. So does a
// clock v shares with another goroutine if g's is at least v's (dom: g
// acquired v since), where a copy of v's own would be made and joined
// (a pool's task's context, made by the submitter, its atomics loaded by
// the worker).
//
// But sharing g's clock as it is now takes a new frozen copy if g's clock
// changed since its last one, which an object that one goroutine after
// another acquires and releases into would take at each operation (the
// atomics of a concurrent map that a hundred goroutines update: 63 GB of
// copies in xsync's DeleteMatching test, when loads released too). Such
// an object, once it took refreezeLimit copies, gets a clock of its own,
// which later releases overwrite in place (releaseAcquired) or join.
func (v *syncVar) releaseBy(g *G) {
	if len(g.t.VC) > len(v.inline) && (!v.shared && len(v.vc) == 0 || v.shared && (v.inline[2] == g.serial || v.dom == g.serial)) &&
		!v.hot(g) {
		v.vc, v.shared = g.frozenClock(), true
		v.inline[0], v.inline[1], v.inline[2] = uint64(g.tid), g.t.VC[g.tid], g.serial
		v.dom = g.serial
		return
	}
	v.own(len(g.t.VC))
	v.vc = g.releaseInto(v.vc)
	if v.dom != g.serial {
		v.dom = 0 // the join may exceed every goroutine's clock
	}
}

// refreezeLimit is how many new frozen copies a shared clock takes before
// its object gets a clock of its own.
const refreezeLimit = 2

// hot reports whether v, whose clock is shared, is to get a clock of its
// own rather than a new frozen copy of g's, and counts the copy otherwise.
func (v *syncVar) hot(g *G) bool {
	if !v.shared || g.frozenCurrent() {
		return false
	}
	if v.refrozen == refreezeLimit {
		return true
	}
	v.refrozen++
	return false
}

// own gives v a clock of its own, with the entries of the one it shares,
// with room for n entries (the releasing goroutine's, joined next).
func (v *syncVar) own(n int) {
	if !v.shared {
		return
	}
	t, c := v.inline[0], v.inline[1]
	vc := ownheap.Make[uint64](max(len(v.vc), int(t)+1), max(len(v.vc), int(t)+1, n))
	copy(vc, v.vc)
	vc[t] = max(vc[t], c)
	v.vc, v.shared = vc, false
	clear(v.inline[:])
}

// acquireBy joins v's clock into g's; v is locked. Nothing to do if g's
// clock is known to be at least v's (dom).
func (v *syncVar) acquireBy(g *G) {
	if v.dom == g.serial {
		return
	}
	v.dom = g.serial
	if !v.shared {
		v.vc = trim(v.vc, 0)
		g.joinClock(v.vc)
		return
	}
	g.joinClock(v.vc)
	t, c := int(v.inline[0]), v.inline[1]
	g.t.VC = lengthen(g.t.VC, t+1)
	g.t.VC[t] = max(g.t.VC[t], c)
}

// knownTo reports whether g's clock is at least v's: every release into
// v happens before g's present. v is locked.
func (v *syncVar) knownTo(g *G) bool {
	if v.dom == g.serial {
		return true
	}
	vc := g.t.VC
	at := func(t int) uint64 {
		if t < len(vc) {
			return vc[t]
		}
		return 0
	}
	for t, c := range v.vc {
		if c > at(t) {
			return false
		}
	}
	return !v.shared || v.inline[1] <= at(int(v.inline[0]))
}

// joinInto returns dst joined with v's clock; v is locked.
func (v *syncVar) joinInto(dst []uint64) []uint64 {
	dst = join(dst, v.vc)
	if v.shared {
		t, c := int(v.inline[0]), v.inline[1]
		dst = lengthen(dst, t+1)
		dst[t] = max(dst[t], c)
	}
	return dst
}

// reset empties v's clock.
func (v *syncVar) reset() {
	clear(v.inline[:])
	v.vc, v.shared, v.dom, v.refrozen = v.inline[:0], false, 0, 0
}
