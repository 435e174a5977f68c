// Copyright 2026 The bigfoot Authors. All rights reserved.

package shadow

import (
	"sync/atomic"

	"github.com/bigfoot-go/bigfoot/internal/ownheap"
)

// A sweep runs in a goroutine of its own (startSweep), which the
// scheduler gives its share of the CPU: with a thousand runnable
// goroutines, a thousandth. Go's collector does not depend on its share:
// its mark workers take a quarter of the Ps, and goroutines that allocate
// sweep spans in proportion. A shadow sweep that falls that far behind
// keeps the state of every object that died since it began (hamba/avro's
// TestConcurrentParse, 1,500 goroutines parsing at once: a sweep began at
// the second cycle and had not ended at the eleventh, 17 s later). So a
// sweep that stallCycles cycles completed since it began stalls the
// program's goroutines at their next synchronization operation
// (WaitBehindSweep) until it ends, and gets the CPU. A goroutine that
// never synchronizes is not stalled.

// stallCycles is how many cycles complete during a sweep before it
// stalls the program. One is common (a sweep about as long as the
// interval between cycles, on an allocation-heavy pipeline), two is not.
const stallCycles = 2

// stall, while a sweep stalls the program, is the channel its end closes.
var stall atomic.Pointer[chan struct{}]

// stallIfBehind stalls the program if a sweep of s is running that began
// stallCycles or more cycles ago. The sentinel calls it after each cycle.
func (s *Space) stallIfBehind() {
	if !s.sweeping.Load() || exactGen()-s.sweepGen.Load() < stallCycles || stall.Load() != nil {
		return
	}
	m := ownheap.Begin()
	c := make(chan struct{})
	m.End()
	if stall.CompareAndSwap(nil, &c) && !s.sweeping.Load() {
		endStall() // it ended meanwhile
	}
}

// endStall ends a stall, if any: every sweep ends one, of whichever
// space, so that a stall lasts at most one sweep.
func endStall() {
	if c := stall.Swap(nil); c != nil {
		close(*c)
	}
}

// WaitBehindSweep blocks the calling goroutine while a sweep that fell
// behind stalls the program (see stall). The detector calls it at the
// start of each synchronization operation, where the goroutine holds no
// lock of the detector's or the shadow's, which the sweep may take.
func WaitBehindSweep() {
	if c := stall.Load(); c != nil {
		<-*c
	}
}
