// Copyright 2026 The bigfoot Authors. All rights reserved.

package detector

import "time"

// testing/synctest (docs/runtime.md, "testing/synctest").
//
// Go's runtime orders what a goroutine of a bubble did before it exited
// or blocked durably (on a channel of the bubble, a sync.Cond, a
// WaitGroup, time.Sleep) before the return of every later synctest.Wait
// and of synctest.Test: the goroutine releases into the bubble's clock
// when it parks so or exits, and Wait and Test acquire it (runtime
// synctest.go, proc.go goexit1). The hooks cannot see a goroutine park,
// so a goroutine of a bubble releases before every operation that may
// block it durably (bubbleIdle) and when it exits. That releases no more
// than Go's runtime does by the time Wait returns: Wait returns only when
// every other goroutine of the bubble is durably blocked or has exited,
// so each release is of a point in such a goroutine's past.

// A bubble is the state of one synctest.Test call.
type bubble struct{ clock clockBox }

// bubbleIdle releases g's past into its bubble's clock, if it is in one.
func (g *G) bubbleIdle() {
	if b := g.bubble; b != nil {
		b.clock.release(g)
	}
}

// SynctestTest is synctest.Test(t, f), test being synctest.Test: f runs
// in a new bubble, on a goroutine the testing package starts, ordered
// after the call; the bubble's goroutines, f's included, are ordered
// before Test returns.
func SynctestTest[T any](g *G, test func(T, func(T)), t T, f func(T)) {
	b := new(bubble)
	start := new(clockBox)
	start.release(g)
	test(t, func(t T) {
		cg := curStarted()
		start.acquire(cg)
		cg.bubble = b
		defer func() {
			cg.bubbleIdle()
			cg.bubble = nil
		}()
		f(t)
	})
	b.clock.acquire(g)
}

// SynctestWait is synctest.Wait(), wait being synctest.Wait: it returns
// after the bubble's other goroutines exited or blocked durably, whose
// past it acquires.
func SynctestWait(g *G, wait func()) {
	g.bubbleIdle()
	wait()
	if b := g.bubble; b != nil {
		b.clock.acquire(g)
	}
}

// SleepPre precedes time.Sleep(d) and returns d:
// time.Sleep(__bf.SleepPre(g, d)). In a bubble, sleeping blocks durably.
// (The hook returns before the sleep, so a sleeping goroutine's stack
// shows no frame of the runtime.)
func SleepPre(g *G, d time.Duration) time.Duration {
	// What the goroutine did before it sleeps is checked now, for
	// other goroutines' accesses while it sleeps to find it.
	g.commitFootprints()
	g.bubbleIdle()
	return d
}
