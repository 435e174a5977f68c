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
// clock vc, indexed by thread id.
func HB(e Epoch, vc []uint64) bool {
	c := e.Clock()
	if c == 0 {
		return true
	}
	t := e.TID()
	return int(t) < len(vc) && c <= vc[t]
}
