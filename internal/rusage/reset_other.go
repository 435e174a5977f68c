//go:build !linux

package rusage

// ResetPeak does nothing here: a child's peak resident set does not start
// at its parent's on this system, or it cannot be reset.
func ResetPeak() {}
