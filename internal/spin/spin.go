// Package spin provides the mutual-exclusion lock of the race-detection
// runtime (detector and shadow).
//
// The runtime cannot use sync.Mutex for its own state: a build that
// instruments the standard library (-deps=all) hooks sync.Mutex itself, so
// that the locks of uninstrumented packages order the goroutines that use
// them, and those hooks call into the runtime. A runtime lock that were a
// sync.Mutex would then re-enter the runtime while it holds its own
// locks. A Mutex here is a word changed with atomic operations, which no
// build hooks, and a channel that wakes its waiters (channel operations
// are not hooked in the runtime's own code either).
package spin

import (
	"sync/atomic"

	"github.com/bigfoot-go/bigfoot/internal/ownheap"
)

// A Mutex is a mutual-exclusion lock for short critical sections. The zero
// value is unlocked. A goroutine that finds it locked spins briefly and
// then parks until an Unlock wakes it, so that a holder that was
// descheduled gets a processor instead of competing with spinners.
//
// The state word follows Drepper's "Futexes Are Tricky" (mutex 3): 0
// unlocked, 1 locked, 2 locked and possibly waited for. The futex is a
// channel of one wake token: an Unlock that finds 2 leaves a token, a
// waiter takes one before it tries again. A token left when nobody waits
// only makes the next waiter try once more.
type Mutex struct {
	state atomic.Int32
	sema  atomic.Pointer[chan struct{}] // made at the first wait
}

// spins is how many times Lock retries before it parks. Critical sections
// are a few hundred instructions; a holder that is not running will not
// release the lock within the spin.
const spins = 64

// Lock locks m, waiting until it is available.
func (m *Mutex) Lock() {
	if m.state.CompareAndSwap(0, 1) {
		return
	}
	m.lockSlow()
}

func (m *Mutex) lockSlow() {
	for i := 0; i < spins; i++ {
		if m.state.Load() == 0 && m.state.CompareAndSwap(0, 1) {
			return
		}
	}
	// Parking may allocate (the runtime's sudog cache): the detector's,
	// as the channel is.
	mark := ownheap.Begin()
	for m.state.Swap(2) != 0 {
		<-m.wake()
	}
	mark.End()
}

// runtimeMakeWake makes a wake channel that belongs to no synctest bubble;
// set in the runtime's init through a linkname (bigfoot's driver adds the
// file to package runtime), nil without it.
//
// A channel made by a goroutine in a synctest bubble belongs to the
// bubble: a goroutine outside it that receives from it (the shadow's
// background sweep, a goroutine of another test) is a fatal error, and a
// goroutine of the bubble blocked on it counts as durably blocked, so that
// synctest reports a deadlock while the lock's holder, outside the bubble,
// is about to wake it. The lock's first contention can happen in a bubble.
var runtimeMakeWake func() chan struct{}

// wake returns the channel of m's wake tokens.
func (m *Mutex) wake() chan struct{} {
	if c := m.sema.Load(); c != nil {
		return *c
	}
	// The channel and its cell are the detector's (internal/ownheap): a
	// lock's first contention may happen inside a test's
	// testing.AllocsPerRun.
	mark := ownheap.Begin()
	c := new(chan struct{})
	if mk := runtimeMakeWake; mk != nil {
		*c = mk()
	} else {
		*c = make(chan struct{}, 1)
	}
	mark.End()
	if m.sema.CompareAndSwap(nil, c) {
		return *c
	}
	return *m.sema.Load()
}

// TryLock locks m if it is unlocked and reports whether it did.
func (m *Mutex) TryLock() bool {
	return m.state.CompareAndSwap(0, 1)
}

// Unlock unlocks m. Unlocking an unlocked Mutex is a fatal error in the
// runtime's logic, reported by a panic.
func (m *Mutex) Unlock() {
	// The uncontended case inlines at the caller (every sync operation
	// of the detector unlocks at least one Mutex).
	if m.state.CompareAndSwap(1, 0) {
		return
	}
	m.unlockSlow()
}

// unlockSlow unlocks m, which has waiters (or is not locked). Only the
// holder changes a locked state back to 0, so m.state is 2 here unless
// m is not locked at all.
func (m *Mutex) unlockSlow() {
	switch m.state.Swap(0) {
	case 1:
	case 2:
		select {
		case m.wake() <- struct{}{}:
		default: // a token is already there
		}
	default:
		panic("spin: unlock of unlocked mutex")
	}
}
