// Package peak lets a workload report its own peak memory, heap
// allocations and garbage collections.
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
	"runtime"
	"runtime/metrics"
	"runtime/pprof"
	"strconv"
)

// Prefix begins the line of peak memory Report prints; bench.Run looks
// for it on the workload's standard error.
const Prefix = "peak_rss_kib: "

// MetricsPrefix begins the line of runtime metrics Report prints.
const MetricsPrefix = "runtime_metrics: "

// Report prints "peak_rss_kib: N" on standard error, N the process's
// VmHWM in KiB, and "runtime_metrics: heap_allocs=A gc_cycles=G", the
// heap objects allocated and the collections completed since the process
// began (runtime/metrics). A race detector that allocates its own state
// on the Go heap, or instrumentation that moves a variable to the heap,
// shows in A and G against the plain build's. A is the sum of the
// histogram of allocations by size, which counts what
// /gc/heap/allocs:objects counts; a bigfoot build leaves its detector's
// own allocations out of that total, as out of runtime.MemStats, and not
// out of the histogram. Where /proc/self/status does
// not exist (not Linux) the first line is left out, and the harness falls
// back to rusage. With AllocProfileEnv set it then writes the allocation
// profile.
func Report() {
	if kib, err := vmHWM(); err == nil {
		fmt.Fprintf(os.Stderr, "%s%d\n", Prefix, kib)
	}
	samples := []metrics.Sample{{Name: "/gc/heap/allocs-by-size:bytes"}, {Name: "/gc/cycles/total:gc-cycles"}}
	metrics.Read(samples)
	fmt.Fprintf(os.Stderr, "%sheap_allocs=%d gc_cycles=%d\n", MetricsPrefix, histCount(samples[0]), value(samples[1]))
	if path := os.Getenv(AllocProfileEnv); path != "" {
		if err := writeAllocProfile(path); err != nil {
			fmt.Fprintf(os.Stderr, "peak: %v\n", err)
		}
	}
}

// AllocProfileEnv names the variable that makes a workload record every
// heap allocation (runtime.MemProfileRate = 1, from its initialization)
// and Report write the allocation profile to the file it names, for
// `go tool pprof -sample_index=alloc_objects`: which allocations are the
// program's and which a detector's (docs/results.md, "Heap allocations
// and collections").
const AllocProfileEnv = "BENCH_ALLOCPROFILE"

func init() {
	if os.Getenv(AllocProfileEnv) != "" {
		runtime.MemProfileRate = 1
	}
}

// writeAllocProfile writes the allocs profile to path, after a
// collection: the profile holds the allocations up to the last one.
func writeAllocProfile(path string) error {
	runtime.GC()
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := pprof.Lookup("allocs").WriteTo(f, 0); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// value returns s's value if it is a uint64, else 0.
func value(s metrics.Sample) uint64 {
	if s.Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return s.Value.Uint64()
}

// histCount returns the total count of the histogram s holds, 0 if it
// holds none.
func histCount(s metrics.Sample) uint64 {
	if s.Value.Kind() != metrics.KindFloat64Histogram {
		return 0
	}
	var n uint64
	for _, c := range s.Value.Float64Histogram().Counts {
		n += c
	}
	return n
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
