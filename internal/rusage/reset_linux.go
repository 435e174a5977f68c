package rusage

import (
	"os"
	"runtime/debug"
)

// ResetPeak lowers this process's peak resident set to what it holds now,
// after returning its free memory to the system. Call it before starting a
// process whose MaxRSSKiB is wanted: Linux starts a child's peak at its
// parent's (os/exec's child shares the parent's memory until exec, and exec
// records that memory's peak as the child's), so without it every child's
// peak is at least the largest this process ever reached.
func ResetPeak() {
	debug.FreeOSMemory()
	// "5" resets the peak (VmHWM) to the current resident set (proc(5),
	// /proc/pid/clear_refs; Linux 4.0 and later). Where it is refused, the
	// peak stays as it was.
	_ = os.WriteFile("/proc/self/clear_refs", []byte("5"), 0)
}
