//go:build unix

// Package rusage reads what the operating system accounted to an exited
// process, for the harnesses that time whole processes (bench, corpus).
package rusage

import (
	"os"
	"runtime"
	"syscall"
)

// MaxRSSKiB returns the largest peak resident set of the exited process
// and of the descendants it waited for, in KiB, or 0 if the system does
// not say.
func MaxRSSKiB(ps *os.ProcessState) int64 {
	ru, ok := ps.SysUsage().(*syscall.Rusage)
	if !ok || ru == nil {
		return 0
	}
	if runtime.GOOS == "darwin" || runtime.GOOS == "ios" {
		return int64(ru.Maxrss) / 1024 // bytes there
	}
	return int64(ru.Maxrss) // KiB on Linux and the BSDs
}
