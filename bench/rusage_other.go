//go:build !unix

package bench

import "os"

// maxRSSKiB returns 0: peak memory is measured on Unix systems only.
func maxRSSKiB(ps *os.ProcessState) int64 { return 0 }
