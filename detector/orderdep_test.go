// Copyright 2026 The bigfoot Authors. All rights reserved.

package detector

import (
	"runtime"
	"runtime/debug"
	"testing"

	"github.com/bigfoot-go/bigfoot/shadow"
)

// Regression tests for races that Go's race suite missed only when other
// tests had run before (docs/runtime.md, "GC reuse" and "Goroutine
// identity").

// TestRaceAfterStaleGeneration: the shadow's cheap GC generation was
// advanced only by a sentinel's finalizer, which runs when the finalizer
// goroutine gets scheduled, well after the cycle (and, when the finalizer
// allocates the next sentinel during the following cycle's mark, only after
// the cycle after that: with GC off, never). Every granule created in
// between was stamped with the old generation and dropped as "recorded
// before a cycle" at the first access by a second goroutine, so the suite
// missed the simplest races (TestRaceAnd, TestRaceMethodCall, ...) after
// any runtime.GC-heavy test. Now the generation is also refreshed at
// goroutine creation (and page creation, adoption, TestStart), so state
// recorded after the fork carries the current generation and is kept.
//
// The test ends a background cycle by allocating and then, without
// blocking (one P: the finalizer goroutine cannot run), records the first
// access. Whether the old runtime missed the race depended on scheduling;
// the fixed one must always report it.
func TestRaceAfterStaleGeneration(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	for range 5 {
		expect(t, true, func(g *G) {
			debug.SetGCPercent(1)
			var keep [][]byte
			for n := shadow.ExactGen(); shadow.ExactGen() == n; {
				keep = append(keep, make([]byte, 64<<10))
				if len(keep) > 64 {
					keep = keep[:0]
				}
			}
			debug.SetGCPercent(-1)
			x := new(int64)
			start := make(chan struct{}) // not announced: real time only
			done := spawn(g, func(h *G) {
				<-start
				*W(h, x, 0) = 1
			})
			*W(g, x, 0) = 2
			close(start)
			<-done
		})
	}
	if got, want := shadow.Gen(), shadow.ExactGen(); got > want {
		t.Errorf("Gen() = %d, more than ExactGen() = %d", got, want)
	}
}

// TestRefreshGen: RefreshGen brings Gen up to the exact count and Gen
// never decreases.
func TestRefreshGen(t *testing.T) {
	runtime.GC()
	n := shadow.RefreshGen()
	if g := shadow.Gen(); g < n {
		t.Errorf("after RefreshGen() = %d, Gen() = %d", n, g)
	}
	before := shadow.Gen()
	runtime.GC()
	if g := shadow.Gen(); g < before {
		t.Errorf("Gen() went back from %d to %d", before, g)
	}
	if m := shadow.RefreshGen(); m <= n || shadow.Gen() < m {
		t.Errorf("RefreshGen() = %d after a cycle (was %d), Gen() = %d", m, n, shadow.Gen())
	}
}

type finObj struct {
	_ *int
	_ [16]byte
}

// TestRaceFinalizerNotRoot: the finalizer goroutine's stack has no
// "created by" line, and it was taken for the main goroutine, a root.
// Every goroutine started later by uninstrumented code (each test
// goroutine) acquired its current epoch, and because the finalizer
// goroutine lives for the whole run and rarely ticks, its later
// finalizers looked ordered before them: Go's TestRaceFin was missed after
// TestNoRaceFin. Only goroutine 1 is the main goroutine now.
func TestRaceFinalizerNotRoot(t *testing.T) {
	expect(t, true, func(g *G) {
		// A first finalizer creates the finalizer goroutine's state.
		fin1 := make(chan struct{})
		o1 := &finObj{}
		SetFinalizer(g, o1, func(*finObj) { Cur(); close(fin1) })
		o1 = nil
		runtime.GC()
		<-fin1

		y := new(int64)
		fin2 := make(chan struct{})
		o2 := &finObj{}
		SetFinalizer(g, o2, func(*finObj) {
			*W(Cur(), y, 0) = 42
			close(fin2)
		})
		// A goroutine started by uninstrumented code: its state is
		// created lazily and acquires the roots' published epochs.
		ready, write, done := make(chan struct{}), make(chan struct{}), make(chan struct{})
		go func() {
			b := Cur()
			close(ready)
			<-write
			*W(b, y, 0) = 66 // unordered with the finalizer's write
			close(done)
		}()
		<-ready
		o2 = nil
		runtime.GC()
		<-fin2
		close(write)
		<-done
	})
}

// TestNoRaceCleanupAfterRegister is Go's TestNoRaceCleanup: a goroutine
// registers a cleanup, then writes the cleanup's argument, and a GC cycle
// runs the cleanup, which writes it too. Go's race runtime orders the
// cleanup after everything done before its batch started (racefingo).
// The shadow keeps the goroutine's state across the cycle (shadow/gc.go,
// track), so without that edge the cleanup's write was reported.
func TestNoRaceCleanupAfterRegister(t *testing.T) {
	expect(t, false, func(g *G) {
		y := new(int64)
		done := make(chan struct{})
		<-spawn(g, func(g *G) {
			x := new(finObj)
			AddCleanup(g, x, func(y *int64) {
				*W(Cur(), y, 0) = 1
				close(done)
			}, y)
			*W(g, y, 0) = 2
			runtime.KeepAlive(x)
		})
		runtime.GC()
		<-done
	})
}
