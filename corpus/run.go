package corpus

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/bigfoot-go/bigfoot/internal/rusage"
)

// The tools a suite runs under.
const (
	ToolPlain   = "plain"   // go test, the base of overheads
	ToolRace    = "race"    // go test -race
	ToolBigfoot = "bigfoot" // bigfoot test
)

// Options configure Run.
type Options struct {
	// Modules are the modules to run (default: Modules()).
	Modules []Module
	// Tools are the tools to run each suite under, in this order (default
	// race and bigfoot; parity is checked only when both ran).
	Tools []string
	// Runs is the number of runs per tool and module (default 1),
	// interleaved: race, bigfoot, race, bigfoot, ….
	Runs int
	// Bigfoot is the path of the bigfoot command (required with
	// ToolBigfoot).
	Bigfoot string
	// Tags are passed to both tools as -tags (e.g. bigfoot_verify).
	Tags string
	// Prime runs each tool once, untimed, on a copy of the module in
	// another directory before the timed runs (prime). The timed runs
	// then find warm what a tool keeps across modules: the toolchain's
	// build cache of the standard library and the dependencies, and
	// bigfoot's instrumented standard library and dependency copies
	// (docs/build.md, "Build cost"), which it makes once per bigfoot
	// binary; the module's own packages are still instrumented and
	// compiled anew, in the timed runs' directory. Without it a module
	// pays for the standard-library packages that no module before it
	// in the list used.
	Prime bool
	// Warmup builds each suite's test binaries once under each tool,
	// untimed (go test -run=^$), before the timed runs, so that they
	// measure a warm build cache, as a developer's repeated runs see it.
	Warmup bool
	// Timeout bounds each run of a suite (default 20 minutes); a run that
	// times out is killed and its unfinished packages are StatusMissing.
	Timeout time.Duration
	// OutDir, if set, receives each run's output (logs/) and, after every
	// module, results.md and report.json.
	OutDir string
	// Progress, if set, receives a line per step.
	Progress io.Writer
	// Command and Commit are the command line and bigfoot's commit,
	// recorded in the report.
	Command, Commit string
}

// SuiteRun is one run of one suite under one tool.
type SuiteRun struct {
	Tool       string              `json:"tool"`
	Index      int                 `json:"index"`
	Wall       float64             `json:"wall_s"`
	CPU        float64             `json:"cpu_s"` // user+system of the whole process tree
	PeakRSSKiB int64               `json:"peak_rss_kib"`
	ExitCode   int                 `json:"exit_code"`
	TimedOut   bool                `json:"timed_out,omitempty"`
	Packages   map[string]*Package `json:"packages"`
	// Tail is the end of the run's standard error, kept when the run
	// reported no package at all.
	Tail string `json:"tail,omitempty"`
}

// Run downloads each module and runs its suite under each tool, and
// returns the report with each module compared (Compare). It returns an
// error only if it cannot run at all; a module that cannot be fetched is
// recorded in the report with its error.
func Run(ctx context.Context, opts Options) (*Report, error) {
	if opts.Modules == nil {
		opts.Modules = Modules()
	}
	if len(opts.Tools) == 0 {
		opts.Tools = []string{ToolRace, ToolBigfoot}
	}
	if opts.Runs <= 0 {
		opts.Runs = 1
	}
	if opts.Timeout <= 0 {
		opts.Timeout = 20 * time.Minute
	}
	for _, t := range opts.Tools {
		switch t {
		case ToolPlain, ToolRace:
		case ToolBigfoot:
			abs, err := bigfootCommand(opts.Bigfoot)
			if err != nil {
				return nil, err
			}
			opts.Bigfoot = abs
		default:
			return nil, fmt.Errorf("corpus: unknown tool %q", t)
		}
	}
	if opts.Progress == nil {
		opts.Progress = io.Discard
	}
	tmp, err := os.MkdirTemp("", "bigfoot-corpus-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	rep := &Report{
		Started:   time.Now().UTC(),
		Command:   opts.Command,
		Commit:    opts.Commit,
		GoVersion: goVersion(ctx),
		GOOS:      runtime.GOOS,
		GOARCH:    runtime.GOARCH,
		NumCPU:    runtime.NumCPU(),
		Tools:     opts.Tools,
		Runs:      opts.Runs,
		Tags:      opts.Tags,
		Primed:    opts.Prime,
	}
	// The suites run with the caller's environment, with the toolchain
	// pinned to the local one: a module that asks for a newer Go fails the
	// same way under both tools instead of downloading a toolchain.
	env := append(os.Environ(), "GOTOOLCHAIN=local")
	for _, m := range opts.Modules {
		if err := ctx.Err(); err != nil {
			return rep, err
		}
		res := &ModuleResult{Module: m}
		rep.Modules = append(rep.Modules, res)
		if err := runModule(ctx, opts, env, tmp, res); err != nil {
			if ctx.Err() != nil {
				rep.Modules = rep.Modules[:len(rep.Modules)-1]
				return rep, err
			}
			res.Err = err.Error()
			fmt.Fprintf(opts.Progress, "corpus: %s: %v\n", m, err)
		}
		res.compare(slices.Contains(strings.Split(opts.Tags, ","), "bigfoot_verify"))
		rep.summarize()
		if opts.OutDir != "" {
			if err := rep.WriteFiles(opts.OutDir); err != nil {
				return rep, err
			}
		}
	}
	return rep, nil
}

// bigfootCommand returns the bigfoot command the options name, as an
// absolute path: the suites run in other directories.
func bigfootCommand(bigfoot string) (string, error) {
	if bigfoot == "" {
		return "", errors.New("corpus: no bigfoot command to run")
	}
	return filepath.Abs(bigfoot)
}

// runModule fetches one module and runs its suite opts.Runs times under
// each tool, interleaved.
func runModule(ctx context.Context, opts Options, env []string, tmp string, res *ModuleResult) error {
	m := res.Module
	dir, _, done, err := setupModule(ctx, m, opts.OutDir, tmp, env, opts.Progress)
	if err != nil {
		return err
	}
	defer done()
	logDir := ""
	if opts.OutDir != "" {
		logDir = moduleLogDir(opts.OutDir, m)
	}
	if opts.Prime {
		fmt.Fprintf(opts.Progress, "corpus: %s: priming the tools' caches\n", m)
		if err := prime(ctx, opts, env, dir); err != nil {
			return err
		}
	}
	if opts.Warmup {
		for _, tool := range opts.Tools {
			fmt.Fprintf(opts.Progress, "corpus: %s: %s warm-up\n", m, tool)
			if _, err := runSuite(ctx, opts, env, dir, tool, 0, "", "-run=^$"); err != nil {
				return err
			}
		}
	}
	for i := 1; i <= opts.Runs; i++ {
		for _, tool := range opts.Tools {
			r, err := runSuite(ctx, opts, env, dir, tool, i, logDir)
			if err != nil {
				return err
			}
			res.Runs = append(res.Runs, r)
			ok, fail, build := 0, 0, 0
			for _, p := range r.Packages {
				switch p.Status {
				case StatusOK:
					ok++
				case StatusFail:
					fail++
				case StatusBuildFailed:
					build++
				}
			}
			fmt.Fprintf(opts.Progress, "corpus: %s: %s run %d: %.1fs wall, %.1fs CPU, %d MiB; %d ok, %d FAIL, %d build failed, exit %d%s\n",
				m, tool, i, r.Wall, r.CPU, r.PeakRSSKiB>>10, ok, fail, build, r.ExitCode, timedOut(r.TimedOut))
		}
	}
	return nil
}

// prime builds the test binaries of a copy of the module in dir under
// each tool (go test -run=^$ ./...), untimed, and removes the copy. The go
// command keys a compiled package by its directory unless -trimpath is
// given, so the copy's packages are not the module's: the timed runs in
// dir compile them again, and only what lies outside the module (the
// standard library, the dependencies in the module cache, bigfoot's
// instrumented copies of both) is found warm.
func prime(ctx context.Context, opts Options, env []string, dir string) error {
	cp, err := os.MkdirTemp(filepath.Dir(dir), "prime-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(cp)
	if err := copyTree(cp, dir); err != nil {
		return err
	}
	for _, tool := range opts.Tools {
		if _, err := runSuite(ctx, opts, env, cp, tool, 0, "", "-run=^$"); err != nil {
			return err
		}
	}
	return nil
}

func timedOut(b bool) string {
	if b {
		return " (timed out)"
	}
	return ""
}

// runSuite runs the whole suite in dir once under tool, with extra
// arguments for go test, and writes its output to logDir if set.
func runSuite(ctx context.Context, opts Options, env []string, dir, tool string, index int, logDir string, extra ...string) (*SuiteRun, error) {
	args := []string{"test", "-count=1", "-json"}
	if opts.Tags != "" {
		args = append(args, "-tags", opts.Tags)
	}
	args = append(append(args, extra...), "./...")
	var cmd *exec.Cmd
	ctx, cancel := context.WithTimeout(ctx, opts.Timeout)
	defer cancel()
	switch tool {
	case ToolPlain:
		cmd = exec.CommandContext(ctx, "go", args...)
	case ToolRace:
		cmd = exec.CommandContext(ctx, "go", append([]string{"test", "-race"}, args[1:]...)...)
	default:
		cmd = exec.CommandContext(ctx, opts.Bigfoot, args...)
	}
	cmd.Dir = dir
	cmd.Env = env
	killGroup(cmd)
	var stdout, stderr bytes.Buffer
	cmd.Stdout = &stdout
	cmd.Stderr = &stderr
	rusage.ResetPeak() // the child's peak starts at this process's otherwise
	start := time.Now()
	err := cmd.Run()
	r := &SuiteRun{Tool: tool, Index: index, Wall: time.Since(start).Seconds()}
	if ctx.Err() == context.Canceled {
		return nil, fmt.Errorf("%s: %w", tool, ctx.Err()) // interrupted: no measurement
	}
	r.TimedOut = ctx.Err() == context.DeadlineExceeded
	var exit *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &exit):
		r.ExitCode = exit.ExitCode()
	case r.TimedOut:
		r.ExitCode = -1
	default:
		return nil, fmt.Errorf("%s: %v", tool, err)
	}
	if ps := cmd.ProcessState; ps != nil {
		r.CPU = (ps.UserTime() + ps.SystemTime()).Seconds()
		r.PeakRSSKiB = rusage.MaxRSSKiB(ps)
	}
	pkgs, err := ParseEvents(bytes.NewReader(stdout.Bytes()))
	if err != nil {
		return nil, fmt.Errorf("%s: reading go test -json: %v", tool, err)
	}
	r.Packages = pkgs
	if len(pkgs) == 0 {
		r.Tail = tail(stdout.String()+stderr.String(), 2000)
	}
	if logDir != "" {
		base := filepath.Join(logDir, filepath.Base(runLog(Module{}, tool, index)))
		if err := os.WriteFile(base+".json", stdout.Bytes(), 0o644); err != nil {
			return nil, err
		}
		if err := os.WriteFile(base+".stderr", stderr.Bytes(), 0o644); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// runLog returns the name of a run's output files, without extension,
// relative to the output directory.
func runLog(m Module, tool string, index int) string {
	return filepath.Join("logs", strings.ReplaceAll(m.String(), "/", "_"), fmt.Sprintf("%s-%d", tool, index))
}

// tail returns the last n bytes of s.
func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[len(s)-n:]
}

// goVersion returns the go command's version, or "" if it cannot be run.
func goVersion(ctx context.Context) string {
	out, err := exec.CommandContext(ctx, "go", "env", "GOVERSION").Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}
