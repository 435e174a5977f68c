// Copyright 2026 The bigfoot Authors. All rights reserved.

package detector

import (
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"
	"unsafe"
)

// Hand-written programs that use the API the way emitted code does, one
// racy and one race-free variant per synchronization primitive.

func TestMutex(t *testing.T) {
	both(t, func(g *G, synced bool) {
		x, mu := new(int), new(sync.Mutex)
		<-spawn(g, func(g *G) { Lock(g, mu); *W(g, x, 0)++; Unlock(g, mu) })
		<-spawn(g, func(g *G) {
			if synced {
				Lock(g, mu)
				defer Unlock(g, mu)
			}
			*W(g, x, 0)++
		})
	})
	// A plain write of a mutex concurrent with Lock or Unlock races (Go's
	// suite: TestRaceMutexOverwrite); Lock/Unlock among themselves do not.
	t.Run("overwrite", func(t *testing.T) {
		both(t, func(g *G, synced bool) {
			mu, done := new(sync.Mutex), new(sync.Mutex)
			Lock(g, done)
			<-spawn(g, func(g *G) { *W(g, mu, 0) = sync.Mutex{}; Unlock(g, done) })
			if synced {
				Lock(g, done)
			}
			Lock(g, mu)
			Unlock(g, mu)
		})
	})
	t.Run("lock-unlock-no-race", func(t *testing.T) {
		expect(t, false, func(g *G) {
			mu := new(sync.Mutex)
			a := spawn(g, func(g *G) { Lock(g, mu); Unlock(g, mu) })
			b := spawn(g, func(g *G) { Lock(g, mu); Unlock(g, mu) })
			<-a
			<-b
		})
	})
	t.Run("trylock", func(t *testing.T) {
		expect(t, false, func(g *G) {
			x, mu := new(int), new(sync.Mutex)
			<-spawn(g, func(g *G) { Lock(g, mu); *W(g, x, 0)++; Unlock(g, mu) })
			<-spawn(g, func(g *G) {
				if TryLock(g, mu) {
					*W(g, x, 0)++
					Unlock(g, mu)
				}
			})
		})
	})
}

func TestRWMutex(t *testing.T) {
	// Writer then writer.
	both(t, func(g *G, synced bool) {
		x, mu := new(int), new(sync.RWMutex)
		<-spawn(g, func(g *G) { RWLock(g, mu); *W(g, x, 0)++; RWUnlock(g, mu) })
		<-spawn(g, func(g *G) {
			if synced {
				RWLock(g, mu)
				defer RWUnlock(g, mu)
			}
			*W(g, x, 0)++
		})
	})
	// Writer then reader.
	both(t, func(g *G, synced bool) {
		x, mu := new(int), new(sync.RWMutex)
		<-spawn(g, func(g *G) { RWLock(g, mu); *W(g, x, 0)++; RWUnlock(g, mu) })
		<-spawn(g, func(g *G) {
			if synced {
				RWRLock(g, mu)
				defer RWRUnlock(g, mu)
			}
			_ = *R(g, x, 0)
		})
	})
	// Reader then writer.
	both(t, func(g *G, synced bool) {
		x, mu := new(int), new(sync.RWMutex)
		<-spawn(g, func(g *G) { RWRLock(g, mu); _ = *R(g, x, 0); RWRUnlock(g, mu) })
		<-spawn(g, func(g *G) {
			if synced {
				RWLock(g, mu)
				defer RWUnlock(g, mu)
			}
			*W(g, x, 0)++
		})
	})
	// Readers do not order each other: a write under RLock races.
	expect(t, true, func(g *G) {
		x, mu := new(int), new(sync.RWMutex)
		<-spawn(g, func(g *G) { RWRLock(g, mu); *W(g, x, 0)++; RWRUnlock(g, mu) })
		<-spawn(g, func(g *G) { RWRLock(g, mu); *W(g, x, 0)++; RWRUnlock(g, mu) })
	})
	expect(t, false, func(g *G) {
		x, mu := new(int), new(sync.RWMutex)
		<-spawn(g, func(g *G) {
			if RWTryLock(g, mu) {
				*W(g, x, 0)++
				RWUnlock(g, mu)
			}
		})
		<-spawn(g, func(g *G) {
			if RWTryRLock(g, mu) {
				_ = *R(g, x, 0)
				RWRUnlock(g, mu)
			}
		})
	})
}

func TestLocker(t *testing.T) {
	both(t, func(g *G, synced bool) {
		x := new(int)
		var l sync.Locker = new(sync.Mutex)
		<-spawn(g, func(g *G) { LockerLock(g, l); *W(g, x, 0)++; LockerUnlock(g, l) })
		<-spawn(g, func(g *G) {
			if synced {
				LockerLock(g, l)
				defer LockerUnlock(g, l)
			}
			*W(g, x, 0)++
		})
	})
	// A Locker and a direct Lock of the same mutex share one clock.
	expect(t, false, func(g *G) {
		x, mu := new(int), new(sync.Mutex)
		<-spawn(g, func(g *G) { LockerLock(g, mu); *W(g, x, 0)++; LockerUnlock(g, mu) })
		<-spawn(g, func(g *G) { Lock(g, mu); *W(g, x, 0)++; Unlock(g, mu) })
	})
}

func TestWaitGroup(t *testing.T) {
	both(t, func(g *G, synced bool) {
		x, wg := new(int), new(sync.WaitGroup)
		WaitGroupAdd(g, wg, 1)
		<-spawn(g, func(g *G) {
			*W(g, x, 0) = 1
			if synced {
				WaitGroupDone(g, wg)
			} else {
				wg.Done() // uninstrumented: no edge
			}
		})
		WaitGroupWait(g, wg)
		_ = *R(g, x, 0)
	})
	t.Run("go", func(t *testing.T) {
		both(t, func(g *G, synced bool) {
			x, wg := new(int), new(sync.WaitGroup)
			WaitGroupGo(g, wg, func() { *W(Cur(), x, 0) = 1 }, 0)
			if synced {
				WaitGroupWait(g, wg)
			} else {
				wg.Wait()
			}
			_ = *R(g, x, 0)
		})
		// The fork edge: the parent's writes before Go happen before f.
		expect(t, false, func(g *G) {
			x, wg := new(int), new(sync.WaitGroup)
			*W(g, x, 0) = 1
			WaitGroupGo(g, wg, func() { _ = *R(Cur(), x, 0) }, 0)
			WaitGroupWait(g, wg)
		})
	})
}

// The model's accesses of &wg.sema cover the semaphore's granule as a
// write of the whole WaitGroup did, so they leave it whole: a one-byte
// access split it into one state per byte (the blocks workload's only
// such granules, one per WaitGroup).
func TestWaitGroupSemaWhole(t *testing.T) {
	if !wgLayout.ok {
		t.Skip("unexpected sync.WaitGroup layout")
	}
	g := Cur()
	before := space.ShapeStats()
	for range 8 {
		wg := new(sync.WaitGroup)
		*W(g, wg, 0) = sync.WaitGroup{} // the zero value, stored whole
		WaitGroupAdd(g, wg, 1)          // from zero: reads &wg.sema
		done := spawn(g, func(g *G) {
			for {
				if _, w := wgCounter(wg); w > 0 {
					break
				}
				runtime.Gosched()
			}
			WaitGroupDone(g, wg)
		})
		WaitGroupWait(g, wg) // the first waiter to block: writes &wg.sema
		<-done
		runtime.KeepAlive(wg)
	}
	after := space.ShapeStats()
	if after.Split+after.Parts > before.Split+before.Parts {
		t.Errorf("split granules %d -> %d, parts %d -> %d: the sema accesses split the WaitGroup's state",
			before.Split, after.Split, before.Parts, after.Parts)
	}
}

// An Add from zero not ordered before a Wait that blocks is a race on
// &wg.sema, as in Go's race runtime (TestRaceWaitGroupWrongAdd); an Add
// ordered before the Wait, several waiters, and reuse after Wait are not.
func TestWaitGroupMisuse(t *testing.T) {
	if !wgLayout.ok {
		t.Skip("unexpected sync.WaitGroup layout")
	}
	both(t, func(g *G, synced bool) {
		wg := new(sync.WaitGroup)
		added, release := make(chan struct{}), make(chan struct{})
		var done <-chan struct{}
		if synced {
			WaitGroupAdd(g, wg, 1)
			done = spawn(g, func(g *G) {
				close(added)
				<-release
				WaitGroupDone(g, wg)
			})
		} else {
			done = spawn(g, func(g *G) {
				WaitGroupAdd(g, wg, 1)
				close(added)
				<-release
				WaitGroupDone(g, wg)
			})
		}
		<-added
		go func() {
			// Let Wait block first (real time only, no edge).
			for {
				if _, w := wgCounter(wg); w > 0 {
					close(release)
					return
				}
				runtime.Gosched()
			}
		}()
		WaitGroupWait(g, wg)
		<-done
	})
	// Several waiters: only the first writes.
	expect(t, false, func(g *G) {
		wg := new(sync.WaitGroup)
		WaitGroupAdd(g, wg, 1)
		var waiters []<-chan struct{}
		for range 3 {
			waiters = append(waiters, spawn(g, func(g *G) { WaitGroupWait(g, wg) }))
		}
		for {
			if _, w := wgCounter(wg); w == 3 {
				break
			}
			runtime.Gosched()
		}
		WaitGroupDone(g, wg)
		for _, w := range waiters {
			<-w
		}
	})
	// Reuse: a new round's Add after the previous Wait returned.
	expect(t, false, func(g *G) {
		wg := new(sync.WaitGroup)
		for range 3 {
			WaitGroupAdd(g, wg, 2)
			for range 2 {
				spawn(g, func(g *G) { WaitGroupDone(g, wg) })
			}
			WaitGroupWait(g, wg)
		}
	})
}

func TestOnce(t *testing.T) {
	both(t, func(g *G, synced bool) {
		x, o := new(int), new(sync.Once)
		<-spawn(g, func(g *G) { OnceDo(g, o, func() { *W(g, x, 0) = 1 }) })
		<-spawn(g, func(g *G) {
			if synced {
				OnceDo(g, o, func() { *W(g, x, 0) = 2 })
			}
			_ = *R(g, x, 0)
		})
	})
}

func TestOnceFunc(t *testing.T) {
	both(t, func(g *G, synced bool) {
		x := new(int)
		f := OnceFunc(g, func() { *W(Cur(), x, 0) = 1 })
		<-spawn(g, func(g *G) { f() })
		<-spawn(g, func(g *G) {
			if synced {
				f()
			}
			_ = *R(g, x, 0)
		})
	})
	both(t, func(g *G, synced bool) {
		x := new(int)
		f := OnceValue(g, func() int { *W(Cur(), x, 0) = 1; return 7 })
		<-spawn(g, func(g *G) { f() })
		<-spawn(g, func(g *G) {
			if synced && f() != 7 {
				t.Error("OnceValue returned the wrong value")
			}
			_ = *R(g, x, 0)
		})
	})
	both(t, func(g *G, synced bool) {
		x := new(int)
		f := OnceValues(g, func() (int, error) { *W(Cur(), x, 0) = 1; return 7, nil })
		<-spawn(g, func(g *G) { f() })
		<-spawn(g, func(g *G) {
			if synced {
				f()
			}
			_ = *R(g, x, 0)
		})
	})
}

func TestCond(t *testing.T) {
	both(t, func(g *G, synced bool) {
		x := new(int)
		mu := new(sync.Mutex)
		c := sync.NewCond(mu)
		ready := new(bool)
		woken := make(chan struct{})
		waiter := spawn(g, func(g *G) {
			Lock(g, mu)
			for !*R(g, ready, 0) {
				close(woken)
				CondWait(g, c)
			}
			Unlock(g, mu)
			_ = *R(g, x, 0)
		})
		<-woken
		*W(g, x, 0) = 1
		if synced {
			Lock(g, mu)
			*W(g, ready, 0) = true
			c.Signal()
			Unlock(g, mu)
		} else {
			// Wake the waiter without the detector seeing any edge:
			// write ready under the real lock only.
			mu.Lock()
			*ready = true
			c.Broadcast()
			mu.Unlock()
		}
		<-waiter
	})
	expect(t, false, func(g *G) {
		x := new(int)
		mu := new(sync.Mutex)
		c := sync.NewCond(mu)
		n := new(int)
		var ws []<-chan struct{}
		for range 3 {
			ws = append(ws, spawn(g, func(g *G) {
				Lock(g, mu)
				for *R(g, n, 0) == 0 {
					CondWait(g, c)
				}
				Unlock(g, mu)
				_ = *R(g, x, 0)
			}))
		}
		*W(g, x, 0) = 1
		Lock(g, mu)
		*W(g, n, 0) = 1
		c.Broadcast()
		Unlock(g, mu)
		for _, w := range ws {
			<-w
		}
	})
}

type pooled struct{ v int }

func TestPool(t *testing.T) {
	both(t, func(g *G, synced bool) {
		p := new(sync.Pool)
		obj := &pooled{}
		var got *pooled
		<-spawn(g, func(g *G) {
			*W(g, &obj.v, 0) = 1
			if synced {
				PoolPut(g, p, obj)
			}
		})
		<-spawn(g, func(g *G) {
			if synced {
				if x, _ := PoolGet(g, p).(*pooled); x != nil {
					got = x
				}
			}
			if got == nil {
				got = obj // the pool may drop items; model the hand-off anyway
				if synced {
					RaceAcquire(unsafe.Pointer(obj))
				}
			}
			*W(g, &got.v, 0) = 2
		})
	})
}

// TestStdPoolPutDrops checks that sync.Pool's Put drops items as it does
// under go -race: stdPoolPut, which package sync's Put calls in a bigfoot
// build, says to drop one item in poolDropOdds, never a nil one. Without
// drops a loop that makes and abandons a pool per value keeps every item
// pooled since the last collection, and the heap goal, twice the live
// heap, lets the next interval pool as many again. The drops of 4,096
// Puts are binomial (mean 1,024, deviation 28): the bounds, an eighth and
// three eighths, are 18 deviations out, so only a Put that drops none or
// all, or at another rate, fails.
func TestStdPoolPutDrops(t *testing.T) {
	const n = 4096
	obj := &pooled{}
	drops := 0
	for range n {
		if stdPoolPut(obj) {
			drops++
		}
		if stdPoolPut(nil) {
			t.Fatal("Put(nil) dropped")
		}
	}
	if drops < n/8 || drops > 3*n/8 {
		t.Errorf("%d of %d Puts dropped, want about 1 in %d", drops, n, poolDropOdds)
	}
}

func TestAtomicFunctions(t *testing.T) {
	// A flag published with an atomic store and observed with a load.
	both(t, func(g *G, synced bool) {
		x, flag := new(int), new(int32)
		<-spawn(g, func(g *G) {
			*W(g, x, 0) = 1
			if synced {
				AtomicStoreInt32(g, flag, 1)
			}
		})
		<-spawn(g, func(g *G) {
			if synced && AtomicLoadInt32(g, flag) != 1 {
				t.Error("flag not set")
			}
			_ = *R(g, x, 0)
		})
	})
	// Every kind of operation orders, and atomics never race with each other.
	expect(t, false, func(g *G) {
		i32, i64, u32, u64, up := new(int32), new(int64), new(uint32), new(uint64), new(uintptr)
		p := new(unsafe.Pointer)
		var ws []<-chan struct{}
		for range 3 {
			ws = append(ws, spawn(g, func(g *G) {
				AtomicAddInt32(g, i32, 1)
				AtomicAndInt32(g, i32, 7)
				AtomicOrInt32(g, i32, 8)
				AtomicSwapInt32(g, i32, 3)
				AtomicCompareAndSwapInt32(g, i32, 3, 4)
				AtomicAddInt64(g, i64, 1)
				AtomicOrInt64(g, i64, 2)
				AtomicAndInt64(g, i64, 3)
				AtomicStoreInt64(g, i64, AtomicLoadInt64(g, i64))
				AtomicAddUint32(g, u32, 1)
				AtomicSwapUint32(g, u32, AtomicLoadUint32(g, u32))
				AtomicStoreUint64(g, u64, AtomicAddUint64(g, u64, 1))
				AtomicCompareAndSwapUint64(g, u64, 0, 1)
				AtomicStoreUintptr(g, up, AtomicLoadUintptr(g, up)+1)
				AtomicCompareAndSwapUintptr(g, up, 1, 2)
				AtomicStorePointer(g, p, unsafe.Pointer(i32))
				AtomicCompareAndSwapPointer(g, p, unsafe.Pointer(i32), unsafe.Pointer(i64))
				_ = AtomicSwapPointer(g, p, AtomicLoadPointer(g, p))
			}))
		}
		for _, w := range ws {
			<-w
		}
	})
	// A plain write racing with an atomic load is a race.
	expect(t, true, func(g *G) {
		v := new(int64)
		<-spawn(g, func(g *G) { *W(g, v, 0) = 1 })
		<-spawn(g, func(g *G) { AtomicLoadInt64(g, v) })
	})
}

func TestAtomicTypes(t *testing.T) {
	type vals struct {
		b  atomic.Bool
		i  atomic.Int64
		u  atomic.Uint32
		up atomic.Uintptr
		v  atomic.Value
		p  atomic.Pointer[int]
	}
	publish := []struct {
		name       string
		store, obs func(g *G, v *vals)
	}{
		{"Bool", func(g *G, v *vals) { AtomicBoolStore(g, &v.b, true) }, func(g *G, v *vals) { AtomicBoolLoad(g, &v.b) }},
		{"Int64", func(g *G, v *vals) { AtomicInt64Add(g, &v.i, 1) }, func(g *G, v *vals) { AtomicInt64Load(g, &v.i) }},
		{"Uint32", func(g *G, v *vals) { AtomicUint32Or(g, &v.u, 1) }, func(g *G, v *vals) { AtomicUint32CompareAndSwap(g, &v.u, 1, 2) }},
		{"Uintptr", func(g *G, v *vals) { AtomicUintptrSwap(g, &v.up, 1) }, func(g *G, v *vals) { AtomicUintptrAnd(g, &v.up, 1) }},
		{"Value", func(g *G, v *vals) { AtomicValueStore(g, &v.v, 1) }, func(g *G, v *vals) { AtomicValueLoad(g, &v.v) }},
		{"Pointer", func(g *G, v *vals) { AtomicPointerStore(g, &v.p, new(int)) }, func(g *G, v *vals) { AtomicPointerLoad(g, &v.p) }},
	}
	for _, op := range publish {
		t.Run(op.name, func(t *testing.T) {
			both(t, func(g *G, synced bool) {
				x, v := new(int), new(vals)
				<-spawn(g, func(g *G) {
					*W(g, x, 0) = 1
					if synced {
						op.store(g, v)
					}
				})
				<-spawn(g, func(g *G) {
					if synced {
						op.obs(g, v)
					}
					_ = *R(g, x, 0)
				})
			})
		})
	}
}

func TestGoroutines(t *testing.T) {
	// The go statement orders the parent's past before the child.
	expect(t, false, func(g *G) {
		x := new(int)
		*W(g, x, 0) = 1
		<-spawn(g, func(g *G) { *W(g, x, 0) = 2 })
	})
	// But not the parent's future.
	expect(t, true, func(g *G) {
		x := new(int)
		started := make(chan struct{})
		done := spawn(g, func(g *G) { <-started; *W(g, x, 0) = 2 })
		*W(g, x, 0) = 1
		close(started)
		<-done
	})
	// Siblings are unordered; a child's exit is not a join.
	expect(t, true, func(g *G) {
		x := new(int)
		<-spawn(g, func(g *G) { *W(g, x, 0) = 1 })
		*W(g, x, 0) = 2
	})
}

func TestFinalizer(t *testing.T) {
	both(t, func(g *G, synced bool) {
		x := new(int)
		done := make(chan struct{})
		obj := new([32]byte)
		*W(g, x, 0) = 1
		// A second goroutine's access makes the shadow track x across
		// GC cycles (see shadow/gc.go); the runtime.GC calls below would
		// otherwise drop the single-goroutine state.
		<-spawn(g, func(g *G) { _ = *R(g, x, 0) })
		fin := func(*[32]byte) {
			cg := Cur()
			if !synced {
				cg = newG(nil, 0, 0, 0) // a goroutine that saw no edge
				cg.start(curKey())
			}
			_ = *R(cg, x, 0)
			close(done)
		}
		if synced {
			SetFinalizer(g, obj, fin)
		} else {
			runtime.SetFinalizer(obj, fin)
		}
		obj = nil
		for {
			runtime.GC()
			select {
			case <-done:
				return
			default:
			}
		}
	})
	both(t, func(g *G, synced bool) {
		x := new(int)
		done := make(chan struct{})
		obj := new([32]byte)
		*W(g, x, 0) = 1
		// A second goroutine's access makes the shadow track x across
		// GC cycles (see shadow/gc.go); the runtime.GC calls below would
		// otherwise drop the single-goroutine state.
		<-spawn(g, func(g *G) { _ = *R(g, x, 0) })
		cleanup := func(int) {
			cg := Cur()
			if !synced {
				cg = newG(nil, 0, 0, 0)
				cg.start(curKey())
			}
			_ = *R(cg, x, 0)
			close(done)
		}
		if synced {
			AddCleanup(g, obj, cleanup, 0)
		} else {
			runtime.AddCleanup(obj, cleanup, 0)
		}
		obj = nil
		for {
			runtime.GC()
			select {
			case <-done:
				return
			default:
			}
		}
	})
}

// A time.AfterFunc callback, wrapped by Async as the instrumenter emits
// it, is ordered after the call of AfterFunc (Go's
// TestNoRaceAfterFuncReset), not after what the caller did next; two
// callbacks are not ordered with each other (Go's TestRaceAfterFunc3).
func TestAfterFunc(t *testing.T) {
	expect(t, false, func(g *G) {
		x := new(int)
		done := make(chan struct{})
		*W(g, x, 0) = 2
		time.AfterFunc(0, Async(g, func() {
			*W(Cur(), x, 0) = 1
			close(done)
		}))
		<-done
	})
	expect(t, true, func(g *G) {
		x := new(int)
		wrote, done := make(chan struct{}), make(chan struct{})
		time.AfterFunc(0, Async(g, func() {
			<-wrote // an edge the detector does not see
			*W(Cur(), x, 0) = 1
			close(done)
		}))
		*W(g, x, 0) = 2
		close(wrote)
		<-done
	})
	expect(t, true, func(g *G) {
		x := new(int)
		first, second := make(chan struct{}), make(chan struct{})
		time.AfterFunc(0, Async(g, func() {
			*W(Cur(), x, 0) = 1
			close(first)
		}))
		<-first
		time.AfterFunc(0, Async(g, func() {
			*W(Cur(), x, 0) = 2
			close(second)
		}))
		<-second
	})
}

// A callback that starts after the test released into the handoff clock
// (its end) is still ordered only after the call of AfterFunc (the
// afterfunctest kernel).
func TestAfterFuncNoHandoff(t *testing.T) {
	expect(t, true, func(g *G) {
		x := new(int)
		wrote, done := make(chan struct{}), make(chan struct{})
		AfterFunc(g, 0, func() {
			<-wrote // an edge the detector does not see
			*W(Cur(), x, 0) = 1
			close(done)
		})
		*W(g, x, 0) = 2
		handoff.release(g) // as the end of a test does
		close(wrote)
		<-done
	})
}

// AfterFunc (time.AfterFunc as emitted) orders the callback after the
// timer's Reset (TimerRelease), not only after its creation (Go's
// TestNoRaceAfterFuncReset); a write after the Reset is not ordered.
func TestAfterFuncReset(t *testing.T) {
	both(t, func(g *G, synced bool) {
		x := new(int)
		wrote, done := make(chan struct{}), make(chan struct{})
		tm := AfterFunc(g, time.Hour, func() {
			<-wrote // an edge the detector does not see
			*W(Cur(), x, 0) = 1
			close(done)
		})
		tm.Stop()
		if synced {
			*W(g, x, 0) = 2
			TimerRelease(tm).Reset(0)
		} else {
			TimerRelease(tm).Reset(0)
			*W(g, x, 0) = 2
		}
		close(wrote)
		<-done
	})
}

// TestLockSyncCacheDeleted: a goroutine's remembered sync object that the
// sweeper deleted meanwhile is not used; the release goes into the
// table's new object, which a later acquire (by a goroutine with no cache
// of it) joins, so no edge is lost.
func TestLockSyncCacheDeleted(t *testing.T) {
	both(t, func(g *G, synced bool) {
		x, mu := new(int), heap(new(int64))
		a := addr(mu)
		wrote := make(chan struct{}) // not announced: real-time order only
		reader := spawn(g, func(g *G) {
			<-wrote
			g.acquire(a)
			_ = *R(g, x, 0)
		})
		<-spawn(g, func(g *G) {
			defer close(wrote)
			g.release(a) // remembered by g
			v := syncs.Load(a)
			if v == nil || g.syncVars[0] != v {
				t.Error("release did not remember its sync object")
				return
			}
			// What sweepSyncs does to the object of a dead heap object.
			v.mu.Lock()
			v.deleted = true
			syncs.CompareAndDelete(a, v)
			v.mu.Unlock()

			*W(g, x, 0) = 1
			if synced {
				g.release(a)
				if nv := syncs.Load(a); nv == nil || nv == v || g.syncVars[0] != nv {
					t.Error("the release did not go into a new object replacing the deleted one")
				}
			}
		})
		<-reader
		runtime.KeepAlive(mu)
	})
}

var deadSink *[4]int64

// TestSweepDropsDeadClock: the sweeper clears the clock of the sync object
// of a dead heap object as it deletes it. The object stays in its reserve
// chunk while any other object of the chunk is live, and a clock left in
// it would stay as long.
func TestSweepDropsDeadClock(t *testing.T) {
	g := Cur()
	deadSink = new([4]int64) // on the heap, not in the tiny allocator's blocks
	a := addr(&deadSink[0])
	g.release(a)
	v := syncs.Load(a)
	if v == nil {
		t.Fatal("release made no sync object")
	}
	g.syncVars = [2]*syncVar{}
	deadSink = nil
	for i := 0; i < 3 && !v.obj.dead(a); i++ {
		runtime.GC()
	}
	if !v.obj.dead(a) {
		t.Skip("the object did not die: nothing to sweep")
	}
	sweepSyncVars()
	v.mu.Lock()
	defer v.mu.Unlock()
	if !v.deleted || v.vc != nil {
		t.Errorf("dead object's sync object: deleted %v, clock %v; want deleted, no clock", v.deleted, v.vc)
	}
}

// TestSyncSweepDue: the sync objects are swept every syncSweepEvery
// cycles, and at any cycle that finds them doubled since the last sweep
// (more than syncRoom of them).
func TestSyncSweepDue(t *testing.T) {
	for _, c := range []struct {
		n, live, swept int
		want           bool
	}{
		{syncSweepEvery, 10, 10, true},
		{syncSweepEvery + 1, 10, 10, false},
		{syncSweepEvery + 1, 5000, 2500, false},
		{syncSweepEvery + 1, 5001, 2500, true},
		{1, 2 * syncRoom, 0, false},
		{1, 2*syncRoom + 1, 0, true},
	} {
		if got := syncSweepDue(c.n, c.live, c.swept); got != c.want {
			t.Errorf("syncSweepDue(%d, %d, %d) = %v, want %v", c.n, c.live, c.swept, got, c.want)
		}
	}
}
