// Copyright 2026 The bigfoot Authors. All rights reserved.

package shadow

import (
	"runtime"
	"testing"
)

// TestStallBehindSweep: a sweep that began stallCycles cycles ago stalls
// goroutines in WaitBehindSweep until a sweep ends; one begun in this
// cycle does not.
func TestStallBehindSweep(t *testing.T) {
	for exactGen() < stallCycles {
		runtime.GC()
	}
	Quiesce()
	s := NewSpace()
	s.sweeping.Store(true)
	s.sweepGen.Store(exactGen())
	s.stallIfBehind()
	if stall.Load() != nil {
		endStall()
		t.Fatal("a sweep begun in this cycle stalls the program")
	}
	s.sweepGen.Store(exactGen() - stallCycles)
	s.stallIfBehind()
	if stall.Load() == nil {
		t.Fatal("a sweep begun two cycles ago does not stall the program")
	}
	waited := make(chan struct{})
	go func() {
		WaitBehindSweep()
		close(waited)
	}()
	runtime.Gosched()
	select {
	case <-waited:
		t.Fatal("WaitBehindSweep returned during the stall")
	default:
	}
	s.Sweep()
	s.sweeping.Store(false)
	<-waited
	if stall.Load() != nil {
		t.Error("the sweep's end left the stall")
	}
	WaitBehindSweep() // returns at once
}
