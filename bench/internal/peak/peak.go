// Package peak lets a workload report its own peak memory.
//
// The harness (bench.Run) used to read peak RSS from the rusage of the
// exited process, which Linux keeps across exec: the figure could not go
// below the RSS the harness itself had when it forked, and it hid the
// small workloads' memory. A workload that calls Report before it exits
// prints the kernel's high-water mark of its own resident set, VmHWM from
// /proc/self/status, which counts exactly this process: its heap, and
// under a race detector the detector's shadow memory as well.
package peak

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"strconv"
)

// Prefix begins the line Report prints; bench.Run looks for it on the
// workload's standard error.
const Prefix = "peak_rss_kib: "

// Report prints "peak_rss_kib: N" on standard error, N the process's
// VmHWM in KiB. Where /proc/self/status does not exist (not Linux) it
// prints nothing, and the harness falls back to rusage.
func Report() {
	kib, err := vmHWM()
	if err != nil {
		return
	}
	fmt.Fprintf(os.Stderr, "%s%d\n", Prefix, kib)
}

// vmHWM returns the VmHWM field of /proc/self/status in KiB.
func vmHWM() (int64, error) {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0, err
	}
	defer f.Close()
	return parseStatus(f)
}

// parseStatus returns the value of the "VmHWM:" line of a
// /proc/<pid>/status file, "VmHWM:   12345 kB".
func parseStatus(r io.Reader) (int64, error) {
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		rest, ok := bytes.CutPrefix(sc.Bytes(), []byte("VmHWM:"))
		if !ok {
			continue
		}
		fields := bytes.Fields(rest)
		if len(fields) != 2 || string(fields[1]) != "kB" {
			return 0, fmt.Errorf("peak: malformed VmHWM line %q", sc.Text())
		}
		return strconv.ParseInt(string(fields[0]), 10, 64)
	}
	if err := sc.Err(); err != nil {
		return 0, err
	}
	return 0, fmt.Errorf("peak: no VmHWM line")
}
