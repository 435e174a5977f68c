package detector

import (
	"iter"
	"unsafe"
)

// Coroutines (iter.Pull, iter.Pull2).
//
// iter.Pull runs its iterator on a coroutine: a goroutine of its own to
// which control passes at next and stop, and from which it passes back at
// each yield and when the iterator returns. Each switch is
// synchronization: what one side did before handing control over
// happens before what the other does after taking it. Go's race runtime
// sees these edges through the race annotations around iter.Pull's
// coroutine switches, which a bigfoot build does not have (package iter is
// not instrumented, docs/build.md); the hooks below make the same edges,
// through one clock per Pull, released before every switch and acquired
// after it.

// IterPull is iter.Pull(seq) as the instrumenter emits it.
func IterPull[V any](g *G, seq iter.Seq[V]) (next func() (V, bool), stop func()) {
	b := new(pull)
	n, s := iter.Pull(func(yield func(V) bool) {
		cg := curStarted()
		b.acquire(cg)
		defer b.release(cg)
		seq(func(v V) bool {
			b.release(cg)
			more := yield(v)
			b.acquire(cg)
			return more
		})
	})
	next = func() (v V, ok bool) {
		b.handOff(func() { v, ok = n() })
		return v, ok
	}
	return next, func() { b.handOff(s) }
}

// IterPull2 is iter.Pull2(seq) as the instrumenter emits it.
func IterPull2[K, V any](g *G, seq iter.Seq2[K, V]) (next func() (K, V, bool), stop func()) {
	b := new(pull)
	n, s := iter.Pull2(func(yield func(K, V) bool) {
		cg := curStarted()
		b.acquire(cg)
		defer b.release(cg)
		seq(func(k K, v V) bool {
			b.release(cg)
			more := yield(k, v)
			b.acquire(cg)
			return more
		})
	})
	next = func() (k K, v V, ok bool) {
		b.handOff(func() { k, v, ok = n() })
		return k, v, ok
	}
	return next, func() { b.handOff(s) }
}

// A pull is the state of one Pull: the clock its switches pass, and a
// word each call of next or stop writes first, as package iter's race
// annotations do, so that two goroutines calling them unordered race.
type pull struct {
	clockBox
	racer uintptr
}

// handOff runs f, a call of a Pull's next or stop: the caller hands
// control to the coroutine and takes it back when f returns (or panics
// with the iterator's panic).
func (b *pull) handOff(f func()) {
	cg := Cur()
	cg.Write(unsafe.Pointer(&b.racer), unsafe.Sizeof(b.racer), hookSite(hookPull))
	b.release(cg)
	defer b.acquire(cg)
	f()
}
