//go:build !unix

// Package rusage reads what the operating system accounted to an exited
// process, for the harnesses that time whole processes (bench, corpus).
package rusage

import "os"

// MaxRSSKiB returns 0: peak memory is measured on Unix systems only.
func MaxRSSKiB(*os.ProcessState) int64 { return 0 }
