// Package mode defines bigfoot's instrumentation modes: which of the
// thesis's detectors (Rhodes' thesis, Table 3.1) a build
// emits. One typed value travels from the command line (-mode) through the
// driver to the instrumenter and the bench; code asks it what to do
// (DropsRedundant, Groups, Footprints, ...) instead of comparing names.
//
// A Mode is a flag.Value:
//
//	var m mode.Mode = mode.Default
//	flag.Var(&m, "mode", "bigfoot, fasttrack, redcard or slimstate")
package mode

import (
	"fmt"
	"strings"
)

// A Mode selects what the instrumenter emits. The zero value is FastTrack:
// a check at every shared access, the mode that needs no analysis.
type Mode int

const (
	// FastTrack checks every access to shared memory in place.
	FastTrack Mode = iota
	// RedCard checks accesses in place, minus those an earlier check
	// covers (redundant-check elimination from placement's RedCard
	// plans).
	RedCard
	// SlimState defers every element access in a loop into a footprint
	// that the runtime coalesces into ranges.
	SlimState
	// BigFoot is the default: RedCard's drops, placement's field groups,
	// footprints for element accesses in loops, and no check for the
	// static safe class (docs/placement.md).
	BigFoot
)

// Default is the mode of bigfoot build, test and run without -mode.
const Default = BigFoot

// names holds each mode's command-line name, indexed by Mode.
var names = [...]string{FastTrack: "fasttrack", RedCard: "redcard", SlimState: "slimstate", BigFoot: "bigfoot"}

// All lists every mode, the default first, then by name: the order of
// usage messages and of bigfoot bench's columns.
var All = []Mode{BigFoot, FastTrack, RedCard, SlimState}

// String returns the mode's command-line name.
func (m Mode) String() string {
	if m < 0 || int(m) >= len(names) {
		return fmt.Sprintf("mode(%d)", int(m))
	}
	return names[m]
}

// Parse returns the mode named s (as String prints it).
func Parse(s string) (Mode, error) {
	for m, n := range names {
		if n == s {
			return Mode(m), nil
		}
	}
	return 0, fmt.Errorf("unknown mode %q: want one of %s", s, Names())
}

// Names returns the command-line names of All, comma-separated.
func Names() string {
	ns := make([]string, len(All))
	for i, m := range All {
		ns[i] = m.String()
	}
	return strings.Join(ns, ", ")
}

// Set parses s into m (flag.Value).
func (m *Mode) Set(s string) error {
	v, err := Parse(s)
	if err != nil {
		return err
	}
	*m = v
	return nil
}

// Valid reports whether m is one of the modes.
func (m Mode) Valid() bool { return m >= 0 && int(m) < len(names) }

// DropsRedundant reports whether the mode leaves out the in-place checks
// that an earlier check of placement's RedCard plans covers.
func (m Mode) DropsRedundant() bool { return m == RedCard || m == BigFoot }

// Groups reports whether the mode checks adjacent fields of one object
// accessed in one synchronization-free span once (placement's field
// groups).
func (m Mode) Groups() bool { return m == BigFoot }

// Footprints reports whether the mode defers element accesses in loops
// into footprints that the runtime checks as ranges.
func (m Mode) Footprints() bool { return m == SlimState || m == BigFoot }

// StaticRanges reports whether the mode may replace per-element checks of
// affine loops by the static loop-range checks of placement's BigFoot
// plans (Rhodes' thesis §3.3.3), where the emitter can.
func (m Mode) StaticRanges() bool { return m == BigFoot }

// SafeClass reports whether the mode leaves unchecked the variables of
// placement's static safe class (read-only once another goroutine can see
// them).
func (m Mode) SafeClass() bool { return m == BigFoot }

// Plans reports whether the mode needs placement's analysis of each
// package at build time.
func (m Mode) Plans() bool {
	return m.DropsRedundant() || m.Groups() || m.StaticRanges() || m.SafeClass()
}
