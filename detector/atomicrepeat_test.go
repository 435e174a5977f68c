// Copyright 2026 The bigfoot Authors. All rights reserved.

package detector

import (
	"sync"
	"testing"
)

// TestAtomicRepeatedLoad: a load of the variable of the goroutine's last
// synchronization, which nobody acquired since, neither makes the pending
// checks nor ends the epoch (atomic_repeats counts it); a load after
// another goroutine's operation on the variable, after an operation on
// another variable, or after a lock does both.
func TestAtomicRepeatedLoad(t *testing.T) {
	if countAccesses || verifyChecks {
		t.Skip("counting and verifying builds make every load in full")
	}
	a := make([]int64, 64)
	expect(t, false, func(g *G) {
		var x, y int64
		mu := new(sync.Mutex)
		do, stop := worker(g) // started first: its go statement is a release
		defer stop()
		AtomicLoadInt64(g, &x)
		popRange(g, a, 0, 32, true, 0)
		e, n := g.t.Epoch, g.atomicRepeats
		for range 3 {
			AtomicLoadInt64(g, &x)
		}
		if g.atomicRepeats != n+3 || g.t.Epoch != e || g.pend.n == 0 {
			t.Errorf("repeated loads: %d repeats, epoch %v -> %v, %d pending checks; want 3, unchanged, some",
				g.atomicRepeats-n, e, g.t.Epoch, g.pend.n)
		}
		for _, other := range []struct {
			name string
			f    func()
		}{
			{"another goroutine's load", func() { do(func(g *G) { AtomicLoadInt64(g, &x) }) }},
			{"another goroutine's store", func() { do(func(g *G) { AtomicStoreInt64(g, &x, 1) }) }},
			{"a load of another variable", func() { AtomicLoadInt64(g, &y) }},
			{"a lock", func() { Lock(g, mu); Unlock(g, mu) }},
			// A go statement releases (and ticks) without countSync.
			{"a go statement", func() { <-spawn(g, func(*G) {}) }},
		} {
			AtomicLoadInt64(g, &x)
			other.f()
			popRange(g, a, 32, 64, true, 0)
			n := g.atomicRepeats
			AtomicLoadInt64(g, &x)
			if g.atomicRepeats != n || g.pend.n != 0 {
				t.Errorf("load after %s: %d repeats, %d pending checks; want 0, 0", other.name, g.atomicRepeats-n, g.pend.n)
			}
		}
	})
}

// TestAtomicRepeatedLoadUnrecorded: a load whose first load's read the
// shadow no longer holds (another goroutine's read and then racing write
// of the variable replaced it) is made in full, so that its own read is
// recorded for the accesses that come after it.
func TestAtomicRepeatedLoadUnrecorded(t *testing.T) {
	if countAccesses || verifyChecks {
		t.Skip("counting and verifying builds make every load in full")
	}
	n, _ := run(t, func(g *G) {
		var x int64
		do, stop := worker(g)
		defer stop()
		AtomicLoadInt64(g, &x)
		do(func(g *G) {
			_ = *R(g, &x, 0)
			*W(g, &x, 0) = 3 // races with the load; forgets both reads
		})
		n := g.atomicRepeats
		AtomicLoadInt64(g, &x)
		if g.atomicRepeats != n {
			t.Error("a load whose first load's read was forgotten was a repeat")
		}
	})
	if n == 0 {
		t.Error("no race reported, want the write's with the first load")
	}
}

// TestAtomicRepeatedLoadRaces: the races across repeated loads are
// reported. A pending check's access races with a write made before it by
// a goroutine the loads do not order; a plain write of the variable
// races with a load after which nobody acquired it. The race-free
// variants order the same accesses through the variable.
func TestAtomicRepeatedLoadRaces(t *testing.T) {
	t.Run("pending", func(t *testing.T) {
		both(t, func(g *G, synced bool) {
			a := make([]int64, 64)
			var x int64
			<-spawn(g, func(g *G) {
				*W(g, &a[40], 0) = 2
				if synced {
					AtomicStoreInt64(g, &x, 1)
				}
			})
			AtomicLoadInt64(g, &x)
			popRange(g, a, 0, 64, false, 0)
			for range 3 {
				AtomicLoadInt64(g, &x)
			}
		})
	})
	// Another goroutine's store between two loads of the main one: the
	// second load acquires it (the clock of a load that did not would
	// not order the store's goroutine's write before the read).
	t.Run("store", func(t *testing.T) {
		both(t, func(g *G, synced bool) {
			a := make([]int64, 64)
			var x int64
			do, stop := worker(g)
			defer stop()
			AtomicLoadInt64(g, &x)
			do(func(g *G) {
				*W(g, &a[40], 0) = 2
				if synced {
					AtomicStoreInt64(g, &x, 1)
				}
			})
			AtomicLoadInt64(g, &x)
			_ = *R(g, &a[40], 0)
		})
	})
	// A go statement between the loads releases the epoch of a plain
	// read of the variable: the second load is no repeat (its epoch is
	// not the first's, atomicEpoch, and the go statement may publish a
	// snapshot), and its own read, recorded at the next epoch, races with
	// the new goroutine's write (were it a repeat, the plain read, at the
	// epoch before, would stand for it, and the child is ordered after
	// that).
	t.Run("fork", func(t *testing.T) {
		both(t, func(g *G, synced bool) {
			var x int64
			AtomicLoadInt64(g, &x)
			_ = *R(g, &x, 0)
			do, stop := worker(g)
			defer stop()
			AtomicLoadInt64(g, &x)
			do(func(g *G) {
				if synced {
					AtomicStoreInt64(g, &x, 3)
				} else {
					*W(g, &x, 0) = 3
				}
			})
		})
	})
	// The other goroutine loads the variable before the main one's
	// second load, and writes it plainly after: that load is not a
	// repeat, and its read is recorded at its own epoch, which the
	// writer does not know (with the repeat's rule applied regardless of
	// the other load, the write would be judged against the first
	// load's read, which it is ordered after, and the race missed).
	t.Run("variable", func(t *testing.T) {
		both(t, func(g *G, synced bool) {
			var x int64
			do, stop := worker(g)
			defer stop()
			AtomicLoadInt64(g, &x)
			do(func(g *G) { AtomicLoadInt64(g, &x) })
			n := g.atomicRepeats
			AtomicLoadInt64(g, &x)
			if g.atomicRepeats != n {
				t.Error("a load after another goroutine's was a repeat")
			}
			do(func(g *G) {
				if synced {
					AtomicLoadInt64(g, &x)
				}
				*W(g, &x, 0) = 3
			})
		})
	})
}

// TestAcquireNothing: an acquire of a clock the goroutine's includes (a
// mutex it unlocked last) makes no pending check; one of another
// goroutine's release makes them all first.
func TestAcquireNothing(t *testing.T) {
	if countAccesses || verifyChecks {
		t.Skip("counting and verifying builds make every acquire in full")
	}
	a := make([]int64, 64)
	expect(t, false, func(g *G) {
		mu := new(sync.Mutex)
		Lock(g, mu)
		Unlock(g, mu)
		popRange(g, a, 0, 32, true, 0)
		n := g.acquiresSpared
		Lock(g, mu)
		if g.acquiresSpared != n+1 || g.pend.n == 0 {
			t.Errorf("relock: %d acquires spared, %d pending checks; want 1, some", g.acquiresSpared-n, g.pend.n)
		}
		Unlock(g, mu)
		<-spawn(g, func(g *G) { Lock(g, mu); Unlock(g, mu) })
		popRange(g, a, 32, 64, true, 0)
		n = g.acquiresSpared
		Lock(g, mu)
		if g.acquiresSpared != n || g.pend.n != 0 {
			t.Errorf("lock after another goroutine's unlock: %d acquires spared, %d pending checks; want 0, 0", g.acquiresSpared-n, g.pend.n)
		}
		Unlock(g, mu)
	})
}

// TestAcquireNothingRaces: a pending check across a spared acquire is
// made later, against the same clock, and finds its race; across an
// acquire that joins another goroutine's clock it is made before the
// join, and finds the race with the accesses that goroutine made before
// its release (with the commit after the join, the race would be missed).
func TestAcquireNothingRaces(t *testing.T) {
	t.Run("spared", func(t *testing.T) {
		both(t, func(g *G, synced bool) {
			a := make([]int64, 64)
			mu := new(sync.Mutex)
			<-spawn(g, func(g *G) {
				if synced {
					Lock(g, mu)
				}
				*W(g, &a[40], 0) = 2
				if synced {
					Unlock(g, mu)
				}
			})
			Lock(g, mu)
			Unlock(g, mu)
			popRange(g, a, 0, 64, false, 0)
			Lock(g, mu) // spared: the pending reads are still to be made
			Unlock(g, mu)
		})
	})
	t.Run("joined", func(t *testing.T) {
		both(t, func(g *G, synced bool) {
			a := make([]int64, 64)
			mu := new(sync.Mutex)
			do, stop := worker(g)
			defer stop()
			popRange(g, a, 0, 64, false, 0)
			if synced {
				Lock(g, mu) // the lock itself is spared: nobody released mu
				Unlock(g, mu)
			}
			do(func(g *G) {
				Lock(g, mu)
				*W(g, &a[40], 0) = 2
				Unlock(g, mu)
			})
			Lock(g, mu)
			Unlock(g, mu)
		})
	})
}

// worker starts a goroutine that runs the functions do is called with,
// one at a time, each before do returns; stop ends it. The channels
// order nothing in the detector's view: only the functions' own
// synchronization does.
func worker(g *G) (do func(func(g *G)), stop func()) {
	fs, ran := make(chan func(g *G)), make(chan struct{})
	done := spawn(g, func(g *G) {
		for f := range fs {
			f(g)
			ran <- struct{}{}
		}
	})
	return func(f func(g *G)) { fs <- f; <-ran }, func() { close(fs); <-done }
}
