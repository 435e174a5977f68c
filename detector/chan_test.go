// Copyright 2026 The bigfoot Authors. All rights reserved.

package detector

import (
	"context"
	"math/rand"
	"runtime"
	"slices"
	"testing"
	"time"
	"unsafe"

	"github.com/bigfoot-go/bigfoot/shadow"
)

// Channel programs, modeled on $GOROOT/src/runtime/race/testdata/chan_test.go,
// with the hooks called around real channel operations as emitted code
// calls them.

// viaHelpers makes send, recv and recvOK call the helpers emitted code
// calls for a send statement and a receive (Chan(c).Send, Recv, Recv2),
// which complete an operation that does not block under the lock of its
// announcement, instead of the separate hooks (TestChanHelpers).
var viaHelpers bool

func send[T any](g *G, ch chan T, v T) {
	if viaHelpers {
		Chan(ch).Send(g, v)
		return
	}
	ch <- Send(g, ch, cap(ch), v)
	SendPost(g, ch, cap(ch))
}

func recv[T any](g *G, ch chan T) T {
	if viaHelpers {
		return Recv(g, ch)
	}
	v := <-RecvPre(g, ch, cap(ch))
	return RecvPost(g, ch, cap(ch), v)
}

func recvOK[T any](g *G, ch chan T) (T, bool) {
	if viaHelpers {
		return Recv2(g, ch)
	}
	v, ok := <-RecvPre(g, ch, cap(ch))
	RecvPostValue(g, ch, cap(ch), ok)
	return v, ok
}

// TestChanHelpers runs the channel model's tests with the operations made
// by the helpers of emitted code, whose sends and receives that do not
// block announce, operate and complete in one section under the channel
// state's lock: the same edges, the same reports.
func TestChanHelpers(t *testing.T) {
	viaHelpers = true
	defer func() { viaHelpers = false }()
	for _, tc := range []struct {
		name string
		f    func(*testing.T)
	}{
		{"ValueAfterClose", TestChanValueAfterClose},
		{"Unbuffered", TestChanUnbuffered},
		{"Buffered", TestChanBuffered},
		{"CapacitySemaphore", TestChanCapacitySemaphore},
		{"Close", TestChanClose},
		{"Range", TestChanRange},
		{"ManyToMany", TestChanManyToMany},
		{"UninstrumentedSender", TestChanUninstrumentedSender},
		{"SendClose", TestChanSendClose},
	} {
		t.Run(tc.name, tc.f)
	}
}

// TestChanSendClosedRecovered checks that a send on a closed channel,
// which panics even when it would not block, leaves the channel's state
// unlocked: a program that recovers goes on using the channel.
func TestChanSendClosedRecovered(t *testing.T) {
	g, ch := Cur(), make(chan int, 1)
	close(ch) // uninstrumented: the channel's state does not know
	func() {
		defer func() {
			if recover() == nil {
				t.Fatal("a send on a closed channel did not panic")
			}
		}()
		Chan(ch).Send(g, 1)
	}()
	st := g.chanOf(*(*uintptr)(unsafe.Pointer(&ch)))
	if !st.mu.TryLock() {
		t.Fatal("the channel's state stayed locked after the send's panic")
	}
	st.mu.Unlock()
	if _, ok := Recv2(g, ch); ok {
		t.Fatal("received a value from a closed, empty channel")
	}
}

// TestChanValueAfterClose checks that a receive that gets a buffered value
// of a closed channel acquires the send, not the close
// (TestRaceChanWrongClose), and that a receive that observes the close
// acquires it.
func TestChanValueAfterClose(t *testing.T) {
	for _, observe := range []bool{false, true} {
		expect(t, !observe, func(g *G) {
			x, y, ch := new(int), new(int), make(chan int, 1)
			<-spawn(g, func(g *G) {
				*W(g, x, 0) = 1
				send(g, ch, 1)
				// The close follows the send (a close racing with a
				// send is a race of its own).
				<-spawn(g, func(g *G) {
					*W(g, y, 0) = 1
					close(Close(g, ch))
				})
			})
			if v, ok := recvOK(g, ch); !ok || v != 1 {
				t.Fatalf("first receive: %d, %v", v, ok)
			}
			_ = *R(g, x, 0) // ordered by the send
			if observe {
				if _, ok := recvOK(g, ch); ok {
					t.Fatal("second receive got a value")
				}
			}
			_ = *R(g, y, 0) // races unless a receive observed the close
		})
	}
}

func TestChanUnbuffered(t *testing.T) {
	// Send happens before the receive completes.
	both(t, func(g *G, synced bool) {
		x, ch := new(int), make(chan int)
		done := spawn(g, func(g *G) {
			*W(g, x, 0) = 1
			if synced {
				send(g, ch, 1)
			} else {
				ch <- 1
			}
		})
		if synced {
			recv(g, ch)
		} else {
			<-ch
		}
		_ = *R(g, x, 0)
		<-done
	})
	// Unbuffered: the receive happens before the send completes
	// (TestNoRaceChanSync-style reverse edge).
	both(t, func(g *G, synced bool) {
		x, ch := new(int), make(chan int)
		done := spawn(g, func(g *G) {
			*W(g, x, 0) = 1
			if synced {
				recv(g, ch)
			} else {
				<-ch
			}
		})
		if synced {
			send(g, ch, 1)
		} else {
			ch <- 1
		}
		<-done
		_ = *R(g, x, 0)
	})
}

func TestChanBuffered(t *testing.T) {
	both(t, func(g *G, synced bool) {
		x, ch := new(int), make(chan int, 10)
		done := spawn(g, func(g *G) {
			*W(g, x, 0) = 1
			if synced {
				send(g, ch, 1)
			} else {
				ch <- 1
			}
		})
		<-done
		if synced {
			recv(g, ch)
		} else {
			<-ch
		}
		_ = *R(g, x, 0)
	})
	// TestRaceChanAsyncRev: on a buffered channel the receive does not
	// happen before the send completes.
	expect(t, true, func(g *G) {
		x, ch := new(int), make(chan int, 10)
		recvd := make(chan struct{})
		done := spawn(g, func(g *G) {
			*W(g, x, 0) = 1
			recv(g, ch)
			close(recvd)
		})
		send(g, ch, 1)
		<-recvd
		_ = *R(g, x, 0) // races with the write before the receive
		<-done
	})
	// The k-th value received is the k-th sent: receiving the first
	// value does not order after the second send.
	expect(t, true, func(g *G) {
		x, ch := new(int), make(chan int, 10)
		<-spawn(g, func(g *G) {
			send(g, ch, 1)
			*W(g, x, 0) = 1
			send(g, ch, 2)
		})
		recv(g, ch)
		_ = *R(g, x, 0)
	})
}

func TestChanCapacitySemaphore(t *testing.T) {
	// sem := make(chan struct{}, 1) used as a mutex must not report.
	expect(t, false, func(g *G) {
		x, sem := new(int), make(chan struct{}, 1)
		var ws []<-chan struct{}
		for range 4 {
			ws = append(ws, spawn(g, func(g *G) {
				for range 50 {
					send(g, sem, struct{}{})
					*W(g, x, 0)++
					recv(g, sem)
				}
			}))
		}
		for _, w := range ws {
			<-w
		}
	})
	// Without the semaphore, it races. (b starts after a has ended, by
	// a channel of the test's that the detector does not see: go -race,
	// which runs these tests, orders the two increments, the detector
	// does not.)
	expect(t, true, func(g *G) {
		x := new(int)
		<-spawn(g, func(g *G) { *W(g, x, 0)++ })
		<-spawn(g, func(g *G) { *W(g, x, 0)++ })
	})
	// Capacity C: the k-th receive happens before the (k+C)-th send completes.
	both(t, func(g *G, synced bool) {
		x, ch := new(int), make(chan int, 2)
		send(g, ch, 1)
		send(g, ch, 2)
		done := spawn(g, func(g *G) {
			*W(g, x, 0) = 1
			if synced {
				recv(g, ch) // 1st receive
			} else {
				<-ch
			}
		})
		send(g, ch, 3) // 3rd send completes after the 1st receive
		<-done
		_ = *R(g, x, 0)
	})
}

func TestChanClose(t *testing.T) {
	both(t, func(g *G, synced bool) {
		x, ch := new(int), make(chan int)
		done := spawn(g, func(g *G) {
			if synced {
				*W(g, x, 0) = 1
				close(Close(g, ch))
			} else {
				close(Close(g, ch))
				*W(g, x, 0) = 1 // after the close: not ordered
			}
		})
		if _, ok := recvOK(g, ch); ok {
			t.Error("received a value from a closed channel")
		}
		<-done
		_ = *R(g, x, 0)
	})
	// len and cap are not synchronization.
	expect(t, true, func(g *G) {
		x, ch := new(int), make(chan int, 1)
		<-spawn(g, func(g *G) {
			*W(g, x, 0) = 1
			send(g, ch, 1)
		})
		for len(ch) == 0 {
		}
		_ = *R(g, x, 0)
		_ = cap(ch)
		recv(g, ch) // orders, but too late
	})
}

func TestChanRange(t *testing.T) {
	both(t, func(g *G, synced bool) {
		data, ch := make([]int, 5), make(chan int, 2)
		done := spawn(g, func(g *G) {
			for i := range data {
				*W(g, &data[i], 0) = i
				if synced {
					send(g, ch, i)
				} else {
					ch <- i
				}
			}
			if synced {
				close(Close(g, ch))
			} else {
				close(ch)
			}
		})
		// for i := range ch, as emitted: a receive per iteration.
		for {
			i, ok := <-RecvPre(g, ch, cap(ch))
			if synced {
				RecvPostOK(g, ch, cap(ch))
			}
			if !ok {
				break
			}
			_ = *R(g, &data[i], 0)
		}
		<-done
	})
}

func TestChanSelect(t *testing.T) {
	// select receive.
	both(t, func(g *G, synced bool) {
		x, a, b := new(int), make(chan int), make(chan int)
		done := spawn(g, func(g *G) {
			*W(g, x, 0) = 1
			if synced {
				send(g, b, 1)
			} else {
				b <- 1
			}
		})
		SelectPre(g, "rr", a, b)
		select {
		case <-a:
			SelectPost(g, a, cap(a), true)
		case <-b:
			if synced {
				SelectPost(g, b, cap(b), true)
			}
		}
		_ = *R(g, x, 0)
		<-done
	})
	// select send on an unbuffered channel: the receive happens before
	// the send completes.
	both(t, func(g *G, synced bool) {
		x, a, b := new(int), make(chan int), make(chan int)
		done := spawn(g, func(g *G) {
			*W(g, x, 0) = 1
			if synced {
				recv(g, b)
			} else {
				<-b
			}
		})
		SelectPre(g, "rs", a, b)
		select {
		case v := <-a:
			_ = RecvPost(g, a, cap(a), v)
		case b <- 1:
			SelectPost(g, b, cap(b), false)
		}
		<-done
		_ = *R(g, x, 0)
	})
	// A select with default that takes no case, in a loop, must not
	// disturb later matching.
	expect(t, false, func(g *G) {
		x, ch := new(int), make(chan int, 1)
		for range 100 {
			SelectPre(g, "r", ch)
			select {
			case <-ch:
				SelectPost(g, ch, cap(ch), true)
			default:
			}
		}
		done := spawn(g, func(g *G) {
			*W(g, x, 0) = 1
			send(g, ch, 1)
		})
		recv(g, ch)
		_ = *R(g, x, 0)
		<-done
	})
}

func TestChanNil(t *testing.T) {
	var ch chan int
	g := Cur()
	SendPre(g, ch, 0)
	SendPost(g, ch, 0)
	RecvPre(g, ch, 0)
	RecvPostOK(g, ch, 0)
	SelectPre(g, "rr", ch)
	SelectPost(g, nil, 0, true)
}

// Many producers and consumers on one buffered channel: each value carries
// a pointer to data its producer wrote; consumers read it. Whatever the
// interleaving, this must not report (the matched send is always acquired).
func TestChanManyToMany(t *testing.T) {
	expect(t, false, func(g *G) {
		ch := make(chan *int, 3)
		var ws []<-chan struct{}
		for range 4 {
			ws = append(ws, spawn(g, func(g *G) {
				for i := range 100 {
					p := new(int)
					*W(g, p, 0) = i
					send(g, ch, p)
				}
			}))
		}
		for range 4 {
			ws = append(ws, spawn(g, func(g *G) {
				for range 100 {
					p := recv(g, ch)
					*W(g, p, 0)++
				}
			}))
		}
		for _, w := range ws {
			<-w
		}
	})
}

// A value or close from uninstrumented code orders nothing by itself:
// the edges Go's race runtime sees there (a timer's creation, a context's
// cancel) are hooks of their own (TimerAcquire, stdCtxCancel). Before,
// such a receive acquired every instrumented goroutine's past, which hid
// races go -race reports (the lessorloop and ctxgroup kernels); simulated
// here with a raw close and a raw send.
func TestChanUninstrumentedSender(t *testing.T) {
	expect(t, true, func(g *G) {
		x, ch := new(int), make(chan int)
		done := spawn(g, func(g *G) {
			*W(g, x, 0) = 1
			close(ch)
		})
		<-done
		recvOK(g, ch)
		_ = *R(g, x, 0)
	})
	expect(t, true, func(g *G) {
		x, ch := new(int), make(chan int, 1)
		done := spawn(g, func(g *G) {
			*W(g, x, 0) = 1
			ch <- 1
		})
		<-done
		recv(g, ch)
		_ = *R(g, x, 0)
	})
}

// A context's cancel (the wrapped cancel function of CtxWithCancel)
// happens before a receive from its Done channel and before an Err that
// returns its error, its parent's cancel before those of a derived
// context; a goroutine that did not synchronize with the canceller stays
// unordered.
func TestContextHooks(t *testing.T) {
	both(t, func(g *G, synced bool) {
		x := new(int)
		ctx, cancel := CtxWithCancel(g, context.Background())
		<-spawn(g, func(g *G) {
			*W(g, x, 0) = 1
			if synced {
				cancel()
			}
		})
		if !synced {
			cancel()
		}
		Recv2(g, ctx.Done())
		_ = *R(g, x, 0)
	})
	both(t, func(g *G, synced bool) {
		x := new(int)
		parent, cancel := CtxWithCancel(g, context.Background())
		child, cancelChild := CtxWithTimeout(g, parent, time.Hour)
		defer cancelChild()
		<-spawn(g, func(g *G) {
			*W(g, x, 0) = 1
			if synced {
				cancel()
			}
		})
		if !synced {
			cancel()
		}
		for CtxErr(g, child) == nil {
			time.Sleep(time.Millisecond)
		}
		_ = *R(g, x, 0)
	})
}

// A close racing with a send is a race on the channel itself (Go's
// TestRaceChanSendClose); a close after the sends it follows is not.
// Either may come first: a send after the close panics (recovered here),
// and its read of the channel is reported all the same, as Go's race
// runtime reads before it panics.
func TestChanSendClose(t *testing.T) {
	both(t, func(g *G, synced bool) {
		ch := make(chan int, 2)
		mu := new(int)
		<-spawn(g, func(g *G) {
			send(g, ch, 1)
			RaceRelease(unsafe.Pointer(mu))
		})
		<-spawn(g, func(g *G) {
			if synced {
				RaceAcquire(unsafe.Pointer(mu))
			}
			close(Close(g, ch))
		})
	})
	both(t, func(g *G, synced bool) {
		ch := make(chan int, 2)
		mu := new(int)
		<-spawn(g, func(g *G) {
			close(Close(g, ch))
			RaceRelease(unsafe.Pointer(mu))
		})
		<-spawn(g, func(g *G) {
			if synced {
				RaceAcquire(unsafe.Pointer(mu))
			}
			defer func() {
				if recover() == nil {
					t.Error("a send on a closed channel did not panic")
				}
			}()
			send(g, ch, 1)
		})
	})
}

// A select's send case reads the channel as a send does, so a close
// racing with it is reported (Go's TestRaceChanSendSelectClose), here
// with the close first and the select panicking on the closed channel,
// and with the select first; a close ordered after the select is not.
func TestChanSelectSendClose(t *testing.T) {
	selectSend := func(g *G, ch, other chan int) {
		defer func() { recover() }()
		SelectPre(g, "sr", ch, other)
		select {
		case ch <- 1:
			SelectPost(g, ch, cap(ch), false)
		case <-other:
			SelectPost(g, other, cap(other), true)
		}
	}
	both(t, func(g *G, synced bool) {
		ch, other := make(chan int, 1), make(chan int)
		mu := new(int)
		<-spawn(g, func(g *G) {
			close(Close(g, ch))
			RaceRelease(unsafe.Pointer(mu))
		})
		<-spawn(g, func(g *G) {
			if synced {
				RaceAcquire(unsafe.Pointer(mu))
			}
			selectSend(g, ch, other)
		})
	})
	both(t, func(g *G, synced bool) {
		ch, other := make(chan int, 1), make(chan int)
		mu := new(int)
		<-spawn(g, func(g *G) {
			selectSend(g, ch, other)
			RaceRelease(unsafe.Pointer(mu))
		})
		<-spawn(g, func(g *G) {
			if synced {
				RaceAcquire(unsafe.Pointer(mu))
			}
			close(Close(g, ch))
		})
	})
}

// A select announces each case in its own direction and retracts the cases
// that did not fire: in issue 13's program a select sending on stop must
// not count as a receiver of stop, which made the receive of stop look
// like one of a value from uninstrumented code (acquiring every
// goroutine's past), nor leave its other cases' clocks behind.
func TestChanSelectCasesOnly(t *testing.T) {
	// The select's send fires; the receiver completes before the select's
	// SelectPost, and its read of x races with R's write.
	expect(t, true, func(g *G) {
		x, stop, done := new(int), make(chan int), make(chan int)
		written := make(chan struct{})
		s := spawn(g, func(g *G) {
			<-written
			recv(g, stop)
			_ = *R(g, x, 0)
		})
		<-spawn(g, func(g *G) {
			*W(g, x, 0) = 1
			close(written)
		})
		SelectPre(g, "sr", stop, done)
		stop <- 1
		<-s
		SelectPost(g, stop, cap(stop), false)
	})
	// A retracted send case leaves no clock a later receive acquires.
	expect(t, true, func(g *G) {
		x, ch := new(int), make(chan int, 1)
		<-spawn(g, func(g *G) {
			*W(g, x, 0) = 1
			SelectPre(g, "s", ch)
			SelectPost(g, nil, 0, false) // default
		})
		send(g, ch, 1)
		recv(g, ch)
		_ = *R(g, x, 0)
	})
	// The receive case that fired acquires its sender.
	expect(t, false, func(g *G) {
		x, a, b := new(int), make(chan int), make(chan int, 1)
		w := spawn(g, func(g *G) {
			*W(g, x, 0) = 1
			send(g, b, 1)
		})
		SelectPre(g, "rr", a, b)
		<-b
		SelectPost(g, b, cap(b), true)
		_ = *R(g, x, 0)
		<-w
	})
}

// naiveQueue is the reference model of chanQueue: every entry kept in a
// list, an acquire scanning all of them.
type naiveQueue struct {
	base    []uint64
	entries []naiveEntry
}

type naiveEntry struct {
	lo int64
	id uint64
	vc []uint64
}

func (q *naiveQueue) push(lo int64, id uint64, vc []uint64) {
	if len(q.entries) >= maxChanEntries {
		q.base = join(q.base, q.entries[0].vc)
		q.entries = q.entries[1:]
	}
	q.entries = append(q.entries, naiveEntry{lo, id, append([]uint64(nil), vc...)})
}

func (q *naiveQueue) remove(id uint64) {
	for i, e := range q.entries {
		if e.id == id {
			q.entries = append(q.entries[:i:i], q.entries[i+1:]...)
			return
		}
	}
}

func (q *naiveQueue) acquire(vc []uint64, bound int64) []uint64 {
	vc = join(vc, q.base)
	var kept []naiveEntry
	for _, e := range q.entries {
		if e.lo < bound {
			vc = join(vc, e.vc)
			q.base = join(q.base, e.vc)
		} else {
			kept = append(kept, e)
		}
	}
	q.entries = kept
	return vc
}

// TestChanQueueModel drives chanQueue and the naive model with the same
// random operations (pushes with mostly non-decreasing lower bounds and
// some out of order, removals, acquires) and compares every acquired
// clock. The pushes come from a few goroutines, each with a clock that
// only grows, as a goroutine's does (the queue folds an owner's later
// entry by taking its clock), and from an unknown owner with arbitrary
// clocks; with seed%3 == 1 from a single goroutine, the case the owner
// shortcut serves.
func TestChanQueueModel(t *testing.T) {
	for seed := int64(1); seed <= 60; seed++ {
		rng := rand.New(rand.NewSource(seed))
		var q chanQueue
		var m naiveQueue
		lo, id := int64(0), uint64(0)
		owners := 4
		if seed%3 == 1 {
			owners = 1
		}
		clocks := make([][]uint64, owners+1) // per owner serial; 0 unknown
		for step := 0; step < 2000; step++ {
			switch r := rng.Intn(10); {
			case r < 5:
				if seed%5 == 0 && rng.Intn(6) == 0 {
					lo -= int64(rng.Intn(3)) // out of order
				} else {
					lo += int64(rng.Intn(2))
				}
				id++
				owner := 1 + rng.Intn(owners)
				if owners > 1 && rng.Intn(8) == 0 || rng.Intn(200) == 0 {
					owner = 0
				}
				width := 6 // later, clocks wider than the queue's slots
				if step > 1000 {
					width = 20
				}
				vc := clocks[owner]
				if owner == 0 {
					vc = make([]uint64, 1+rng.Intn(width))
				} else if n := 1 + rng.Intn(width); n > len(vc) {
					vc = append(vc, make([]uint64, n-len(vc))...)
				}
				for i := range vc {
					if owner == 0 {
						vc[i] = uint64(rng.Intn(1000))
					} else if rng.Intn(3) == 0 {
						vc[i] += uint64(rng.Intn(50))
					}
				}
				clocks[owner] = vc
				q.push(lo, id, uint64(owner), vc)
				m.push(lo, id, vc)
			case r < 6 && id > 0:
				x := id - uint64(rng.Intn(int(min(id, 8))))
				q.remove(x)
				m.remove(x)
			default:
				bound := lo - int64(rng.Intn(4)) + 1
				start := make([]uint64, rng.Intn(5))
				by := 0 // an acquire by an unknown goroutine
				if rng.Intn(2) == 0 {
					// By an owner, with its clock, which dominates
					// its entries (the queue need not join them).
					by = 1 + rng.Intn(owners)
					start = clocks[by]
				}
				got := q.acquire(append([]uint64(nil), start...), bound, uint64(by))
				want := m.acquire(append([]uint64(nil), start...), bound)
				if !slices.Equal(trimZeros(got), trimZeros(want)) {
					t.Fatalf("seed %d step %d: acquire(%d) by %d = %v, want %v", seed, step, bound, by, got, want)
				}
				if by != 0 {
					clocks[by] = got // the owner's clock grows by what it acquired
				}
			}
			if n := len(q.live()); n != len(m.entries) {
				t.Fatalf("seed %d step %d: %d entries, want %d", seed, step, n, len(m.entries))
			}
		}
	}
}

// TestChanQueueOwnerFold checks the owner shortcut of chanQueue.fold: a
// goroutine's later entry replaces the base, its earlier one (folded
// later, out of order) leaves it, and another goroutine's entry is
// joined.
func TestChanQueueOwnerFold(t *testing.T) {
	var q chanQueue
	q.push(5, 1, 7, []uint64{1, 1})
	q.push(0, 2, 7, []uint64{2, 3}) // out of order: folded first
	if got := q.acquire(nil, 1, 0); !slices.Equal(got, []uint64{2, 3}) {
		t.Fatalf("first acquire = %v, want [2 3]", got)
	}
	if q.owner != 7 || q.ownerID != 2 {
		t.Fatalf("owner %d, id %d after the first fold, want 7 and 2", q.owner, q.ownerID)
	}
	if got := q.acquire(nil, 10, 0); !slices.Equal(got, []uint64{2, 3}) {
		t.Fatalf("acquire of the owner's earlier entry = %v, want [2 3] (the base dominates it)", got)
	}
	q.push(10, 3, 7, []uint64{4, 3})
	if got := q.acquire(nil, 11, 0); !slices.Equal(got, []uint64{4, 3}) {
		t.Fatalf("acquire of the owner's later entry = %v, want [4 3]", got)
	}
	q.push(11, 4, 8, []uint64{1, 9, 1})
	if got := q.acquire(nil, 12, 0); !slices.Equal(got, []uint64{4, 9, 1}) || q.owner != 0 {
		t.Fatalf("acquire of another goroutine's entry = %v (owner %d), want [4 9 1] joined (owner 0)", got, q.owner)
	}
	q.push(12, 5, 7, []uint64{5, 3})
	if got := q.acquire(nil, 13, 0); !slices.Equal(got, []uint64{5, 9, 1}) {
		t.Fatalf("acquire after the base mixed two goroutines = %v, want [5 9 1]", got)
	}
}

// acquire is chanQueue.acquireBy for a goroutine whose serial is by (0:
// unknown) and whose clock is vc; it returns the clock acquired.
func (q *chanQueue) acquire(vc []uint64, bound int64, by uint64) []uint64 {
	g := &G{serial: by}
	g.t.VC = vc
	q.acquireBy(g, bound)
	return g.t.VC
}

func trimZeros(vc []uint64) []uint64 {
	for len(vc) > 0 && vc[len(vc)-1] == 0 {
		vc = vc[:len(vc)-1]
	}
	return vc
}

// TestChanQueueBurstNoAlloc checks that a queue whose entries are pushed
// and folded in bursts of up to maxChanEntries (a buffered channel's
// sends, acquired by receives several at a time) reuses the slots of
// folded entries: once warm, it does not allocate.
func TestChanQueueBurstNoAlloc(t *testing.T) {
	var q chanQueue
	vc := make([]uint64, 8)
	var lo int64
	var base []uint64
	burst := func() {
		for i := 0; i < maxChanEntries; i++ {
			vc[1]++
			q.push(lo, uint64(lo), 0, vc)
			lo++
		}
		// Acquire all but the last entry, so that the queue does not
		// empty and keeps its arena.
		base = q.acquire(base, lo-1, 0)
	}
	burst() // warm: the slots and the base
	if n := testing.AllocsPerRun(100, burst); n != 0 {
		t.Errorf("a burst of %d pushes and one acquire allocated %v times, want 0", maxChanEntries, n)
	}
	if len(q.live()) != 1 {
		t.Errorf("%d live entries after the acquire, want 1", len(q.live()))
	}
}

// TestChanQueueArena checks the slots of the arena: a clock wider than the
// slots widens them all, keeping the clocks held, and a queue that empties
// with an arena larger than maxIdleWords shrinks it to the base.
func TestChanQueueArena(t *testing.T) {
	var q chanQueue
	for i := range 20 {
		q.push(int64(i), uint64(i+1), 0, []uint64{uint64(i), 1})
	}
	const n = 300 // 20 slots of 300 words: past maxIdleWords
	wide := make([]uint64, n)
	wide[n-1] = 5
	q.push(20, 21, 0, wide)
	if q.width < n || cap(q.clocks) <= maxIdleWords {
		t.Fatalf("width %d, %d words after a clock of %d words", q.width, cap(q.clocks), n)
	}
	if got := q.acquire(nil, 5, 0); !slices.Equal(got, []uint64{4, 1}) {
		t.Fatalf("acquire of the first 5 entries after widening = %v, want [4 1]", got)
	}
	want := make([]uint64, n)
	want[0], want[1], want[n-1] = 19, 1, 5
	if got := q.acquire(nil, 100, 0); !slices.Equal(got, want) {
		t.Fatalf("acquire of every entry = %v", got)
	}
	if len(q.live()) != 0 || len(q.clocks) != q.width || cap(q.clocks) > maxIdleWords || q.base != 1 {
		t.Fatalf("after emptying: %d live entries, %d words (cap %d) for width %d, base slot %d; want the base alone", len(q.live()), len(q.clocks), cap(q.clocks), q.width, q.base-1)
	}
	q.push(100, 22, 0, []uint64{1, 7})
	want[1] = 7
	if got := q.acquire(nil, 101, 0); !slices.Equal(got, want) {
		t.Fatalf("acquire after shrinking = %v", got)
	}

	// A slot keeps the words of its earlier clocks past the length of
	// its current one: a base that grows must not take them.
	q = chanQueue{}
	q.push(0, 1, 9, []uint64{8, 8, 8, 8})
	q.remove(1)
	q.push(0, 2, 7, []uint64{1, 1}) // the retracted entry's slot
	q.acquire(nil, 1, 0)
	q.push(1, 3, 8, []uint64{0, 0, 0, 1})
	if got := q.acquire(nil, 2, 0); !slices.Equal(got, []uint64{1, 1, 0, 1}) {
		t.Fatalf("acquire of a longer clock into a reused slot = %v, want [1 1 0 1]", got)
	}

	// A queue of clocks wider than maxIdleWords keeps at most two slots
	// (the base and the next entry's) when it empties, and then that
	// arena: it is not made again at each emptying.
	q = chanQueue{}
	huge := make([]uint64, 2*maxIdleWords)
	var arena *uint64
	for i := range 5 {
		huge[i] = uint64(i + 1)
		q.push(int64(i), uint64(i+1), 0, huge)
		if got := q.acquire(nil, int64(i+1), 0); got[i] != uint64(i+1) {
			t.Fatalf("cycle %d: acquire = %v…", i, got[:5])
		}
		if q.oversized() {
			t.Fatalf("cycle %d: %d words for a width of %d after emptying, want at most two slots", i, cap(q.clocks), q.width)
		}
		if i > 1 && unsafe.SliceData(q.clocks) != arena {
			t.Errorf("cycle %d: the arena was made again", i)
		}
		arena = unsafe.SliceData(q.clocks)
	}
}

// TestChanQueueDirtyArena checks that a queue reads no word of its arena
// it did not write: arenas come uncleared (shadow.AllocWordsUncleared),
// and a queue whose arrays a user left full of ones acquires the same
// clocks as plain joins of what was pushed.
func TestChanQueueDirtyArena(t *testing.T) {
	for n := 8; n <= 64; n *= 2 {
		w := shadow.AllocWordsUncleared(n)
		for i := range w[:cap(w)] {
			w[i] = ^uint64(0)
		}
		shadow.FreeWords(w)
	}
	var q chanQueue
	var want []uint64
	clocks := [][]uint64{{1}, {0, 2}, {3}, {0, 0, 0, 4}, {5, 0, 1}, {0, 0, 0, 0, 0, 0, 0, 0, 0, 6}, {7, 7}}
	for i, vc := range clocks {
		owner := uint64(i % 2) // owner folds and joins both
		q.push(int64(i), uint64(i+1), owner+1, vc)
		if i%2 == 0 {
			continue
		}
		for _, c := range clocks[i-1 : i+1] {
			want = join(want, c)
		}
		if got := q.acquire(nil, int64(i+1), 0); !slices.Equal(trimZeros(got), want) {
			t.Fatalf("acquire after %d pushes = %v, want %v", i+1, got, want)
		}
	}
}

// TestDeadChannelArenas checks that the state of a channel the collector
// freed gives its arenas of clocks back (they are outside the Go heap, so
// the collector does not free them with the state): once the sweep after
// a cycle drops the state, its queues are empty and hold no arena.
func TestDeadChannelArenas(t *testing.T) {
	g := Cur()
	ch := make(chan int, 4)
	for i := range 3 {
		SendPre(g, ch, 4)
		ch <- i
		SendPost(g, ch, 4)
	}
	c := chanOf(chanPtr(ch))
	c.mu.Lock()
	held := c.sends.clocks != nil
	c.mu.Unlock()
	if !held {
		t.Fatal("three sends left no clock in the channel's queue")
	}
	ch = nil
	// The sweep runs after each cycle (shadow.AfterGC); it releases the
	// state once the channel's weak pointer is nil.
	for i := 0; ; i++ {
		runtime.GC()
		c.mu.Lock()
		released := c.sends.clocks == nil && c.recvs.clocks == nil
		c.mu.Unlock()
		if released {
			break
		}
		if i == 100 {
			t.Fatal("the state of a dead channel still holds its arena after 100 cycles")
		}
		time.Sleep(time.Millisecond)
	}
}
