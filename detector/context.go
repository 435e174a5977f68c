// Copyright 2026 The bigfoot Authors. All rights reserved.

package detector

import (
	"context"
	"time"
	"unsafe"

	"github.com/bigfoot-go/bigfoot/internal/ownheap"
	"github.com/bigfoot-go/bigfoot/internal/spin"
)

// Package context (docs/runtime.md, "Values from uninstrumented code").
//
// A context's cancel function stores its error and closes its Done
// channel in code bigfoot does not instrument, and cancels derived
// contexts under the parent's mutex; Go's race runtime, which instruments
// package context, orders the cancel before whoever observes it: a
// receive from Done (the close), Err or Cause returning an error (an
// atomic load of the stored error). The instrumenter routes the user's
// calls through the hooks below: the functions that derive a cancellable
// context (CtxWithCancel ...) register the new context's Done channel
// with its parent's and wrap the cancel function, which releases the
// canceller's clock into the context's state before cancelling; a receive
// from a registered Done channel, Err and Cause acquire the states of the
// context and of its ancestors (one of their cancels is what closed it).
// A context's deadline is cancelled by its timer's goroutine, which Go's
// race runtime orders after the timer's creation: the state keeps the
// creator's clock. The hooks see no package context of their own, so the
// standard library can stay as it is (a test that builds a plugin with
// the plain toolchain still loads it).

// A ctxState is the state of a cancellable context, kept with its Done
// channel's state.
type ctxState struct {
	mu       spin.Mutex
	parent   *ctxState // the parent's, if the parent is registered or has a Done channel
	parentCh *chanState
	cancel   []uint64 // the clocks of the calls of its cancel function
	deadline []uint64 // its creator's clock, if a timer cancels it
	reg      []uint64 // derived contexts' creators (the parent's mutex)
}

// acquire joins into vc the cancels (and deadlines) of the context and of
// its ancestors, and the closes of a foreign ancestor's Done channel.
func (s *ctxState) acquire(vc []uint64) []uint64 {
	for ; s != nil; s = s.parent {
		s.mu.Lock()
		vc = join(join(vc, s.cancel), s.deadline)
		pc := s.parentCh
		s.mu.Unlock()
		if pc != nil {
			pc.mu.Lock()
			if pc.closed {
				vc = join(vc, pc.close)
			}
			pc.mu.Unlock()
		}
	}
	return vc
}

// ctxOf returns the state of the context whose Done channel is d, nil if
// d is nil or not registered.
func ctxOf(d <-chan struct{}) *ctxState {
	if d == nil {
		return nil
	}
	c := chanOf(*(*uintptr)(unsafe.Pointer(&d)))
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.ctx
}

// register creates the state of ctx, derived from parent by g; timed
// says a timer cancels it.
//
// Its allocations are the detector's (internal/ownheap), including the
// Done channels that asking for them makes.
func register(g *G, ctx, parent context.Context, timed bool) *ctxState {
	m := ownheap.Begin()
	defer m.End()
	g.countSync()
	s := new(ctxState)
	if pd := parent.Done(); pd != nil {
		pc := chanOf(*(*uintptr)(unsafe.Pointer(&pd)))
		pc.mu.Lock()
		s.parent = pc.ctx
		if s.parent == nil {
			// A Done channel of a context not derived through the hooks
			// (a type of the user's, closed by instrumented code).
			s.parentCh = pc
		}
		pc.mu.Unlock()
		if p := s.parent; p != nil {
			p.mu.Lock()
			p.reg = join(p.reg, g.t.VC)
			p.mu.Unlock()
		}
	}
	if timed {
		s.deadline = append([]uint64(nil), g.t.VC...)
	}
	d := ctx.Done()
	c := chanOf(*(*uintptr)(unsafe.Pointer(&d)))
	c.mu.Lock()
	c.ctx = s
	c.mu.Unlock()
	g.tick()
	return s
}

// cancelled records a call of the cancel function of the context whose
// state is s, by the calling goroutine, before the call.
func (s *ctxState) cancelled() {
	g := Cur()
	g.countSync()
	s.mu.Lock()
	g.t.VC = join(g.t.VC, s.reg)
	s.cancel = join(s.cancel, g.t.VC)
	s.mu.Unlock()
	g.tick()
}

func wrapCancel(s *ctxState, cancel context.CancelFunc) context.CancelFunc {
	m := ownheap.Begin()
	defer m.End()
	return func() {
		s.cancelled()
		cancel()
	}
}

func wrapCancelCause(s *ctxState, cancel context.CancelCauseFunc) context.CancelCauseFunc {
	m := ownheap.Begin()
	defer m.End()
	return func(cause error) {
		s.cancelled()
		cancel(cause)
	}
}

// CtxWithCancel is context.WithCancel(parent).
func CtxWithCancel(g *G, parent context.Context) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(parent)
	return ctx, wrapCancel(register(g, ctx, parent, false), cancel)
}

// CtxWithCancelCause is context.WithCancelCause(parent).
func CtxWithCancelCause(g *G, parent context.Context) (context.Context, context.CancelCauseFunc) {
	ctx, cancel := context.WithCancelCause(parent)
	return ctx, wrapCancelCause(register(g, ctx, parent, false), cancel)
}

// CtxWithTimeout is context.WithTimeout(parent, d).
func CtxWithTimeout(g *G, parent context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithTimeout(parent, d)
	return ctx, wrapCancel(register(g, ctx, parent, true), cancel)
}

// CtxWithTimeoutCause is context.WithTimeoutCause(parent, d, cause).
func CtxWithTimeoutCause(g *G, parent context.Context, d time.Duration, cause error) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithTimeoutCause(parent, d, cause)
	return ctx, wrapCancel(register(g, ctx, parent, true), cancel)
}

// CtxWithDeadline is context.WithDeadline(parent, t).
func CtxWithDeadline(g *G, parent context.Context, t time.Time) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithDeadline(parent, t)
	return ctx, wrapCancel(register(g, ctx, parent, true), cancel)
}

// CtxWithDeadlineCause is context.WithDeadlineCause(parent, t, cause).
func CtxWithDeadlineCause(g *G, parent context.Context, t time.Time, cause error) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithDeadlineCause(parent, t, cause)
	return ctx, wrapCancel(register(g, ctx, parent, true), cancel)
}

// ctxObserved acquires the cancellation of ctx, which g observed.
func ctxObserved(g *G, ctx context.Context) {
	if s := ctxOf(ctx.Done()); s != nil {
		g.countSync()
		g.t.VC = s.acquire(g.t.VC)
	}
}

// CtxErr is ctx.Err(): an error observes the cancel.
func CtxErr(g *G, ctx context.Context) error {
	err := ctx.Err()
	if err != nil {
		ctxObserved(g, ctx)
	}
	return err
}

// CtxCause is context.Cause(ctx).
func CtxCause(g *G, ctx context.Context) error {
	err := context.Cause(ctx)
	if err != nil {
		ctxObserved(g, ctx)
	}
	return err
}

// CtxAfterFunc is context.AfterFunc(ctx, f): f runs on a goroutine that
// ctx's cancel starts, after the registration (Async) and the cancel.
func CtxAfterFunc(g *G, ctx context.Context, f func()) (stop func() bool) {
	af := Async(g, f)
	return context.AfterFunc(ctx, func() {
		ctxObserved(curStarted(), ctx)
		af()
	})
}
