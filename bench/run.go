package bench

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/bigfoot-go/bigfoot/bench/internal/peak"
	"github.com/bigfoot-go/bigfoot/internal/rusage"
)

// Options configure Run. The zero value measures every workload with the
// default tools, three times each, and writes nothing.
type Options struct {
	// Workloads names the workloads to run (default: all, see Workloads).
	Workloads []string
	// Runs is the number of timed runs per workload and tool (default 3;
	// with Short, 1).
	Runs int
	// Short runs each workload once per tool at its -short size and only
	// verifies checksums, for CI. No counting builds are made.
	Short bool
	// Modes are the tools to measure (default DefaultModes): plain, race,
	// and bigfoot's modes fasttrack, redcard, slimstate, bigfoot. Plain is
	// always measured, first, as the base.
	Modes []string
	// BigfootBin is the path of a built bigfoot command; it is required
	// when Modes contains one of bigfoot's modes.
	BigfootBin string
	// Peer also measures github.com/kolkov/racedetector (PeerVersion),
	// built from a temporary module; if that cannot be built, the column is
	// left out and a note says why.
	Peer bool
	// OutDir, if set, receives results.md, overhead.svg, runs.csv and
	// report.json (see WriteFiles).
	OutDir string
	// Progress, if set, receives a line per build and per run.
	Progress io.Writer

	// Dir is the root of the bigfoot module, where bench/workloads lives
	// (default: found from the working directory upward).
	Dir string
	// GOMAXPROCS for the runs (default 2).
	GOMAXPROCS int
	// Timeout bounds each build and each run (default 10 minutes; with
	// Short, 2 minutes). A run that times out is an error in the report.
	Timeout time.Duration
	// Args are extra arguments for every workload run, e.g. "-size=2".
	Args []string
	// Quick runs each workload at its Quick size (unless Short).
	Quick bool
}

// PeerModule and PeerVersion name the peer detector Options.Peer measures.
const (
	PeerModule  = "github.com/kolkov/racedetector"
	PeerVersion = "v0.4.10"
)

// waitDelay bounds the wait for a killed command's output pipes, which
// processes it started may hold open.
const waitDelay = 10 * time.Second

// runner carries the state of one Run.
type runner struct {
	opts  Options
	tools []string
	goCmd string
	peer  string // the built peer command
	tmp   string
	start time.Time
}

// Run builds and runs the workloads under each tool and returns the
// measurements. Failed builds, failed runs and checksum mismatches are
// recorded in the report (see Report.Err); Run returns an error only if it
// cannot measure at all (bad options, no go command, ctx done, or the
// output cannot be written), with the report so far when there is one.
func Run(ctx context.Context, opts Options) (*Report, error) {
	r := &runner{opts: opts, start: time.Now()}
	if err := r.setup(); err != nil {
		return nil, fmt.Errorf("bench: %w", err)
	}
	ws, err := lookup(opts.Workloads)
	if err != nil {
		return nil, fmt.Errorf("bench: %w", err)
	}
	tmp, err := os.MkdirTemp("", "bigfoot-bench-")
	if err != nil {
		return nil, fmt.Errorf("bench: %w", err)
	}
	defer os.RemoveAll(tmp)
	r.tmp = tmp

	rep := &Report{
		Started:    r.start.UTC(),
		GoVersion:  runtime.Version(),
		GOOS:       runtime.GOOS,
		GOARCH:     runtime.GOARCH,
		NumCPU:     runtime.NumCPU(),
		GOMAXPROCS: r.opts.GOMAXPROCS,
		Runs:       r.opts.Runs,
		Short:      r.opts.Short,
		Quick:      r.opts.Quick && !r.opts.Short,
	}
	if v, err := r.goVersion(ctx); err == nil {
		rep.GoVersion = v
	}
	if r.opts.Peer {
		if err := r.buildPeer(ctx); err != nil {
			rep.Notes = append(rep.Notes, fmt.Sprintf("%s %s left out: %v", PeerModule, PeerVersion, err))
		} else {
			r.tools = append(r.tools, Peer)
		}
	}
	rep.Tools = r.tools

	for _, w := range ws {
		rep.Workloads = append(rep.Workloads, r.workload(ctx, w))
		if err := ctx.Err(); err != nil {
			rep.Seconds = time.Since(r.start).Seconds()
			return rep, fmt.Errorf("bench: %w", err)
		}
	}
	rep.Seconds = time.Since(r.start).Seconds()
	if r.opts.OutDir != "" {
		if err := WriteFiles(rep, r.opts.OutDir); err != nil {
			return rep, fmt.Errorf("bench: %w", err)
		}
	}
	return rep, nil
}

// setup checks the options and fills in the defaults.
func (r *runner) setup() error {
	o := &r.opts
	if o.Runs <= 0 {
		o.Runs = 3
		if o.Short {
			o.Runs = 1
		}
	}
	if o.GOMAXPROCS <= 0 {
		o.GOMAXPROCS = 2
	}
	if o.Timeout <= 0 {
		o.Timeout = 10 * time.Minute
		if o.Short {
			o.Timeout = 2 * time.Minute
		}
	}
	modes := o.Modes
	if len(modes) == 0 {
		modes = DefaultModes
	}
	r.tools = []string{Plain}
	needBigfoot := false
	for _, m := range modes {
		switch {
		case m == Plain || slices.Contains(r.tools, m):
			continue
		case m == Race:
		case isBigfootMode(m):
			needBigfoot = true
		default:
			return fmt.Errorf("unknown mode %q (want plain, race, fasttrack, redcard, slimstate or bigfoot, the last four optionally with +main, +modules or +all for -deps and @options for BIGFOOT_OPTIONS)", m)
		}
		r.tools = append(r.tools, m)
	}
	if needBigfoot {
		if o.BigfootBin == "" {
			return errors.New("Options.BigfootBin is required for bigfoot's modes")
		}
		abs, err := filepath.Abs(o.BigfootBin)
		if err != nil {
			return err
		}
		o.BigfootBin = abs
	}
	goCmd, err := exec.LookPath("go")
	if err != nil {
		return fmt.Errorf("the go command: %w", err)
	}
	r.goCmd = goCmd
	if o.Dir == "" {
		dir, err := moduleRoot()
		if err != nil {
			return err
		}
		o.Dir = dir
	}
	if _, err := os.Stat(filepath.Join(o.Dir, "bench", "workloads")); err != nil {
		return fmt.Errorf("no workloads in %s: %w", o.Dir, err)
	}
	return nil
}

// moduleRoot returns the nearest directory at or above the working
// directory that holds a go.mod.
func moduleRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no go.mod at or above the working directory; set Options.Dir")
		}
		dir = parent
	}
}

func (r *runner) goVersion(ctx context.Context) (string, error) {
	out, err := exec.CommandContext(ctx, r.goCmd, "env", "GOVERSION").Output()
	return strings.TrimSpace(string(out)), err
}

// progress prints a line prefixed by the time since Run began.
func (r *runner) progress(format string, args ...any) {
	if r.opts.Progress == nil {
		return
	}
	fmt.Fprintf(r.opts.Progress, "[%7.1fs] %s\n", time.Since(r.start).Seconds(), fmt.Sprintf(format, args...))
}

// workload builds w under every tool, runs the binaries round-robin and,
// unless Short, measures the check ratios.
func (r *runner) workload(ctx context.Context, w Workload) *WorkloadResult {
	wr := &WorkloadResult{Name: w.Name, Pattern: w.Pattern, Tools: make(map[string]*ToolResult)}
	fail := func(format string, args ...any) { wr.Errors = append(wr.Errors, fmt.Sprintf(format, args...)) }

	bins := make(map[string]string)
	for _, tool := range r.tools {
		tr := &ToolResult{Tool: tool}
		wr.Tools[tool] = tr
		bin := filepath.Join(r.tmp, w.Name+"."+tool)
		secs, out, err := r.build(ctx, tool, w, bin, false)
		tr.BuildSeconds = secs
		if err != nil {
			tr.Err = err.Error()
			fail("%s: build: %v", tool, err)
			r.progress("%-10s %-12s build failed", w.Name, tool)
			continue
		}
		tr.AnalysisSeconds, tr.Functions = parseAnalysis(out)
		bins[tool] = bin
		r.progress("%-10s %-12s built in %.1fs", w.Name, tool, secs)
	}
	if bins[Plain] == "" {
		return wr // nothing to compare with
	}

	for rep := 1; rep <= r.opts.Runs; rep++ {
		for _, tool := range r.tools {
			if bins[tool] == "" {
				continue
			}
			if ctx.Err() != nil {
				return wr
			}
			var env []string
			if o := toolOptions(tool); o != "" && isBigfootMode(tool) {
				env = []string{"BIGFOOT_OPTIONS=" + o}
			}
			run := r.execute(ctx, w, bins[tool], env)
			run.Rep = rep
			wr.Tools[tool].Runs = append(wr.Tools[tool].Runs, run)
			status := ""
			if run.Err != "" {
				status = " (" + firstLine(run.Err) + ")"
			}
			r.progress("%-10s %-12s run %d of %d: %.3fs%s", w.Name, tool, rep, r.opts.Runs, run.Seconds, status)
		}
	}
	r.verify(wr)

	if !r.opts.Short {
		for _, tool := range r.tools {
			if isBigfootMode(tool) && bins[tool] != "" && ctx.Err() == nil {
				if err := r.count(ctx, w, tool, wr); err != nil {
					fail("%s: counting build: %v", tool, err)
				}
			}
		}
	}
	return wr
}

// verify sets wr.Checksum from the plain runs and marks every run whose
// checksum differs.
func (r *runner) verify(wr *WorkloadResult) {
	for _, run := range wr.Tools[Plain].Runs {
		if run.Err == "" && run.Checksum != "" {
			wr.Checksum = run.Checksum
			break
		}
	}
	for _, tool := range r.tools {
		tr := wr.Tools[tool]
		for i := range tr.Runs {
			run := &tr.Runs[i]
			switch {
			case run.Err != "":
				wr.Errors = append(wr.Errors, fmt.Sprintf("%s: run %d: %s", tool, run.Rep, run.Err))
			case wr.Checksum == "":
				// Plain never printed one: already an error of plain's runs.
			case run.Checksum != wr.Checksum:
				run.Err = fmt.Sprintf("checksum %s, plain printed %s", run.Checksum, wr.Checksum)
				wr.Errors = append(wr.Errors, fmt.Sprintf("%s: run %d: %s", tool, run.Rep, run.Err))
			}
		}
	}
}

// count makes the counting build of w under bigfoot's mode tool (tagged
// bigfoot_count), runs it once with BIGFOOT_OPTIONS=stats=1 and records
// the checks and accesses of its "bigfoot stats:" line.
func (r *runner) count(ctx context.Context, w Workload, tool string, wr *WorkloadResult) error {
	bin := filepath.Join(r.tmp, w.Name+"."+tool+".count")
	if _, _, err := r.build(ctx, tool, w, bin, true); err != nil {
		return err
	}
	run, stderr := r.run(ctx, w, bin, []string{"BIGFOOT_OPTIONS=stats=1"})
	r.progress("%-10s %-12s counting run: %.3fs", w.Name, tool, run.Seconds)
	if run.Err != "" {
		return errors.New(run.Err)
	}
	if wr.Checksum != "" && run.Checksum != wr.Checksum {
		return fmt.Errorf("checksum %s, plain printed %s", run.Checksum, wr.Checksum)
	}
	st, ok := parseStats(stderr)
	if !ok {
		return errors.New(`no "bigfoot stats:" line on standard error`)
	}
	tr := wr.Tools[tool]
	tr.Checks, tr.Accesses = st["checks"], st["accesses"]
	if tr.Accesses == 0 {
		return errors.New(`the "bigfoot stats:" line has no accesses= (is -tags bigfoot_count honoured?)`)
	}
	return nil
}

// build builds workload w for tool into bin from the module root and
// returns the wall time and the command's combined output.
func (r *runner) build(ctx context.Context, tool string, w Workload, bin string, counting bool) (float64, []byte, error) {
	pkg := PackagePath(w.Name)
	var name string
	var args []string
	switch tool {
	case Plain:
		name, args = r.goCmd, []string{"build", "-o", bin, pkg}
	case Race:
		name, args = r.goCmd, []string{"build", "-race", "-o", bin, pkg}
	case Peer:
		name, args = r.peer, []string{"build", "-o", bin, pkg}
	default:
		mode, deps := splitTool(tool)
		name, args = r.opts.BigfootBin, []string{"build", "-mode=" + mode, "-o", bin}
		if deps != "" {
			args = append(args, "-deps="+deps)
		}
		if counting {
			args = append(args, "-tags", "bigfoot_count")
		}
		args = append(args, pkg)
	}
	ctx, cancel := context.WithTimeout(ctx, r.opts.Timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = r.opts.Dir
	cmd.WaitDelay = waitDelay
	var out capped
	cmd.Stdout, cmd.Stderr = &out, &out
	t0 := time.Now()
	err := cmd.Run()
	secs := time.Since(t0).Seconds()
	if err != nil {
		if ctx.Err() == context.DeadlineExceeded {
			err = fmt.Errorf("timed out after %v", r.opts.Timeout)
		}
		return secs, out.Bytes(), fmt.Errorf("%s %s: %w\n%s", filepath.Base(name), strings.Join(args, " "), err, tail(out.Bytes(), 20))
	}
	return secs, out.Bytes(), nil
}

// execute runs bin once, timed, and returns the result.
func (r *runner) execute(ctx context.Context, w Workload, bin string, env []string) RunResult {
	run, _ := r.run(ctx, w, bin, env)
	return run
}

// run runs bin once with the workload arguments, GOMAXPROCS and env added
// to the environment, and returns the result and the standard error.
func (r *runner) run(ctx context.Context, w Workload, bin string, env []string) (RunResult, []byte) {
	var args []string
	switch {
	case r.opts.Short:
		args = append(args, "-short")
	case r.opts.Quick && w.Quick > 0:
		args = append(args, "-size="+strconv.Itoa(w.Quick))
	}
	args = append(args, r.opts.Args...)
	ctx, cancel := context.WithTimeout(ctx, r.opts.Timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = r.tmp
	cmd.WaitDelay = waitDelay
	cmd.Env = append(os.Environ(), "GOMAXPROCS="+strconv.Itoa(r.opts.GOMAXPROCS))
	cmd.Env = append(cmd.Env, env...)
	var stdout, stderr capped
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	t0 := time.Now()
	err := cmd.Run()
	run := RunResult{Seconds: time.Since(t0).Seconds()}
	if ps := cmd.ProcessState; ps != nil {
		run.CPUSeconds = (ps.UserTime() + ps.SystemTime()).Seconds()
	}
	run.HeapAllocs, run.GCCycles = parseMetrics(stderr.Bytes())
	// The workload's own VmHWM counts only its process; rusage's peak is
	// floored at the harness's RSS when it forked (Linux keeps it across
	// exec), so it is the fallback.
	if kib, ok := parsePeak(stderr.Bytes()); ok {
		run.MaxRSSKiB = kib
	} else if cmd.ProcessState != nil {
		run.MaxRSSKiB = rusage.MaxRSSKiB(cmd.ProcessState)
	}
	run.Checksum = parseChecksum(stdout.Bytes())
	switch {
	case ctx.Err() == context.DeadlineExceeded:
		run.Err = fmt.Sprintf("timed out after %v", r.opts.Timeout)
	case err != nil:
		run.Err = fmt.Sprintf("%v: %s", err, tail(stderr.Bytes(), 10))
	case bytes.Contains(stderr.Bytes(), []byte("WARNING: DATA RACE")):
		run.Err = "reported a data race on a race-free program: " + tail(stderr.Bytes(), 10)
	case run.Checksum == "":
		run.Err = "printed no checksum line"
	}
	return run, stderr.Bytes()
}

// buildPeer builds the peer detector's command from a temporary module
// that requires PeerModule at PeerVersion.
func (r *runner) buildPeer(ctx context.Context) error {
	dir := filepath.Join(r.tmp, "peer")
	if err := os.MkdirAll(dir, 0o777); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module benchpeer\n\ngo 1.24\n"), 0o666); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
	defer cancel()
	bin := filepath.Join(dir, "racedetector")
	for _, args := range [][]string{
		{"get", PeerModule + "/cmd/racedetector@" + PeerVersion},
		{"build", "-o", bin, PeerModule + "/cmd/racedetector"},
	} {
		cmd := exec.CommandContext(ctx, r.goCmd, args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOWORK=off")
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("go %s: %w: %s", strings.Join(args, " "), err, tail(out, 5))
		}
	}
	r.peer = bin
	r.progress("built %s@%s", PeerModule, PeerVersion)
	return nil
}

// parsePeak returns the value of the last line "peak_rss_kib: N" of a
// workload's standard error.
func parsePeak(stderr []byte) (kib int64, ok bool) {
	sc := bufio.NewScanner(bytes.NewReader(stderr))
	for sc.Scan() {
		if v, found := strings.CutPrefix(sc.Text(), peak.Prefix); found {
			if n, err := strconv.ParseInt(v, 10, 64); err == nil && n > 0 {
				kib, ok = n, true
			}
		}
	}
	return kib, ok
}

// parseMetrics returns the heap allocations and collections of the last
// line "runtime_metrics: heap_allocs=A gc_cycles=G" of a workload's
// standard error, or zeros.
func parseMetrics(stderr []byte) (allocs, gcs uint64) {
	sc := bufio.NewScanner(bytes.NewReader(stderr))
	for sc.Scan() {
		rest, found := strings.CutPrefix(sc.Text(), peak.MetricsPrefix)
		if !found {
			continue
		}
		for _, f := range strings.Fields(rest) {
			k, v, _ := strings.Cut(f, "=")
			n, err := strconv.ParseUint(v, 10, 64)
			if err != nil {
				continue
			}
			switch k {
			case "heap_allocs":
				allocs = n
			case "gc_cycles":
				gcs = n
			}
		}
	}
	return allocs, gcs
}

// parseChecksum returns the value of the last line "checksum: <value>".
func parseChecksum(out []byte) string {
	sum := ""
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "checksum: "); ok {
			sum = strings.TrimSpace(v)
		}
	}
	return sum
}

// parseStats returns the numeric key=value fields of the last line
// beginning "bigfoot stats:".
func parseStats(stderr []byte) (map[string]uint64, bool) {
	var fields map[string]uint64
	sc := bufio.NewScanner(bytes.NewReader(stderr))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		rest, ok := strings.CutPrefix(sc.Text(), "bigfoot stats:")
		if !ok {
			continue
		}
		fields = make(map[string]uint64)
		for _, f := range strings.Fields(rest) {
			k, v, ok := strings.Cut(f, "=")
			if !ok {
				continue
			}
			if n, err := strconv.ParseUint(v, 10, 64); err == nil {
				fields[k] = n
			}
		}
	}
	return fields, fields != nil
}

var analysisTime = regexp.MustCompile(`(?i)analysis time:?\s*([0-9.]+(?:ns|us|µs|ms|s|m|h))`)

// parseAnalysis returns the static analysis time and function count a
// build printed, from a line "bigfoot analysis: time=<duration>
// functions=<n>" or, failing that, "analysis time: <duration>"; zeros if
// there is none.
func parseAnalysis(out []byte) (secs float64, funcs int) {
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if i := strings.Index(line, "bigfoot analysis:"); i >= 0 {
			for _, f := range strings.Fields(line[i+len("bigfoot analysis:"):]) {
				k, v, _ := strings.Cut(f, "=")
				switch k {
				case "time":
					if d, err := time.ParseDuration(v); err == nil {
						secs = d.Seconds()
					}
				case "functions":
					funcs, _ = strconv.Atoi(v)
				}
			}
			continue
		}
		if m := analysisTime.FindStringSubmatch(line); m != nil && secs == 0 {
			if d, err := time.ParseDuration(m[1]); err == nil {
				secs = d.Seconds()
			}
		}
	}
	return secs, funcs
}

// capped is a bytes.Buffer that keeps only the first capLimit bytes
// written to it: a checker reporting races by the thousand must not fill
// memory, and the first reports are the informative ones.
type capped struct{ bytes.Buffer }

const capLimit = 1 << 20

func (c *capped) Write(p []byte) (int, error) {
	if room := capLimit - c.Len(); room > 0 {
		c.Buffer.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}

// tail returns the last n lines of out, trimmed.
func tail(out []byte, n int) string {
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// firstLine returns s up to its first newline.
func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}
