package main

import "testing"

// TestCleanups runs the programs of testdata/cleanups, whose races depend
// on how finalizers and cleanups are ordered (a batch's start after every
// goroutine, each cleanup of a batch in a context of its own), 10 times
// each under go test -race and bigfoot in each mode of modes: every TestRace*
// test is reported in every run by both, no TestNoRace* test ever. Before
// the runtime called the detector where go -race's runtime calls
// racefingo and enters a cleanup's context (driver/cleanuphook.go), the
// cleanups of a batch ran on one state and TestRaceBetweenCleanups was
// missed in each mode of modes.
func TestCleanups(t *testing.T) {
	checkRaceTests(t, "../../testdata/cleanups", 10, nil)
}

// TestTinyObjectCallbacksRun: finalizers and cleanups of tiny objects (a
// struct of one byte, which the runtime's tiny allocator puts into a
// 16-byte block with other pointer-free objects) run after the objects
// are dropped, as under go test -race. The block dies only with all its
// objects: when bigfoot wrapped each finalizer with reflect.MakeFunc,
// reflect's first layout of the finalizer's type allocated a few bytes it
// keeps into the block of the first object, whose finalizer then never
// ran (gopher-lua's TestLocalVarFree failed for that).
//
// TestFreedByNextGC: a dropped one-byte object's finalizer runs after the
// next collection, as under go test -race, whose runtime gives each
// pointer-free object under 16 bytes a block of its own. A plain build's
// tiny allocator keeps the block it is filling alive through every
// collection, so the finalizer never runs there, nor did it under bigfoot
// before its runtime did as -race's (driver/ownalloc.go); in gopher-lua's
// TestLocalVarFree, that hid the race go -race reports.
func TestTinyObjectCallbacksRun(t *testing.T) {
	dir := writeModule(t, map[string]string{
		"go.mod": "module example.com/tiny\n\ngo 1.24\n",
		"tiny_test.go": `package tiny

import (
	"runtime"
	"sync/atomic"
	"testing"
	"time"
)

type stub struct{ x byte }

var finalizers, cleanups atomic.Int32

//go:noinline
func register() {
	f := &stub{}
	finalizers.Add(1)
	runtime.SetFinalizer(f, func(*stub) { finalizers.Add(-1) })
	c := &stub{}
	cleanups.Add(1)
	runtime.AddCleanup(c, func(int) { cleanups.Add(-1) }, 0)
}

func TestTinyObjectCallbacks(t *testing.T) {
	for range 10 {
		register()
	}
	for range 100 {
		runtime.GC()
		if finalizers.Load() == 0 && cleanups.Load() == 0 {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("%d finalizers and %d cleanups of dropped objects never ran", finalizers.Load(), cleanups.Load())
}

var finalized atomic.Bool

//go:noinline
func registerOne() {
	s := &stub{}
	runtime.SetFinalizer(s, func(*stub) { finalized.Store(true) })
}

func TestFreedByNextGC(t *testing.T) {
	registerOne()
	runtime.GC()
	for range 200 {
		if finalized.Load() {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatal("the finalizer of a dropped one-byte object did not run after the next collection")
}
`,
	})
	sameAsGoRace(t, dir, nil, "-count=1", ".")
}
