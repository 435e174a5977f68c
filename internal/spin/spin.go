// Package spin provides the mutual-exclusion lock of the race-detection
// runtime (detector and shadow).
//
// The runtime cannot use sync.Mutex for its own state: a build that
// instruments the standard library (-deps=all) hooks sync.Mutex itself, so
// that the locks of uninstrumented packages order the goroutines that use
// them, and those hooks call into the runtime. A runtime lock that were a
// sync.Mutex would then re-enter the runtime while it holds its own
// locks. A Mutex here is a word changed with atomic operations, which no
// build hooks.
package spin

import (
	"runtime"
	"sync/atomic"
)

// A Mutex is a mutual-exclusion lock for short critical sections. The zero
// value is unlocked. A goroutine that finds it locked spins briefly and
// then yields its processor until the holder releases it, so a holder
// that was descheduled gets to run.
type Mutex struct {
	state atomic.Uint32
}

// spins is how many times Lock retries before it starts yielding.
const spins = 64

// Lock locks m, waiting until it is available.
func (m *Mutex) Lock() {
	if m.state.CompareAndSwap(0, 1) {
		return
	}
	m.lockSlow()
}

func (m *Mutex) lockSlow() {
	for i := 0; ; i++ {
		if m.state.Load() == 0 && m.state.CompareAndSwap(0, 1) {
			return
		}
		if i >= spins {
			runtime.Gosched()
		}
	}
}

// TryLock locks m if it is unlocked and reports whether it did.
func (m *Mutex) TryLock() bool {
	return m.state.CompareAndSwap(0, 1)
}

// Unlock unlocks m. Unlocking an unlocked Mutex is a fatal error in the
// runtime's logic, reported by a panic.
func (m *Mutex) Unlock() {
	if m.state.Swap(0) != 1 {
		panic("spin: unlock of unlocked mutex")
	}
}
