//go:build unix

package bench

import (
	"os"
	"runtime"
	"syscall"
)

// maxRSSKiB returns the peak resident set size of the exited process in
// KiB, or 0 if the system does not say.
func maxRSSKiB(ps *os.ProcessState) int64 {
	ru, ok := ps.SysUsage().(*syscall.Rusage)
	if !ok || ru == nil {
		return 0
	}
	if runtime.GOOS == "darwin" || runtime.GOOS == "ios" {
		return int64(ru.Maxrss) / 1024 // bytes there
	}
	return int64(ru.Maxrss) // KiB on Linux and the BSDs
}
