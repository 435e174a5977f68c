// Copyright 2026 The bigfoot Authors. All rights reserved.

package detector

import (
	"sync"
	"sync/atomic"
	"testing"
	"unsafe"
)

// TestAtomicLoadSpared: a load of a variable whose clock the goroutine's
// includes (it loaded it last, nobody stored since) neither makes the
// pending checks nor changes the epoch (acquires_spared counts it); a
// load after another goroutine's store, or of a variable the goroutine
// has not acquired, makes them.
func TestAtomicLoadSpared(t *testing.T) {
	if countAccesses || verifyChecks {
		t.Skip("counting and verifying builds make every load in full")
	}
	a := make([]int64, 64)
	expect(t, false, func(g *G) {
		var x, y int64
		do, stop := worker(g) // started first: its go statement is a release
		defer stop()
		AtomicLoadInt64(g, &x)
		popRange(g, a, 0, 32, true, 0)
		e, n := g.t.Epoch, g.acquiresSpared
		for range 3 {
			AtomicLoadInt64(g, &x)
		}
		if g.acquiresSpared != n+3 || g.t.Epoch != e || g.pend.n == 0 {
			t.Errorf("repeated loads: %d spared, epoch %v -> %v, %d pending checks; want 3, unchanged, some",
				g.acquiresSpared-n, e, g.t.Epoch, g.pend.n)
		}
		for _, other := range []struct {
			name string
			f    func()
		}{
			{"another goroutine's store", func() { do(func(g *G) { AtomicStoreInt64(g, &x, 1) }) }},
			{"another goroutine's add", func() { do(func(g *G) { AtomicAddInt64(g, &x, 1) }) }},
			{"a load of another variable", func() { y++; AtomicLoadInt64(g, &y) }},
		} {
			AtomicLoadInt64(g, &x)
			other.f()
			popRange(g, a, 32, 64, true, 0)
			n := g.acquiresSpared
			if other.name == "a load of another variable" {
				// The other variable's first load joined nothing.
				n = g.acquiresSpared
				AtomicLoadInt64(g, &x)
				if g.acquiresSpared != n+1 {
					t.Errorf("load after %s: not spared", other.name)
				}
				continue
			}
			AtomicLoadInt64(g, &x)
			if g.acquiresSpared != n || g.pend.n != 0 {
				t.Errorf("load after %s: %d spared, %d pending checks; want 0, 0", other.name, g.acquiresSpared-n, g.pend.n)
			}
		}
	})
}

// TestAtomicOrders: the edges of atomic operations are go -race's. A load
// orders nothing after itself, a store nothing before itself, and a
// CompareAndSwap that fails only acquires; each racy variant is reported
// (as go -race reports it: TestAtomicOrdersAsGoRace in cmd/bigfoot), each
// race-free variant orders the same accesses by an edge go -race has.
func TestAtomicOrders(t *testing.T) {
	t.Run("load releases nothing", func(t *testing.T) {
		both(t, func(g *G, synced bool) {
			var x, f int64
			do, stop := worker(g)
			defer stop()
			do(func(g *G) {
				*W(g, &x, 0) = 1
				if synced {
					AtomicStoreInt64(g, &f, 1)
				} else {
					AtomicLoadInt64(g, &f)
				}
			})
			AtomicLoadInt64(g, &f)
			_ = *R(g, &x, 0)
		})
	})
	t.Run("store acquires nothing", func(t *testing.T) {
		both(t, func(g *G, synced bool) {
			var x, f int64
			do, stop := worker(g)
			defer stop()
			do(func(g *G) {
				*W(g, &x, 0) = 1
				AtomicStoreInt64(g, &f, 1)
			})
			if synced {
				AtomicSwapInt64(g, &f, 2)
			} else {
				AtomicStoreInt64(g, &f, 2)
			}
			_ = *R(g, &x, 0)
		})
	})
	t.Run("failed CompareAndSwap releases nothing", func(t *testing.T) {
		both(t, func(g *G, synced bool) {
			var x, f int64
			do, stop := worker(g)
			defer stop()
			do(func(g *G) {
				*W(g, &x, 0) = 1
				old := int64(7) // f is 0: fails
				if synced {
					old = 0
				}
				if AtomicCompareAndSwapInt64(g, &f, old, 1) != synced {
					t.Error("CompareAndSwap: unexpected result")
				}
			})
			AtomicLoadInt64(g, &f)
			_ = *R(g, &x, 0)
		})
	})
	t.Run("failed CompareAndSwap acquires", func(t *testing.T) {
		both(t, func(g *G, synced bool) {
			var x, f int64
			do, stop := worker(g)
			defer stop()
			do(func(g *G) {
				*W(g, &x, 0) = 1
				if synced {
					AtomicStoreInt64(g, &f, 1)
				}
			})
			AtomicCompareAndSwapInt64(g, &f, 5, 6) // fails either way
			_ = *R(g, &x, 0)
		})
	})
}

// TestAtomicsNeverRace: atomic operations of every kind on one variable,
// by goroutines that nothing orders (a load is not ordered before a later
// store), never race with each other, however many goroutines read it;
// a plain access of the variable races with any of them, before or after.
func TestAtomicsNeverRace(t *testing.T) {
	ops := []struct {
		name string
		f    func(g *G, p *int64)
	}{
		{"load", func(g *G, p *int64) { AtomicLoadInt64(g, p) }},
		{"store", func(g *G, p *int64) { AtomicStoreInt64(g, p, 3) }},
		{"add", func(g *G, p *int64) { AtomicAddInt64(g, p, 1) }},
		{"cas", func(g *G, p *int64) { AtomicCompareAndSwapInt64(g, p, 9, 1) }},
	}
	for _, a := range ops {
		for _, b := range ops {
			t.Run(a.name+"/"+b.name, func(t *testing.T) {
				expect(t, false, func(g *G) {
					var f int64
					do, stop := worker(g)
					defer stop()
					do2, stop2 := worker(g)
					defer stop2()
					do(func(g *G) { AtomicLoadInt64(g, &f) })
					do2(func(g *G) { AtomicLoadInt64(g, &f) })
					do(func(g *G) { a.f(g, &f) })
					do2(func(g *G) { b.f(g, &f) })
					do(func(g *G) { b.f(g, &f) })
					a.f(g, &f)
				})
			})
		}
		for _, write := range []bool{false, true} {
			if !write && a.name == "load" {
				continue // reads do not conflict
			}
			name := a.name + "/plain read"
			if write {
				name = a.name + "/plain write"
			}
			t.Run(name, func(t *testing.T) {
				for _, plainFirst := range []bool{false, true} {
					expect(t, true, func(g *G) {
						var f int64
						do, stop := worker(g)
						defer stop()
						plain := func(g *G) {
							if write {
								*W(g, &f, 0) = 2
							} else {
								_ = *R(g, &f, 0)
							}
						}
						if plainFirst {
							do(plain)
							a.f(g, &f)
						} else {
							do(func(g *G) { a.f(g, &f) })
							plain(g)
						}
					})
				}
			})
		}
	}
}

// TestAtomicLoadRaces: the races across spared loads are reported. A
// pending check's access races with a write made before it by a goroutine
// the loads do not order; a later store by another goroutine is acquired
// by the next load. The race-free variants order the same accesses
// through the variable.
func TestAtomicLoadRaces(t *testing.T) {
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
	// The other goroutine loads the variable after the main one's loads
	// and writes it plainly: its write races with the main goroutine's
	// load, which released nothing, in either variant but for a store
	// by the main goroutine after its loads.
	t.Run("variable", func(t *testing.T) {
		both(t, func(g *G, synced bool) {
			var x int64
			do, stop := worker(g)
			defer stop()
			AtomicLoadInt64(g, &x)
			AtomicLoadInt64(g, &x)
			if synced {
				AtomicStoreInt64(g, &x, 1)
			}
			do(func(g *G) {
				AtomicLoadInt64(g, &x)
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

// TestAtomicOnOwnStackNoSyncObject: atomic operations on variables in the
// goroutine's own stack frame make no sync object (atomicBegin), which
// nothing would ever drop, and still work.
func TestAtomicOnOwnStackNoSyncObject(t *testing.T) {
	expect(t, false, func(g *G) {
		<-spawn(g, func(g *G) {
			if !onStack(g, unsafe.Pointer(&g)) {
				t.Skip("the goroutine's stack is unknown here")
			}
			var a [64]atomic.Int64 // does not escape
			before := syncs.Len()
			for i := range a {
				AtomicInt64Add(g, &a[i], 2)
				AtomicInt64Load(g, &a[i])
			}
			if n := syncs.Len() - before; n > 0 {
				t.Errorf("%d sync objects made for atomics on the goroutine's stack", n)
			}
			if a[63].Load() != 2 {
				t.Errorf("a[63] = %d, want 2", a[63].Load())
			}
		})
	})
}
