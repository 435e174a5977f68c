// Copyright 2026 The bigfoot Authors. All rights reserved.

// Package shadow is the shadow memory of the bigfoot race detector: for every
// byte of memory that instrumented code accessed, the FastTrack state of the
// last accesses to it (Flanagan & Freund, PLDI 2009; the adaptive epoch
// representation of Rhodes' thesis §2.3.7 and §3.5.2).
//
// The package knows nothing about goroutines or synchronization: a caller
// describes the accessing goroutine by a [Thread] (its epoch and vector
// clock) and learns of races from the [Race] results. It imports only the
// standard library, because it is compiled into programs whose modules do
// not require ours.
package shadow

import "sync/atomic"

// An Epoch is a point in one goroutine's logical time: a thread id (tid) in
// the high TIDBits bits and that thread's clock in the low ClockBits bits.
// FastTrack records the last write to a location, and usually the last read,
// as a single epoch instead of a vector clock, because without a race those
// accesses are totally ordered (Rhodes' thesis §2.3.7).
//
// The zero Epoch is "no access": its clock 0 happens before everything.
type Epoch uint64

const (
	// ClockBits is the width of an epoch's clock.
	ClockBits = 40
	// TIDBits is the width of an epoch's thread id.
	TIDBits = 64 - ClockBits
	// MaxTID is the largest usable thread id.
	MaxTID = 1<<TIDBits - 2

	clockMask = 1<<ClockBits - 1
	// shared marks a read state inflated to a read vector clock. It is not
	// a valid epoch (its tid exceeds MaxTID).
	shared = ^uint64(0)
)

// MakeEpoch returns the epoch of clock c of thread tid.
func MakeEpoch(tid uint32, c uint64) Epoch {
	return Epoch(uint64(tid)<<ClockBits | c&clockMask)
}

// TID returns the thread id of e.
func (e Epoch) TID() uint32 { return uint32(uint64(e) >> ClockBits) }

// Clock returns the clock of e.
func (e Epoch) Clock() uint64 { return uint64(e) & clockMask }

// HB reports whether e happens before (or is) the time described by vector
// clock vc, indexed by thread id. An entry of vc below the floor's, or
// missing, counts as the floor's (SetFloor).
func HB(e Epoch, vc []uint64) bool {
	c := e.Clock()
	if c == 0 {
		return true
	}
	t := e.TID()
	if int(t) < len(vc) && c <= vc[t] {
		return true
	}
	return c <= floorAt(t)
}

// floor is a vector clock below the clock of every goroutine, now and
// later (the detector's frontier, joined over every sweep). Every clock is
// at least the floor, so HB reads an entry of a clock as at least the
// floor's, and the detector may drop entries the floor covers from the end
// of a clock (detector's trim): after a peak of live goroutines, the clocks
// of the few that remain would otherwise keep one entry per thread id of
// the peak, and every join would cost that many.
var floor atomic.Pointer[[]uint64]

// SetFloor raises the floor to f, which must be at least the current floor
// entrywise and below every goroutine's clock, now and later; the caller
// does not change f afterwards.
func SetFloor(f []uint64) { floor.Store(&f) }

// Floor returns the floor (nil if none was set); callers must not change it.
func Floor() []uint64 {
	if f := floor.Load(); f != nil {
		return *f
	}
	return nil
}

// floorAt returns the floor's entry for thread id t (0 if none).
func floorAt(t uint32) uint64 {
	if f := floor.Load(); f != nil && int(t) < len(*f) {
		return (*f)[t]
	}
	return 0
}
