// Copyright 2026 The bigfoot Authors. All rights reserved.

package bench

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// Microbenchmarks of the race-detection runtime against Go's.
//
// The detector's benchmarks (detector/bench_test.go) have twins that run
// the same operations through Go's race runtime (detector/race_bench_test.go,
// built with -race). Micro builds the package's tests three ways: with the
// files bigfoot's driver adds to package runtime (MicroOptions.RuntimeFiles:
// the GC count and the allocation versions), as every program bigfoot
// builds has them; with -race; and plain, whose FreshAlloc, run in the
// same rounds as FreshObject, is the allocation without any detector,
// the floor under FreshObject. A test
// binary built with plain go test lacks the runtime files: its allocations
// skip the versions' cost, and the shadow reads the GC count through
// runtime/metrics, about 100 ns where a bigfoot build loads a word.
//
// Each benchmark runs a fixed number of operations (-test.benchtime=Nx),
// the binaries alternating, Rounds times; the figure is the process's CPU
// time (user and system, the collector's workers included) per operation,
// the median over the rounds.

// A MicroBench is a benchmark of detector/bench_test.go and the number of
// operations it runs per round.
type MicroBench struct {
	Name string
	Ops  int
	// Floor, if set, names a benchmark that the plain binary runs in
	// the same rounds: the part of Name's work that a program without a
	// detector does too (FreshAlloc under FreshObject).
	Floor string
}

// MicroBenchmarks are the benchmarks Micro runs by default, with counts
// that take about a second each on 2 cores.
var MicroBenchmarks = []MicroBench{
	{"ReadSameEpoch", 30_000_000, ""},
	{"WriteSameEpoch", 30_000_000, ""},
	{"ReadSharedSameEpoch", 30_000_000, ""},
	{"ReadShared", 10_000_000, ""},
	{"WriteExclusive", 10_000_000, ""},
	{"Acquire", 10_000_000, ""},
	{"Release", 10_000_000, ""},
	{"ChanPair", 5_000_000, ""},
	{"ChanPipeline", 1_000_000, ""},
	{"MutexPair", 5_000_000, ""},
	{"AtomicDistinct", 4 << 20, ""},
	{"FreshObject", 10_000_000, "FreshAlloc"},
	{"FreshAlloc", 10_000_000, ""},
	{"Range1024", 300_000, ""},
	{"Range1024NewEpoch", 100_000, ""},
	{"Footprint1M", 60, ""},
}

// MicroOptions configure Micro.
type MicroOptions struct {
	// Dir is the bigfoot module's root (default: the nearest go.mod at or
	// above the working directory).
	Dir string
	// RuntimeFiles are the driver's files for package runtime, path to
	// content (driver.RuntimeFiles). Required.
	RuntimeFiles map[string][]byte
	// Benchmarks to run (default MicroBenchmarks).
	Benchmarks []MicroBench
	// Rounds is the number of alternating runs per benchmark (default 5).
	Rounds int
	// Progress, if not nil, receives a line per benchmark.
	Progress io.Writer
}

// A MicroResult is one benchmark's medians, in nanoseconds of CPU time
// per operation.
type MicroResult struct {
	MicroBench
	Bigfoot, Race float64
	// Floor is the plain binary's figure for the benchmark's Floor,
	// measured in the same rounds (0 without one).
	Floor float64
}

// Micro builds the three test binaries and runs the benchmarks.
func Micro(ctx context.Context, opts MicroOptions) ([]MicroResult, error) {
	if len(opts.RuntimeFiles) == 0 {
		return nil, errors.New("micro: no runtime files")
	}
	if opts.Dir == "" {
		dir, err := moduleRoot()
		if err != nil {
			return nil, err
		}
		opts.Dir = dir
	}
	if opts.Rounds <= 0 {
		opts.Rounds = 5
	}
	if opts.Benchmarks == nil {
		opts.Benchmarks = MicroBenchmarks
	}
	tmp, err := os.MkdirTemp("", "bigfoot-micro-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	overlay, err := writeRuntimeOverlay(tmp, opts.RuntimeFiles)
	if err != nil {
		return nil, fmt.Errorf("micro: %w", err)
	}
	bins := map[string][]string{
		"bigfoot": {"-overlay", overlay},
		"race":    {"-race"},
		"plain":   nil,
	}
	for name, flags := range bins {
		args := append(append([]string{"test", "-c", "-o", filepath.Join(tmp, name+".test")}, flags...), "./detector")
		cmd := exec.CommandContext(ctx, "go", args...)
		cmd.Dir = opts.Dir
		if out, err := cmd.CombinedOutput(); err != nil {
			return nil, fmt.Errorf("micro: go %s: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
	var res []MicroResult
	for _, b := range opts.Benchmarks {
		runs := []microRun{{"bigfoot", b, "bigfoot"}, {"race", b, "race"}}
		if b.Floor != "" {
			runs = append(runs, microRun{"plain", MicroBench{Name: b.Floor, Ops: b.Ops}, "floor"})
		}
		times := map[string][]float64{}
		for range opts.Rounds {
			for _, run := range runs {
				cpu, err := runMicro(ctx, filepath.Join(tmp, run.bin+".test"), run.b)
				if err != nil {
					return nil, fmt.Errorf("micro: %s (%s): %w", run.b.Name, run.bin, err)
				}
				times[run.into] = append(times[run.into], cpu)
			}
		}
		r := MicroResult{MicroBench: b, Bigfoot: Median(times["bigfoot"]), Race: Median(times["race"])}
		if b.Floor != "" {
			r.Floor = Median(times["floor"])
		}
		if opts.Progress != nil {
			fmt.Fprintf(opts.Progress, "%s: bigfoot %.1f, go -race %.1f ns/op\n", b.Name, r.Bigfoot, r.Race)
		}
		res = append(res, r)
	}
	return res, nil
}

// A microRun is one binary's run of a benchmark in a round, and the
// figure it counts toward.
type microRun struct {
	bin  string // bigfoot, race or plain
	b    MicroBench
	into string // bigfoot, race or floor
}

// writeRuntimeOverlay writes files under dir and an overlay file that
// puts them in place; it returns the overlay file's path.
func writeRuntimeOverlay(dir string, files map[string][]byte) (string, error) {
	var ov struct{ Replace map[string]string }
	ov.Replace = make(map[string]string)
	for i, path := range slices.Sorted(maps.Keys(files)) {
		f := filepath.Join(dir, fmt.Sprintf("rt%d_%s", i, filepath.Base(path)))
		if err := os.WriteFile(f, files[path], 0o666); err != nil {
			return "", err
		}
		ov.Replace[path] = f
	}
	data, err := json.Marshal(ov)
	if err != nil {
		return "", err
	}
	overlay := filepath.Join(dir, "overlay.json")
	return overlay, os.WriteFile(overlay, data, 0o666)
}

// runMicro runs one benchmark of the test binary bin and returns its CPU
// time per operation in nanoseconds.
func runMicro(ctx context.Context, bin string, b MicroBench) (float64, error) {
	cmd := exec.CommandContext(ctx, bin, "-test.run", "^$", "-test.bench", "^Benchmark"+b.Name+"$",
		fmt.Sprintf("-test.benchtime=%dx", b.Ops))
	cmd.Env = append(os.Environ(), "GOMAXPROCS=2")
	out, err := cmd.CombinedOutput()
	if err != nil {
		return 0, fmt.Errorf("%v\n%s", err, out)
	}
	if !strings.Contains(string(out), "Benchmark"+b.Name) {
		return 0, fmt.Errorf("no result for Benchmark%s:\n%s", b.Name, out)
	}
	cpu := cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	return float64(cpu) / float64(time.Nanosecond) / float64(b.Ops), nil
}

// WriteMicro writes the results as a Markdown table, and for each
// benchmark with a floor its own cost: its time beyond the floor (the
// plain binary's FreshAlloc under FreshObject: the allocation), bigfoot's
// against go -race's.
func WriteMicro(w io.Writer, res []MicroResult) error {
	var b strings.Builder
	b.WriteString("| benchmark | N | go -race | bigfoot | ratio |\n|---|---:|---:|---:|---:|\n")
	for _, r := range res {
		fmt.Fprintf(&b, "| %s | %d | %.1f | %.1f | %.2f |\n", r.Name, r.Ops, r.Race, r.Bigfoot, r.Bigfoot/r.Race)
	}
	b.WriteString("\nCPU time (user + system) per operation in ns, median of the rounds; the binaries alternate.\n")
	for _, r := range res {
		if r.Floor == 0 {
			continue
		}
		bf, race := r.Bigfoot-r.Floor, r.Race-r.Floor
		fmt.Fprintf(&b, "\n%s beyond the plain binary's %s (%.1f ns, in the same rounds): bigfoot %.1f, go -race %.1f, ratio %.2f.\n",
			r.Name, r.MicroBench.Floor, r.Floor, bf, race, bf/race)
	}
	_, err := io.WriteString(w, b.String())
	return err
}
