// Copyright 2026 The bigfoot Authors. All rights reserved.

package detector

import (
	"runtime"
	"strings"
	"testing"
	"unsafe"
)

// store writes *p at site, as instrumented code does; callerA and callerB
// call it: two stacks for one site.
//
//go:noinline
func store(g *G, p *int, site uint32) { *W(g, p, site) = 1 }

//go:noinline
func callerA(g *G, p *int, site uint32) { store(g, p, site) }

//go:noinline
func callerB(g *G, p *int, site uint32) { store(g, p, site) }

// storeSites registers a site table of n sites in store, and returns
// the first.
func storeSites(n int) uint32 {
	return RegisterSites("github.com/bigfoot-go/bigfoot/detector", "detector/history_test.go",
		strings.Repeat("17:41:store\n", n))
}

// heapSink moves what a test stores in it to the heap.
var heapSink any

// previous returns the previous access's part of a report.
func previous(t *testing.T, text string) string {
	t.Helper()
	_, prev, ok := strings.Cut(text, "Previous write")
	if !ok {
		t.Fatalf("no previous write in\n%s", text)
	}
	prev, _, _ = strings.Cut(prev, "\n\n")
	return prev
}

// TestHistoryRestoresStack: the earlier access's stack is the one its
// access was made with, when one site is reached through two stacks in
// one epoch: the access of the racing location (the first, if both
// reached it).
func TestHistoryRestoresStack(t *testing.T) {
	site := storeSites(1)
	for _, c := range []struct {
		name, want, not string
		same            bool // both calls write the racing location
	}{
		{"other", "callerB", "callerA", false},
		{"same", "callerA", "callerB", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			p, q := new(int), new(int)
			if c.same {
				q = p
			}
			text := expect(t, true, func(g *G) {
				<-spawn(g, func(g *G) {
					callerA(g, p, site)
					callerB(g, q, site)
				})
				<-spawn(g, func(g *G) { *W(g, q, 0) = 2 })
			})
			prev := previous(t, text)
			contains(t, prev, "detector.store()\n      detector/history_test.go:17\n", "detector.c"+c.want[1:]+"()")
			if strings.Contains(prev, c.not) || strings.Contains(prev, "failed to restore") {
				t.Errorf("previous access's stack, want %s's:\n%s", c.want, text)
			}
		})
	}
}

// TestHistoryExtendsEntry: a site reached with one stack in epoch after
// epoch keeps one entry, which restores the stack of each epoch.
func TestHistoryExtendsEntry(t *testing.T) {
	site := storeSites(1)
	p := new(int)
	var added uint64
	text := expect(t, true, func(g *G) {
		<-spawn(g, func(g *G) {
			n := g.hist.n
			for range 100 {
				callerA(g, p, site)
				g.tick() // a release
			}
			added = g.hist.n - n
		})
		<-spawn(g, func(g *G) { *W(g, p, 0) = 2 })
	})
	if added != 1 {
		t.Errorf("100 epochs of one site and stack added %d entries, want 1", added)
	}
	contains(t, previous(t, text), "detector.callerA()")
}

// TestHistoryMovesOn: an access older than the ring's entries, or made
// while the history is off, is reported with its site and "failed to
// restore the stack", as go -race does when its trace has moved on.
func TestHistoryMovesOn(t *testing.T) {
	site := storeSites(histMax + 1)
	for _, c := range []string{"moved", "off"} {
		t.Run(c, func(t *testing.T) {
			if c == "off" {
				opts.history = false
				defer func() { opts.history = true }()
			}
			p := new(int)
			text := expect(t, true, func(g *G) {
				<-spawn(g, func(g *G) {
					callerA(g, p, site)
					if c == "moved" {
						q := make([]int, histMax)
						heapSink = q // on the heap: the shadow skips the own stack
						for i := range q {
							callerB(g, &q[i], site+1+uint32(i))
						}
					}
				})
				<-spawn(g, func(g *G) { *W(g, p, 0) = 2 })
			})
			want := "detector.store()\n      detector/history_test.go:17\n  [failed to restore the stack]"
			if prev := previous(t, text); !strings.Contains(prev, want) || strings.Contains(prev, "callerA") {
				t.Errorf("previous access, want its site and %q:\n%s", "[failed to restore the stack]", text)
			}
		})
	}
}

// TestHistorySkipsOwnStack: an access to the goroutine's own stack,
// which the shadow never records, adds no entry to the history; one to
// the heap does.
func TestHistorySkipsOwnStack(t *testing.T) {
	site := storeSites(1)
	g := Cur()
	if g.hist == nil || g.t.GP == nil {
		t.Skip("no history or no g in this build")
	}
	var local int
	if !onStack(g, unsafe.Pointer(&local)) {
		t.Fatal("local moved to the heap: the check made it escape")
	}
	n := g.hist.n
	callerA(g, &local, site)
	callerB(g, &local, site)
	if got := g.hist.n; got != n {
		t.Errorf("stack accesses added %d history entries, want 0", got-n)
	}
	p := new(int)
	heapSink = p
	callerA(g, p, site)
	if g.hist.n == n {
		t.Error("a heap access added no history entry")
	}
}

// TestDepotAllocs: storing new stacks allocates nothing a program's
// allocation count sees, not even when chunks of the depot fill (xxhash's
// TestAllocs counts allocations of a function whose checks store new
// stacks, and passes under go -race), and nothing the collector's heap
// goal counts. Off Linux, and in the detector's own tests under go test
// -race, the depot's memory comes from the heap (shadow.OffHeap).
func TestDepotAllocs(t *testing.T) {
	if runtime.GOOS != "linux" || raceEnabled {
		t.Skip("the depot's memory is on the heap here")
	}
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	var pcs [8]uintptr
	for i := range pcs {
		pcs[i] = uintptr(i + 1)
	}
	next := uintptr(1 << 40)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	// More than three chunks of return addresses and of stacks.
	for range 3 * max(depotChunk/len(pcs), stackChunk) {
		next++
		pcs[0] = next
		if intern(pcs[:]) == 0 {
			t.Fatal("depot full")
		}
	}
	runtime.ReadMemStats(&after)
	if n := after.Mallocs - before.Mallocs; n != 0 {
		t.Errorf("interning new stacks: %d allocations, want 0", n)
	}
}

// TestDepotIndex: a stored stack's id is found by its hash without the
// depot, and a hash of the same index word but another stack finds none.
func TestDepotIndex(t *testing.T) {
	pcs := []uintptr{1 << 41, 2, 3}
	id := intern(pcs)
	h := hashPCs(pcs)
	if got := depotLookup(h); got != id || id == 0 {
		t.Errorf("depotLookup of a stored stack: %d, want %d", got, id)
	}
	if got := depotLookup(h ^ 1<<40); got != 0 {
		t.Errorf("depotLookup of another hash of the same word: %d, want 0", got)
	}
	if got := stackOf(id); len(got) != len(pcs) || got[0] != pcs[0] || got[2] != pcs[2] {
		t.Errorf("stackOf(%d) = %v, want %v", id, got, pcs)
	}
}

// TestHistorySkipsSameEpoch: a check the inline path cannot decide (an
// access wider than Same's 64 bytes) that finds its bytes in the
// goroutine's epoch records nothing, and adds no entry to the history: a
// sort's swaps of records (sortrec) walked the stack on every one.
func TestHistorySkipsSameEpoch(t *testing.T) {
	site := storeSites(1)
	g := Cur()
	if g.hist == nil {
		t.Skip("no history in this build")
	}
	p := new([32]int64)
	heapSink = p
	*W(g, p, site) = [32]int64{1}
	n := g.hist.n
	for range 3 {
		*W(g, p, site) = [32]int64{2}
		_ = *R(g, p, site)
		// A field group as wide, and a footprint's element.
		_ = *RG(g, &p[5], 5*8, 0, 32*8, site)
		g.checkOne(unsafe.Pointer(p), 32*8, true, site)
	}
	if got := g.hist.n; got != n {
		t.Errorf("same-epoch checks of 256 bytes added %d history entries, want 0", got-n)
	}
}
