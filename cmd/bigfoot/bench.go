package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"github.com/bigfoot-go/bigfoot/bench"
	"github.com/bigfoot-go/bigfoot/corpus"
	"github.com/bigfoot-go/bigfoot/driver"
)

const benchUsage = `usage: bigfoot bench [-runs N] [-short] [-quick] [-peer] [-modes list] [-o dir] [-size N] [workloads]
       bigfoot bench -micro [-runs N] [benchmarks]
       bigfoot bench -suites [-runs N] [-o dir] [modules]

Bench builds each workload of bench/workloads plain, with go build -race
and in each bigfoot mode, runs the binaries interleaved N times each with
GOMAXPROCS=2, verifies that every run prints the plain binary's checksum,
and writes the comparison in the shape of Tables 3.1 and 3.2 of the BigFoot
paper: median time overhead per tool, check ratio (from a separate counting
build), peak memory. It must run inside the bigfoot module (the workloads
live there).

	-runs N      timed runs per workload and tool (default 3)
	-short       run each workload once per tool at its -short size and
	             only verify checksums (what CI runs)
	-peer        also measure github.com/kolkov/racedetector v0.4.10
	-modes list  comma-separated tools (default plain,race,fasttrack,redcard,slimstate,bigfoot);
	             a mode with +main, +modules or +all (bigfoot+main) is built
	             with that -deps scope: its column stands beside the mode's
	             own (bigfoot build's default, -deps=all: the dependencies
	             and the standard library instrumented too); a mode with
	             @options (bigfoot@history=0) is run with those runtime
	             options, comma-separated, in BIGFOOT_OPTIONS
	-o dir       write results.md, overhead.svg, runs.csv and report.json
	             there (default bench-results)
	-quick       run each workload at its quick size, about an eighth of
	             its default work, so that a full comparison fits in well
	             under an hour on 2 cores
	-size N      pass -size=N to every workload (0: its default size)
	-micro       run the detector's microbenchmarks instead
	             (detector/bench_test.go) against their go -race twins,
	             N alternating rounds (default 5), and print CPU time per
	             operation; the bigfoot binary is built with the files the
	             driver adds to package runtime, as every bigfoot build is
	-suites      measure real modules' whole test suites instead: plain go
	             test, go test -race and bigfoot test, N interleaved runs
	             each (default 3) after an untimed build of each suite
	             under each tool, wall and CPU time and peak memory, on
	             the corpus's bench suites (corpus.BenchSuites) or the
	             corpus modules whose path contains one of the arguments;
	             the runs' output and report.json go to dir/suites

Workloads: ` + "%s" + `.
Exit status: 0 when every run matched, 1 otherwise.
`

// benchMain runs the bench command.
func benchMain(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("bench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	usage := fmt.Sprintf(benchUsage, strings.Join(workloadNames(), ", "))
	fs.Usage = func() { fmt.Fprint(stderr, usage) }
	runs := fs.Int("runs", 3, "")
	short := fs.Bool("short", false, "")
	peer := fs.Bool("peer", false, "")
	modes := fs.String("modes", "", "")
	out := fs.String("o", "bench-results", "")
	size := fs.Int("size", 0, "")
	quick := fs.Bool("quick", false, "")
	micro := fs.Bool("micro", false, "")
	suites := fs.Bool("suites", false, "")
	if err := fs.Parse(args); err != nil {
		if err == flag.ErrHelp {
			return 0
		}
		return 2
	}
	if *micro {
		rounds := 5
		fs.Visit(func(f *flag.Flag) {
			if f.Name == "runs" {
				rounds = *runs
			}
		})
		return microMain(ctx, rounds, fs.Args(), stdout, stderr)
	}
	self, err := os.Executable()
	if err != nil {
		fmt.Fprintf(stderr, "bigfoot bench: finding the bigfoot binary: %v\n", err)
		return 1
	}
	if *suites {
		return suitesMain(ctx, self, *runs, filepath.Join(*out, "suites"), fs.Args(), stdout, stderr)
	}
	opts := bench.Options{
		Workloads:  fs.Args(),
		Runs:       *runs,
		Short:      *short,
		Quick:      *quick,
		Peer:       *peer,
		BigfootBin: self,
		OutDir:     *out,
		Progress:   stderr,
	}
	if *modes != "" {
		opts.Modes = strings.Split(*modes, ",")
	}
	if *size != 0 {
		opts.Args = []string{fmt.Sprintf("-size=%d", *size)}
	}
	rep, err := bench.Run(ctx, opts)
	if err != nil {
		fmt.Fprintf(stderr, "bigfoot bench: %v\n", err)
		return 1
	}
	if err := rep.Markdown(stdout); err != nil {
		fmt.Fprintf(stderr, "bigfoot bench: %v\n", err)
		return 1
	}
	if err := rep.Err(); err != nil {
		fmt.Fprintf(stderr, "bigfoot bench: %v\n", err)
		return 1
	}
	return 0
}

func workloadNames() []string {
	var names []string
	for _, w := range bench.Workloads {
		names = append(names, w.Name)
	}
	return names
}

// microMain runs bigfoot bench -micro: the named benchmarks (default
// bench.MicroBenchmarks), rounds alternating runs each.
func microMain(ctx context.Context, rounds int, names []string, stdout, stderr io.Writer) int {
	var benchmarks []bench.MicroBench
	for _, name := range names {
		i := slices.IndexFunc(bench.MicroBenchmarks, func(b bench.MicroBench) bool { return b.Name == name })
		if i < 0 {
			fmt.Fprintf(stderr, "bigfoot bench: no microbenchmark %q\n", name)
			return 2
		}
		benchmarks = append(benchmarks, bench.MicroBenchmarks[i])
	}
	out, err := exec.CommandContext(ctx, "go", "env", "GOROOT", "GOVERSION").Output()
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if err != nil || len(lines) != 2 {
		fmt.Fprintf(stderr, "bigfoot bench: go env GOROOT GOVERSION: %v %q\n", err, out)
		return 1
	}
	files, err := driver.RuntimeFiles(lines[0], lines[1])
	if err != nil {
		fmt.Fprintf(stderr, "bigfoot bench: the runtime files of bigfoot builds: %v\n", err)
		return 1
	}
	opts := bench.MicroOptions{RuntimeFiles: files, Benchmarks: benchmarks, Rounds: rounds, Progress: stderr}
	res, err := bench.Micro(ctx, opts)
	if err != nil {
		fmt.Fprintf(stderr, "bigfoot bench: %v\n", err)
		return 1
	}
	if err := bench.WriteMicro(stdout, res); err != nil {
		fmt.Fprintf(stderr, "bigfoot bench: %v\n", err)
		return 1
	}
	return 0
}

// suitesMain runs bigfoot bench -suites: the whole test suites of the
// corpus modules named by args (default corpus.BenchSuites) under plain go
// test, go test -race and bigfoot test, through the corpus runner.
func suitesMain(ctx context.Context, self string, runs int, out string, args []string, stdout, stderr io.Writer) int {
	all := corpus.Modules()
	var ms []corpus.Module
	if len(args) == 0 {
		for _, path := range corpus.BenchSuites {
			i := slices.IndexFunc(all, func(m corpus.Module) bool { return m.Path == path })
			ms = append(ms, all[i]) // corpus.TestModules: every suite is in the corpus
		}
	} else if ms = corpus.Select(all, strings.Join(args, ",")); len(ms) == 0 {
		fmt.Fprintf(stderr, "bigfoot bench: no corpus module matches %q\n", args)
		return 2
	}
	opts := corpus.Options{
		Modules:  ms,
		Tools:    []string{corpus.ToolPlain, corpus.ToolRace, corpus.ToolBigfoot},
		Runs:     runs,
		Warmup:   true,
		Bigfoot:  self,
		OutDir:   out,
		Progress: stderr,
		Command:  "bigfoot bench -suites",
	}
	rep, err := corpus.Run(ctx, opts)
	if err != nil {
		fmt.Fprintf(stderr, "bigfoot bench: %v\n", err)
		return 1
	}
	if err := rep.BenchMarkdown(stdout); err != nil {
		fmt.Fprintf(stderr, "bigfoot bench: %v\n", err)
		return 1
	}
	if err := rep.Err(); err != nil {
		fmt.Fprintf(stderr, "bigfoot bench: %v\n", err)
		return 1
	}
	return 0
}
