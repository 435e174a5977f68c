// Copyright 2026 The bigfoot Authors. All rights reserved.

package detector

import (
	"github.com/bigfoot-go/bigfoot/internal/ownheap"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/bigfoot-go/bigfoot/shadow"
)

// Helpers of emitted code: small generic functions for operations that need
// several runtime calls in one expression (channel operations), must keep
// Go's assignment rules (append, send: the value is assigned to the
// element type, which inferring one type parameter from a channel and a
// value together would not do), or need a closure (method values of
// synchronization methods). They used to be declared in each instrumented
// package, where a package that redeclared a predeclared identifier they use
// (copy, min, cap, ...) lost them; here they cannot be shadowed.

// Recv is <-c: RecvPre, the receive, RecvPost.
func Recv[T any](g *G, c <-chan T) T {
	v, _ := Recv2(g, c)
	return v
}

// Recv2 is v, ok := <-c. The receive is first tried without blocking
// under the lock of the channel's state that its announcement took, and
// completed there if it did not block: one lock section for the receive
// instead of two (docs/runtime.md, "Channels"). A receive that blocks
// completes after the lock is released; the state its announcement found
// is the one it completes, since c is held meanwhile.
func Recv2[T any](g *G, c <-chan T) (T, bool) {
	p := *(*uintptr)(unsafe.Pointer(&c))
	if p == 0 {
		g.recvPre(0)
		v, ok := <-c
		return v, ok
	}
	st := g.recvLocked(p)
	// A receive that does not block cannot panic: st's lock needs no
	// deferred unlock, unlike Send's.
	select {
	case v, ok := <-c:
		st.completeRecv(g, ok)
		st.mu.Unlock()
		g.tick()
		return v, ok
	default:
	}
	st.mu.Unlock()
	g.tick()
	v, ok := <-c
	g.recvPost(st, ok)
	return v, ok
}

// A Sender is a channel whose sends are checked: Chan(c).Send(g, v) is
// c <- v, with v assigned to the channel's element type as in a send
// statement.
type Sender[T any] struct{ c chan<- T }

// Chan returns c's Sender.
func Chan[T any](c chan<- T) Sender[T] { return Sender[T]{c} }

// Send sends v: the announcement (release), the send, its completion,
// with the channel's state found once and its capacity computed once per
// channel. As in Recv2, a send that does not block is made and completed
// under the lock of the announcement.
func (s Sender[T]) Send(g *G, v T) {
	c := s.c
	p := *(*uintptr)(unsafe.Pointer(&c))
	if p == 0 {
		g.sendPre(0)
		c <- v // blocks forever, as c <- v does
		return
	}
	var r shadow.Race
	st, race := g.sendLocked(p, &r)
	sent := sendNow(g, st, c, v, p, &r, race)
	if race || verifyChecks {
		g.chanReport(p, false, &r, race)
	}
	g.tick()
	if !sent {
		c <- v
		g.sendPost(st, capacity(st, c))
	}
}

// sendNow sends v on c if that does not block and then completes the
// send; st is c's state, locked, and sendNow unlocks it. A send on a
// closed channel panics, even one that would not block, so the unlock is
// deferred: a recovered panic must not leave the state locked. The
// panic must not lose the send's read of the channel either: sendLocked
// found whether it races (race, *r), to be reported once the state is
// unlocked, and a send racing with the close it panics on is the race
// Go's TestRaceChanSendClose expects (missed whenever the send ran after
// the close). So the deferred call reports it when the send panicked,
// and the panic goes on as it was.
func sendNow[T any](g *G, st *chanState, c chan<- T, v T, p uintptr, r *shadow.Race, race bool) (sent bool) {
	done := false
	defer func() {
		st.mu.Unlock()
		if !done && (race || verifyChecks) {
			g.chanReport(p, false, r, race)
		}
	}()
	select {
	case c <- v:
		st.completeSend(g, capacity(st, c))
		sent = true
	default:
	}
	done = true
	return sent
}

// Async wraps a callback that the standard library runs on a goroutine of
// its own (time.AfterFunc, context.AfterFunc): what happened before the
// registration happens before the callback.
func Async(g *G, f func()) func() {
	b := ownheap.New[clockBox]()
	b.release(g)
	bub := g.bubble
	return func() {
		cg := curStarted()
		b.acquire(cg)
		if bub != nil {
			cg.bubble = bub
			defer cg.bubbleIdle()
		}
		f()
	}
}

// AfterFunc is time.AfterFunc(d, f) as the instrumenter emits it: the
// call, and every Reset of the returned timer (TimerRelease), happen
// before f runs, as Go's race runtime orders a timer's goroutine after the
// timer's creation and modifications (docs/runtime.md, "Timers").
func AfterFunc(g *G, d time.Duration, f func()) *time.Timer {
	var tp atomic.Pointer[time.Timer]
	b := ownheap.New[clockBox]()
	b.release(g)
	bub := g.bubble
	t := time.AfterFunc(d, func() {
		cg := curStarted()
		b.acquire(cg)
		if t := tp.Load(); t != nil {
			cg.acquire(uintptr(unsafe.Pointer(t)))
		}
		if bub != nil {
			// The timer's goroutine is in the bubble of its creator.
			cg.bubble = bub
			defer cg.bubbleIdle()
		}
		f()
	})
	tp.Store(t)
	return t
}

// Method values of synchronization methods: MV(hook).Bind(recv) is a func
// that runs the hook on the goroutine that calls it. The hook fixes the
// receiver type; the receiver is assigned to it.

// An MVHook is a hook taking a receiver.
type MVHook[P any] struct{ f func(*G, P) }

// MV is a hook with no argument and no result.
func MV[P any](f func(*G, P)) MVHook[P] { return MVHook[P]{f} }

// Bind returns the method value.
func (m MVHook[P]) Bind(p P) func() {
	f := m.f
	return func() { f(Cur(), p) }
}

// An MV1Hook is a hook taking a receiver and one argument.
type MV1Hook[P, A any] struct{ f func(*G, P, A) }

// MV1 is a hook with one argument and no result.
func MV1[P, A any](f func(*G, P, A)) MV1Hook[P, A] { return MV1Hook[P, A]{f} }

// Bind returns the method value.
func (m MV1Hook[P, A]) Bind(p P) func(A) {
	f := m.f
	return func(a A) { f(Cur(), p, a) }
}

// An MVRHook is a hook taking a receiver and returning a result.
type MVRHook[P, R any] struct{ f func(*G, P) R }

// MVR is a hook with no argument and one result.
func MVR[P, R any](f func(*G, P) R) MVRHook[P, R] { return MVRHook[P, R]{f} }

// Bind returns the method value.
func (m MVRHook[P, R]) Bind(p P) func() R {
	f := m.f
	return func() R { return f(Cur(), p) }
}

// An MV1RHook is a hook taking a receiver and one argument and returning a
// result.
type MV1RHook[P, A, R any] struct{ f func(*G, P, A) R }

// MV1R is a hook with one argument and one result.
func MV1R[P, A, R any](f func(*G, P, A) R) MV1RHook[P, A, R] {
	return MV1RHook[P, A, R]{f}
}

// Bind returns the method value.
func (m MV1RHook[P, A, R]) Bind(p P) func(A) R {
	f := m.f
	return func(a A) R { return f(Cur(), p, a) }
}

// MRunStart and MRunEnd surround m.Run() in a TestMain, which stays a
// direct call (no frame of the runtime between TestMain and m.Run):
// MRunEnd(g, MRunStart(g, m).Run()). The tests run on goroutines the
// testing package starts, which the runtime orders after what happened
// before through its handoff clock, and before what follows, as for t.Run.
func MRunStart[M any](g *G, m M) M {
	handoff.release(g)
	return m
}

// MRunEnd returns code, the result of m.Run(), after ordering the tests
// before the rest of TestMain.
func MRunEnd(g *G, code int) int {
	handoff.acquire(g)
	return code
}

// GroupFn wraps a function given to errgroup.Group.Go, whose goroutine is
// started by uninstrumented code: the call of Go happens before the
// function, and the function before Wait returns (GroupWait). key is the
// group.
func GroupFn[T any](key *T, f func() error) func() error {
	start := new(byte)
	RaceRelease(unsafe.Pointer(start))
	return func() error {
		RaceAcquire(unsafe.Pointer(start))
		defer RaceReleaseMerge(unsafe.Pointer(key))
		return f()
	}
}

// GroupWait follows errgroup.Group.Wait: GroupWait(&g, g.Wait()).
func GroupWait[T any](key *T, err error) error {
	RaceAcquire(unsafe.Pointer(key))
	return err
}

// TimerRelease marks the creation or reset of a timer or ticker t, which
// send on their channel from the runtime: it happens before the receives
// it causes (TimerAcquire).
func TimerRelease[T any](t *T) *T {
	RaceReleaseMerge(unsafe.Pointer(t))
	return t
}

// TimerAcquire follows a receive of v from t's channel.
func TimerAcquire[T, V any](t *T, v V) V {
	RaceAcquire(unsafe.Pointer(t))
	return v
}
