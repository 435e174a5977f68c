package corpus

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// EachTestOptions configure RunEachTest.
type EachTestOptions struct {
	// Modules are the modules to run (default: Modules()).
	Modules []Module
	// Bigfoot is the path of the bigfoot command.
	Bigfoot string
	// Tags are passed to bigfoot test -c as -tags (bigfoot_verify for the
	// verifier) and to go test -race -c.
	Tags string
	// Bound bounds each test's process (default 10 minutes).
	Bound time.Duration
	// Short runs the tests with -test.short.
	Short bool
	// Run, if set, selects the top-level tests to run by name (all by
	// default): a re-run of the tests an earlier run left without a
	// verdict, with a larger bound.
	Run *regexp.Regexp
	// Packages, if set, selects the packages to test by import path (all
	// by default): a long module's packages split over several runs.
	Packages *regexp.Regexp
	// OutDir, if set, receives the output of every test that did not run
	// cleanly to its end (logs/), and, after every module, results.md and
	// report.json.
	OutDir string
	// Progress, if set, receives a line per step and per test.
	Progress io.Writer
	// Command and Commit are the command line and bigfoot's commit,
	// recorded in the report.
	Command, Commit string
}

// The outcome of one test's process.
const (
	TestPass    = "pass"
	TestFail    = "fail"
	TestSkip    = "skip"
	TestBound   = "bound"    // killed at the bound
	TestNoTests = "no tests" // the name matched nothing the binary runs
)

// TestRun is one top-level test run in a process of its own.
type TestRun struct {
	Name   string  `json:"name"`
	Status string  `json:"status"`
	Wall   float64 `json:"wall_s"`
	// Verify is the verifier's summary line (Lines is 1 if the process
	// printed it); Violations counts the violation lines printed before
	// it, or before the process was killed.
	Verify     Verify `json:"verify"`
	Violations int    `json:"violations,omitempty"`
	// Race is the test's outcome under go -race, run only when bigfoot's
	// run failed or hit the bound; RaceWall its wall time.
	Race     string  `json:"race,omitempty"`
	RaceWall float64 `json:"race_wall_s,omitempty"`
}

// Ended reports whether the test's process ran to its end.
func (t *TestRun) Ended() bool { return t.Status != TestBound }

// PackageTests is one package's tests, each run on its own.
type PackageTests struct {
	ImportPath string     `json:"import_path"`
	Err        string     `json:"error,omitempty"` // its test binary did not build
	Tests      []*TestRun `json:"tests"`
}

// ModuleTests is one module's packages.
type ModuleTests struct {
	Module   Module          `json:"module"`
	Err      string          `json:"error,omitempty"`
	Packages []*PackageTests `json:"packages"`
}

// EachTestReport is the result of RunEachTest.
type EachTestReport struct {
	Started   time.Time      `json:"started"`
	Command   string         `json:"command,omitempty"`
	Commit    string         `json:"commit,omitempty"`
	GoVersion string         `json:"go_version"`
	Tags      string         `json:"tags,omitempty"`
	Bound     float64        `json:"bound_s"`
	Short     bool           `json:"short,omitempty"`
	Run       string         `json:"run,omitempty"`      // the tests selected, if not all
	Packages  string         `json:"packages,omitempty"` // the packages selected, if not all
	Modules   []*ModuleTests `json:"modules"`
}

// RunEachTest downloads each module, builds each of its packages' test
// binaries once with bigfoot test -c and once with go test -race -c, and
// runs every top-level test, example and fuzz target (-test.list) of the
// bigfoot binary in a process of its own, bounded by opts.Bound, reading
// the verifier's summary each process prints at its exit. A test that
// fails or hits the bound runs again under go -race, so that the report
// says whether go -race fails or hits the bound too.
//
// A suite too long to finish under one bound thus still gets a verdict
// for every test that finishes under its own, and names the rest.
func RunEachTest(ctx context.Context, opts EachTestOptions) (*EachTestReport, error) {
	if opts.Modules == nil {
		opts.Modules = Modules()
	}
	if opts.Bound <= 0 {
		opts.Bound = 10 * time.Minute
	}
	abs, err := bigfootCommand(opts.Bigfoot)
	if err != nil {
		return nil, err
	}
	opts.Bigfoot = abs
	if opts.Progress == nil {
		opts.Progress = io.Discard
	}
	tmp, err := os.MkdirTemp("", "bigfoot-corpus-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	rep := &EachTestReport{
		Started:   time.Now().UTC(),
		Command:   opts.Command,
		Commit:    opts.Commit,
		GoVersion: goVersion(ctx),
		Tags:      opts.Tags,
		Bound:     opts.Bound.Seconds(),
		Short:     opts.Short,
	}
	if opts.Run != nil {
		rep.Run = opts.Run.String()
	}
	if opts.Packages != nil {
		rep.Packages = opts.Packages.String()
	}
	save := func() error {
		if opts.OutDir == "" {
			return nil
		}
		return rep.WriteFiles(opts.OutDir)
	}
	env := append(os.Environ(), "GOTOOLCHAIN=local")
	for _, m := range opts.Modules {
		res := &ModuleTests{Module: m}
		rep.Modules = append(rep.Modules, res)
		if err := runModuleTests(ctx, opts, env, tmp, res, save); err != nil {
			if ctx.Err() != nil {
				return rep, err
			}
			res.Err = err.Error()
			fmt.Fprintf(opts.Progress, "corpus: %s: %v\n", m, err)
		}
		if err := save(); err != nil {
			return rep, err
		}
	}
	return rep, nil
}

// testPackage is a package with test files, as go list describes it.
type testPackage struct {
	ImportPath, Dir string
	bin             string // the test binary's name: go test -c's
}

// runModuleTests fetches one module and runs its tests (runTests); save
// writes the report so far.
func runModuleTests(ctx context.Context, opts EachTestOptions, env []string, tmp string, res *ModuleTests, save func() error) error {
	dir, setupLog, done, err := setupModule(ctx, res.Module, opts.OutDir, tmp, env, opts.Progress)
	if err != nil {
		return err
	}
	defer done()
	return runTests(ctx, opts, env, dir, tmp, res, setupLog, save)
}

// runTests builds the test binaries of the module in dir under both tools
// into a directory under tmp, and runs each test; save is called after
// every test, so that an interrupted run keeps what it measured.
func runTests(ctx context.Context, opts EachTestOptions, env []string, dir, tmp string, res *ModuleTests, setupLog io.Writer, save func() error) error {
	m := res.Module
	pkgs, err := listTestPackages(ctx, dir, env)
	if err != nil {
		return err
	}
	if opts.Packages != nil {
		pkgs = slices.DeleteFunc(pkgs, func(p testPackage) bool { return !opts.Packages.MatchString(p.ImportPath) })
	}
	bins, err := os.MkdirTemp(tmp, "bin-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(bins)
	fmt.Fprintf(opts.Progress, "corpus: %s: building %d test binaries under each tool\n", m, len(pkgs))
	built := map[string]map[string]string{} // tool → import path → binary or error
	for _, tool := range []string{ToolBigfoot, ToolRace} {
		built[tool] = buildTests(ctx, opts, env, dir, tool, filepath.Join(bins, tool), pkgs, setupLog)
	}
	for _, p := range pkgs {
		pt := &PackageTests{ImportPath: p.ImportPath}
		res.Packages = append(res.Packages, pt)
		bin := built[ToolBigfoot][p.ImportPath]
		if !filepath.IsAbs(bin) {
			pt.Err = bin
			fmt.Fprintf(opts.Progress, "corpus: %s: bigfoot did not build the tests: %s\n", p.ImportPath, firstLine(bin))
			continue
		}
		names, err := listTests(ctx, bin, p.Dir, env)
		if err != nil {
			pt.Err = err.Error()
			continue
		}
		if opts.Run != nil {
			names = slices.DeleteFunc(names, func(name string) bool { return !opts.Run.MatchString(name) })
		}
		fmt.Fprintf(opts.Progress, "corpus: %s: %d tests\n", p.ImportPath, len(names))
		for _, name := range names {
			t := &TestRun{Name: name}
			log := ""
			if opts.OutDir != "" {
				log = filepath.Join(opts.OutDir, testLog(m, p.ImportPath, name))
			}
			if err := runTest(ctx, opts, env, bin, p.Dir, t, log); err != nil {
				return err
			}
			if t.Status == TestFail || t.Status == TestBound {
				race := built[ToolRace][p.ImportPath]
				if !filepath.IsAbs(race) {
					t.Race = "build failed"
				} else {
					r := &TestRun{Name: name}
					if err := runTest(ctx, opts, env, race, p.Dir, r, ""); err != nil {
						return err
					}
					t.Race, t.RaceWall = r.Status, r.Wall
				}
			}
			pt.Tests = append(pt.Tests, t) // an interrupted run records only the tests it finished
			fmt.Fprintf(opts.Progress, "corpus: %s: %s: %s in %.0fs%s\n", p.ImportPath, name, t.describe(), t.Wall, raceNote(t))
			if err := save(); err != nil {
				return err
			}
		}
	}
	return nil
}

// clean reports whether t ran to its end, passed or skipped, and printed
// a summary without violations.
func (t *TestRun) clean() bool {
	return (t.Status == TestPass || t.Status == TestSkip || t.Status == TestNoTests) &&
		t.Verify.Lines == 1 && t.Verify.Uncovered == 0 && t.Verify.Illegitimate == 0 && t.Violations == 0
}

// describe says what a test run came to, for the progress lines.
func (t *TestRun) describe() string {
	s := t.Status
	if t.Status == TestBound {
		s = "hit the bound"
	}
	switch {
	case t.Verify.Lines == 0 && t.Ended():
		s += ", no verifier summary"
	case t.Verify.Uncovered+t.Verify.Illegitimate > 0 || t.Violations > 0:
		s += fmt.Sprintf(", %d uncovered, %d illegitimate (%d violation lines)", t.Verify.Uncovered, t.Verify.Illegitimate, t.Violations)
	}
	return s
}

func raceNote(t *TestRun) string {
	if t.Race == "" {
		return ""
	}
	return fmt.Sprintf(" (go -race: %s in %.0fs)", t.Race, t.RaceWall)
}

// listTestPackages returns the module's packages that have test files.
func listTestPackages(ctx context.Context, dir string, env []string) ([]testPackage, error) {
	var stderr bytes.Buffer
	out, err := goCmd(ctx, dir, env, &stderr, "list", "-e", "-f",
		"{{if or .TestGoFiles .XTestGoFiles}}{{.ImportPath}}\t{{.Dir}}{{end}}", "./...")
	if err != nil {
		return nil, fmt.Errorf("go list: %v: %s", err, stderr.String())
	}
	var pkgs []testPackage
	for _, line := range strings.Split(string(out), "\n") {
		path, dir, ok := strings.Cut(line, "\t")
		if ok {
			pkgs = append(pkgs, testPackage{ImportPath: path, Dir: dir, bin: TestBinaryName(path)})
		}
	}
	return pkgs, nil
}

// TestBinaryName is the name go test -c gives the test binary of the
// package with import path importPath: the path's last element, or the
// one before a major version suffix (cmd/go's DefaultExecName).
func TestBinaryName(importPath string) string {
	elem := path.Base(importPath)
	if elem != importPath && isVersionElement(elem) {
		elem = path.Base(path.Dir(importPath))
	}
	return elem + ".test"
}

// isVersionElement reports whether s is a major version suffix: v2, v3, ….
func isVersionElement(s string) bool {
	if len(s) < 2 || s[0] != 'v' || s[1] == '0' || s[1] == '1' && len(s) == 2 {
		return false
	}
	for i := 1; i < len(s); i++ {
		if s[i] < '0' || '9' < s[i] {
			return false
		}
	}
	return true
}

// buildTests builds the test binaries of pkgs under tool into out and
// returns, by import path, the binary's absolute path or the build's
// error. It builds the packages together (go test -c -o DIR/), in as few
// groups as their binaries' names allow, and a group that fails one
// package at a time, so that one package that does not build costs the
// others nothing.
func buildTests(ctx context.Context, opts EachTestOptions, env []string, dir, tool, out string, pkgs []testPackage, log io.Writer) map[string]string {
	res := map[string]string{}
	var groups [][]testPackage
	for _, p := range pkgs {
		placed := false
		for i, g := range groups {
			if !hasBinary(g, p.bin) {
				groups[i] = append(g, p)
				placed = true
				break
			}
		}
		if !placed {
			groups = append(groups, []testPackage{p})
		}
	}
	for i, g := range groups {
		gdir := filepath.Join(out, strconv.Itoa(i))
		if err := buildGroup(ctx, opts, env, dir, tool, gdir, g, log); err == nil {
			for _, p := range g {
				res[p.ImportPath] = filepath.Join(gdir, p.bin)
			}
			continue
		}
		for j, p := range g {
			pdir := filepath.Join(gdir, "p"+strconv.Itoa(j))
			if err := buildGroup(ctx, opts, env, dir, tool, pdir, []testPackage{p}, log); err != nil {
				res[p.ImportPath] = err.Error()
			} else {
				res[p.ImportPath] = filepath.Join(pdir, p.bin)
			}
		}
	}
	return res
}

func hasBinary(g []testPackage, bin string) bool {
	for _, p := range g {
		if p.bin == bin {
			return true
		}
	}
	return false
}

// buildGroup builds the test binaries of pkgs under tool into the new
// directory out.
func buildGroup(ctx context.Context, opts EachTestOptions, env []string, dir, tool, out string, pkgs []testPackage, log io.Writer) error {
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	args := []string{"test", "-c", "-o", out + string(filepath.Separator)}
	if opts.Tags != "" {
		args = append(args, "-tags", opts.Tags)
	}
	for _, p := range pkgs {
		args = append(args, p.ImportPath)
	}
	var cmd *exec.Cmd
	if tool == ToolRace {
		cmd = exec.CommandContext(ctx, "go", append([]string{"test", "-race"}, args[1:]...)...)
	} else {
		cmd = exec.CommandContext(ctx, opts.Bigfoot, args...)
	}
	cmd.Dir = dir
	cmd.Env = env
	var stderr bytes.Buffer
	cmd.Stdout = &stderr
	cmd.Stderr = &stderr
	fmt.Fprintf(log, "$ %s %s\n", tool, strings.Join(args, " "))
	err := cmd.Run()
	log.Write(stderr.Bytes())
	if err != nil {
		return fmt.Errorf("%v: %s", err, tail(stderr.String(), 2000))
	}
	return nil
}

// listTests returns the top-level tests, examples and fuzz targets of a
// test binary, in the order it runs them; benchmarks, which run only with
// -test.bench, are left out.
func listTests(ctx context.Context, bin, dir string, env []string) ([]string, error) {
	cmd := exec.CommandContext(ctx, bin, "-test.list", ".")
	cmd.Dir = dir
	cmd.Env = env
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("%s -test.list: %v", filepath.Base(bin), err)
	}
	var names []string
	for _, line := range strings.Split(string(out), "\n") {
		if identifier.MatchString(line) && !strings.HasPrefix(line, "Benchmark") {
			names = append(names, line)
		}
	}
	return names, nil
}

// identifier matches a line of -test.list's output that names a test, and
// no other line the binary may print (the verifier's summary).
var identifier = regexp.MustCompile(`^[\pL_][\pL\pN_]*$`)

// violationLine begins each violation the verifier prints.
var violationLine = regexp.MustCompile(`^bigfoot verify: (uncovered|illegitimate) `)

// runTest runs the test t.Name of bin in dir, alone and verbose, bounded
// by opts.Bound, and records its outcome in t. Its output goes to log if
// the run was not clean, and is dropped otherwise.
func runTest(ctx context.Context, opts EachTestOptions, env []string, bin, dir string, t *TestRun, log string) error {
	args := []string{"-test.run", "^" + t.Name + "$", "-test.v", "-test.count=1"}
	if opts.Short {
		args = append(args, "-test.short")
	}
	bctx, cancel := context.WithTimeout(ctx, opts.Bound)
	defer cancel()
	cmd := exec.CommandContext(bctx, bin, args...)
	cmd.Dir = dir
	cmd.Env = env
	killGroup(cmd)
	out, err := os.CreateTemp("", "bigfoot-test-*.out")
	if err != nil {
		return err
	}
	defer os.Remove(out.Name())
	defer out.Close()
	cmd.Stdout = out
	cmd.Stderr = out
	start := time.Now()
	err = cmd.Run()
	t.Wall = time.Since(start).Seconds()
	if ctx.Err() != nil {
		return ctx.Err()
	}
	var exit *exec.ExitError
	switch {
	case bctx.Err() == context.DeadlineExceeded:
		t.Status = TestBound
	case err == nil:
		t.Status = TestPass
	case errors.As(err, &exit):
		t.Status = TestFail
	default:
		return err
	}
	if _, err := out.Seek(0, io.SeekStart); err != nil {
		return err
	}
	if err := scanTestOutput(out, t); err != nil {
		return err
	}
	if log == "" || t.clean() {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(log), 0o755); err != nil {
		return err
	}
	if _, err := out.Seek(0, io.SeekStart); err != nil {
		return err
	}
	f, err := os.Create(log)
	if err != nil {
		return err
	}
	if _, err := io.Copy(f, out); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// scanTestOutput reads a test process's verbose output: the verifier's
// summary and violation lines, and whether the test was skipped or
// matched nothing.
func scanTestOutput(r io.Reader, t *TestRun) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 16<<20)
	ran := false
	for sc.Scan() {
		line := sc.Text()
		if m := verifyLine.FindStringSubmatch(line); m != nil {
			u, _ := strconv.ParseUint(m[1], 10, 64)
			i, _ := strconv.ParseUint(m[2], 10, 64)
			t.Verify.add(Verify{Lines: 1, Uncovered: u, Illegitimate: i})
		} else if violationLine.MatchString(line) {
			t.Violations++
		}
		if strings.HasPrefix(line, "=== RUN   "+t.Name) || strings.HasPrefix(line, "--- ") {
			ran = true
		}
		if t.Status == TestPass && strings.HasPrefix(line, "--- SKIP: "+t.Name+" ") {
			t.Status = TestSkip
		}
	}
	if t.Status == TestPass && !ran {
		t.Status = TestNoTests
	}
	return sc.Err()
}

// testLog is the name of a test's output file relative to the output
// directory.
func testLog(m Module, importPath, test string) string {
	rel := strings.TrimPrefix(strings.TrimPrefix(importPath, m.Path), "/")
	if rel == "" {
		rel = "."
	}
	return filepath.Join(filepath.Dir(runLog(m, "", 0)), strings.ReplaceAll(rel, "/", "_"), test+".out")
}

// firstLine returns s up to its first newline.
func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}
