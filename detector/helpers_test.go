// Copyright 2026 The bigfoot Authors. All rights reserved.

package detector

import (
	"bytes"
	"runtime/debug"
	"strings"
	"sync"
	"testing"

	"github.com/bigfoot-go/bigfoot/shadow"
)

// testMu serializes tests that capture reports.
var testMu sync.Mutex

// spawn runs f in a goroutine created the way instrumented code creates
// one (Fork, Start, Exit) and returns a channel closed after it exited.
// The channel is not announced to the detector, so waiting on it orders
// the test's steps in real time without creating a happens-before edge.
func spawn(g *G, f func(g *G)) <-chan struct{} {
	return spawnAt(g, 0, f)
}

func spawnAt(g *G, site uint32, f func(g *G)) <-chan struct{} {
	c := g.Fork(site)
	done := make(chan struct{})
	go func() {
		defer close(done)
		cg := Start(c)
		defer cg.Exit()
		f(cg)
	}()
	return done
}

// run runs f in a fresh instrumented goroutine (so that every test starts
// from a goroutine state of its own) and returns the races reported and
// their text.
func run(t *testing.T, f func(g *G)) (int, string) {
	t.Helper()
	testMu.Lock()
	defer testMu.Unlock()
	var buf bytes.Buffer
	reportMu.Lock()
	out = &buf
	clear(seen)
	clear(racy)
	clear(readOnly)
	reportMu.Unlock()
	// Keep GC cycles from starting while f runs, and let the detector
	// observe the last one: a race whose accesses straddle a cycle may be
	// missed by design (shadow/gc.go), which would make tests flaky.
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	shadow.Quiesce()
	before := races.Load()
	<-spawn(Cur(), f)
	n := int(races.Load() - before)
	reportMu.Lock()
	out = nil
	reportMu.Unlock()
	// The races were expected by the test; keep the test's own race
	// check (none here) from seeing them.
	return n, buf.String()
}

// expect runs f and checks whether it reported a race.
func expect(t *testing.T, race bool, f func(g *G)) string {
	t.Helper()
	n, text := run(t, f)
	if race && n == 0 {
		t.Errorf("no race reported, want one")
	}
	if !race && n != 0 {
		t.Errorf("%d races reported, want none:\n%s", n, text)
	}
	return text
}

// both runs the racy and the race-free variant of a scenario, which takes
// a flag saying whether to synchronize.
func both(t *testing.T, f func(g *G, sync bool)) {
	t.Helper()
	t.Run("race", func(t *testing.T) { expect(t, true, func(g *G) { f(g, false) }) })
	t.Run("norace", func(t *testing.T) { expect(t, false, func(g *G) { f(g, true) }) })
}

func contains(t *testing.T, s string, subs ...string) {
	t.Helper()
	for _, sub := range subs {
		if !strings.Contains(s, sub) {
			t.Errorf("output lacks %q:\n%s", sub, s)
		}
	}
}
