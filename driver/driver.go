package driver

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/bigfoot-go/bigfoot/mode"
)

// A Request is what the driver asks the instrumenter to do: load the
// packages matching Patterns in Dir and return their instrumented sources.
type Request struct {
	Dir        string   // directory to load in (inside the user's module)
	Patterns   []string // package patterns or .go files
	Tests      bool     // include _test.go files and external test packages
	BuildFlags []string // flags that affect loading (-tags, ...)
	Env        []string // environment of the go command
	Mode       mode.Mode
	Std        bool // instrument the standard-library packages Patterns names instead
	// Facts are opaque facts (effect summaries) of packages instrumented
	// by earlier requests of the build, for calls into them.
	Facts [][]byte
	// RuntimeHooks says the runtime runs the detector's exit processing
	// (exithook.go) and its start and end of goroutines (gohook.go):
	// main.main needs no wrapper, a test no TestMain, a go statement no
	// wrapper of its function.
	RuntimeHooks bool
	// SyncOnce says package sync's Once carries Once.Do's edges itself
	// (syncSplices) and the detector's standard-library hooks work on
	// the target: calls of Once.Do, OnceFunc, OnceValue and OnceValues
	// are then left as they are, so that the function they run sees no
	// frame of bigfoot's between it and package sync's.
	SyncOnce bool
	// SyscallIO says package syscall announces I/O itself, where go
	// -race's does (syscallSplices): calls that do I/O then get no hook.
	SyscallIO bool
	// Graph is the import graph of Patterns as the driver listed it (go
	// list -deps -json with BuildFlags and Env, -test if Tests), which
	// the instrumenter need not list again; nil if not listed.
	Graph []GraphPackage
}

// A GraphPackage is a package of Request.Graph.
type GraphPackage struct {
	ID     string       // go list's ImportPath (a test variant's has its suffix)
	Module *GraphModule // nil for a standard-library package
	Root   bool         // a pattern names it
}

// A GraphModule is the module of a GraphPackage.
type GraphModule struct {
	Path, Version, Dir, GoVersion string
	Main                          bool
}

// graphOf returns the graph of the listed packages.
func graphOf(pkgs []listedPackage) []GraphPackage {
	graph := make([]GraphPackage, len(pkgs))
	for i, p := range pkgs {
		graph[i] = GraphPackage{ID: p.ImportPath, Root: !p.DepOnly}
		if m := p.Module; m != nil {
			graph[i].Module = &GraphModule{Path: m.Path, Version: m.Version, Dir: m.Dir, GoVersion: m.GoVersion, Main: m.Main}
		}
	}
	return graph
}

// Files are the instrumenter's output.
type Files struct {
	Replace map[string][]byte // absolute path of an existing file -> content
	Add     map[string][]byte // absolute path of a new file -> content
	Notes   []string          // remarks for the user (files left uninstrumented, ...)
	// Broken are the errors of packages left uninstrumented because they
	// do not type-check; the go command reports them as it does without
	// bigfoot, and builds and tests the other packages.
	Broken []string
	Facts  map[string][]byte // import path -> facts of the package, for later requests
	// PointerChecksPass are the standard-library packages of a Std
	// request whose pointer checks provably pass in their own code
	// (checkptr.go, exemptFromCheckptr).
	PointerChecksPass []string
	// Plan is the instrumenter's record of its decisions on the sites of
	// the files it rendered, opaque to the driver: bigfoot analyze
	// prints it (Analyze).
	Plan []byte
}

// facts maps import paths of instrumented packages to their facts: what
// the build passes from the instrumenter's runs for the standard library
// and the dependencies to the later runs, whose packages call into them.
type facts map[string][]byte

// list returns the facts in import-path order, so that requests, and the
// instrumented code, do not depend on map order.
func (f facts) list() [][]byte {
	paths := make([]string, 0, len(f))
	for p := range f {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	out := make([][]byte, len(paths))
	for i, p := range paths {
		out[i] = f[p]
	}
	return out
}

// A LoadError reports packages that do not load or type-check. The driver
// then runs the plain go command so that the user sees the compiler's own
// errors.
type LoadError struct{ Errors []string }

func (e *LoadError) Error() string { return strings.Join(e.Errors, "\n") }

// An Instrumenter instruments the packages a Request names. The CLI adapts
// instrument.Run to it; tests use fakes.
type Instrumenter func(ctx context.Context, req Request) (*Files, error)

// Config is the environment of one run of the driver.
type Config struct {
	Runtime    fs.FS        // runtime sources: detector/, shadow/, ... (see package bigfoot)
	Instrument Instrumenter // the source rewriter
	GoCmd      string       // the go command; "" means "go"
	Env        []string     // nil means os.Environ()
	// CacheDir keeps the runtime module between runs; "" means
	// bigfoot/ in os.UserCacheDir, or none if there is no such directory.
	CacheDir string
	// Version identifies the instrumenter in the cache of instrumented
	// dependencies; "" means the bigfoot executable's name, size and
	// modification time.
	Version string
	// Self is the bigfoot executable, through which go test runs vet
	// (VetTool) so that vet sees the original files; "" means vet sees
	// the instrumented ones.
	Self   string
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
}

// Run carries out inv: it instruments the packages, writes the runtime,
// workspace and overlay into a temporary directory, and runs the go command
// (for run, builds and then runs the program). It returns the exit status
// bigfoot should exit with; a non-nil error is to be printed first.
func Run(ctx context.Context, cfg *Config, inv *Invocation) (int, error) {
	return newRun(cfg, inv).do(ctx)
}

// newRun returns the state of a run of inv, with cfg's defaults filled in.
func newRun(cfg *Config, inv *Invocation) *run {
	d := &run{cfg: cfg, inv: inv, start: time.Now()}
	if d.cfg.GoCmd == "" {
		d.cfg.GoCmd = "go"
	}
	if d.cfg.Env == nil {
		d.cfg.Env = os.Environ()
	}
	if d.cfg.CacheDir == "" {
		if dir, err := os.UserCacheDir(); err == nil {
			d.cfg.CacheDir = filepath.Join(dir, "bigfoot")
		}
	}
	return d
}

// An Analysis is what a build would compile, without the compiling: the
// overlay of the main modules' files and local dependencies, the
// instrumenter's notes, and its record of its decisions (Files.Plan).
type Analysis struct {
	Plan  []byte
	Files map[string][]byte // absolute path -> instrumented content
	Notes []string
}

// Analyze instruments the packages inv names as Run does for inv's build,
// with the same loader, options, effect facts and cache, and returns the
// result instead of building.
func Analyze(ctx context.Context, cfg *Config, inv *Invocation) (*Analysis, error) {
	a := &Analysis{}
	d := newRun(cfg, inv)
	d.analysis = a
	if _, err := d.do(ctx); err != nil {
		return nil, err
	}
	return a, nil
}

// run is the state of one invocation.
type run struct {
	cfg   *Config
	inv   *Invocation
	start time.Time
	dir   string   // absolute directory the go command runs in
	tmp   string   // the temporary directory
	env   []string // environment of the instrumented build

	userWork string // the user's active go.work, "" or "off" if none
	// loadFlags are the loading flags of the instrumenter and go list:
	// the command line's, with the tag race (racetag.go).
	loadFlags []string
	goflags   string // GOFLAGS of the go command
	// hooks says the toolchain's runtime takes the detector's hooks
	// (runtimeHookFiles): every instrumentation request of the run says
	// so (Request.RuntimeHooks).
	hooks bool
	// syncOnce: package sync's Once has its edges (Request.SyncOnce).
	syncOnce bool
	// syscallIO: package syscall announces I/O (Request.SyscallIO),
	// decided with the standard library's instrumentation (makePlan).
	syscallIO bool
	// runtimePkgDir is package runtime's directory if it gets bigfoot's files
	// and patches, allocVersions whether the allocation versions are
	// among them (runtimePatchPlan).
	runtimePkgDir string
	allocVersions bool
	// analysis, if not nil, receives the plan instead of a build (Analyze).
	analysis *Analysis
}

func (d *run) logf(format string, args ...any) {
	if d.inv.Verbose {
		fmt.Fprintf(d.cfg.Stderr, "bigfoot: %.3fs: %s\n", time.Since(d.start).Seconds(), fmt.Sprintf(format, args...))
	}
}

func (d *run) do(ctx context.Context) (int, error) {
	dir, err := filepath.Abs(d.inv.Dir)
	if err != nil {
		return 1, err
	}
	d.dir = dir

	if d.cfg.CacheDir != "" {
		if n := trimCache(d.cfg.CacheDir, time.Now()); n > 0 {
			d.logf("removed %d cache entries unused for %v", n, trimAge)
		}
	}
	ge, err := d.cachedGoEnv(ctx)
	if err != nil {
		return 1, err
	}
	ws, err := userWorkspace(ctx, d.cfg.GoCmd, d.dir, d.cfg.Env, ge)
	if err != nil {
		return 1, err
	}
	d.logf("modules %s, go %s", strings.Join(ws.Use, " "), ws.GoVersion)

	d.tmp, err = os.MkdirTemp("", "bigfoot-")
	if err != nil {
		return 1, fmt.Errorf("creating temporary directory: %w", err)
	}
	if d.inv.Work {
		fmt.Fprintf(d.cfg.Stderr, "BIGFOOT_WORK=%s\n", d.tmp)
	} else {
		defer os.RemoveAll(d.tmp)
	}
	// The runtime's patches, checked once per toolchain
	// (runtimecheck.go), decide what the instrumented code may rely on.
	d.runtimePkgDir, d.allocVersions = d.runtimePatchPlan(ctx, ge)
	d.hooks = d.runtimePkgDir != "" && runtimeHooked(ge.GOROOT)
	// The bigfoot_portable build turns the detector's standard-library
	// hooks off, and with them the edges package sync's Once carries.
	d.syncOnce = d.hooks && onceSpliced(ge) && !d.inv.hasTag(ge.GOFLAGS, "bigfoot_portable")
	// Package syscall announces I/O where the standard library is
	// instrumented: its goroutines and channels carry the edges that
	// calls of instrumented code announced as I/O where it is not (a
	// server's handlers after the call that starts serving).
	d.syscallIO = d.syncOnce && d.inv.Deps == ScopeAll && syscallSpliced(ge)

	// When the user's workspace is bigfoot's own module (our tests and
	// benchmark workloads), its detector package is the runtime: adding a
	// second module with the same path would make the workspace invalid.
	rtDir := ""
	if !usesModule(ws.Use, ModulePath) {
		rtDir, err = runtimeDir(d.cfg.Runtime, d.cfg.CacheDir, d.tmp)
		if err != nil {
			return 1, err
		}
		d.cacheUsed(rtDir)
		d.logf("runtime module in %s", rtDir)
	}
	d.userWork = ge.GOWORK
	work := filepath.Join(d.tmp, "go.work")
	if err := writeWorkspace(work, ws, rtDir, ge.GOWORK, nil); err != nil {
		return 1, err
	}
	d.env = setEnv(d.cfg.Env, "GOWORK", work)
	d.goflags = ge.GOFLAGS
	if flags, dropped := filterGOFLAGS(ge.GOFLAGS); len(dropped) > 0 {
		d.env = setEnv(d.env, "GOFLAGS", flags)
		d.goflags = flags
		d.inv.Dropped = append(d.inv.Dropped, dropped...)
	}
	d.loadFlags = withTag(d.inv.BuildFlags, d.goflags, "race")
	if len(d.inv.Dropped) > 0 {
		d.logf("ignoring %s: the build uses a temporary workspace (docs/build.md)", strings.Join(d.inv.Dropped, " "))
	}

	patterns := d.inv.Patterns
	if len(patterns) == 0 {
		patterns = []string{"."}
	}
	pl, planFile, lerr, err := d.cachedPlan(ctx, ws, rtDir, ge, patterns)
	if lerr != nil && d.analysis == nil {
		return d.plain(ctx, lerr)
	}
	if lerr != nil {
		return 1, lerr
	}
	if err != nil {
		return 1, err
	}
	if d.analysis != nil {
		*d.analysis = Analysis{Plan: pl.SitePlan, Files: pl.Files, Notes: pl.Notes}
		return 0, nil
	}
	d.printNotes(pl.Notes)
	// The main pass loaded in the workspace without the instrumented
	// copies: there, their imports of the runtime would make the runtime's
	// packages look like main-module packages to instrument.
	if len(pl.Replace) > 0 {
		if err := writeWorkspace(work, ws, rtDir, ge.GOWORK, pl.Replace); err != nil {
			return 1, err
		}
	}
	overlay, err := d.writePlanOverlay(pl, planFile, ge)
	if err != nil {
		return 1, err
	}
	d.logf("overlay %s", overlay)

	for _, e := range pl.Broken {
		d.logf("left to the go command: %s", e)
	}
	var code int
	if d.inv.Verb == "run" {
		code, err = d.buildAndRun(ctx, overlay, pl.CheckptrProved)
	} else {
		args := []string{d.inv.Verb, "-overlay", overlay}
		var tools string
		if tools, err = d.toolexecScript(overlay); err != nil {
			return 1, err
		}
		if tools != "" {
			args = append(args, "-toolexec="+tools)
		}
		args = append(args, d.inv.goArgs(d.goflags, pl.CheckptrProved)...)
		// The programs go test runs get the user's settings back (userenv.go).
		env := withUserEnv(d.env, d.cfg.Env, "GOWORK", "GOFLAGS")
		code, err = d.goCommand(ctx, env, args)
	}
	if code == 0 && err == nil && len(pl.Broken) > 0 {
		// The go command built what the instrumenter could not load:
		// those packages ran unchecked.
		return d.loadFailed(pl.Broken)
	}
	return code, err
}

// loadFailed prints the errors of packages the instrumenter could not
// load although the go command builds them, and returns exit status 2.
func (d *run) loadFailed(errs []string) (int, error) {
	for _, e := range errs {
		fmt.Fprintf(d.cfg.Stderr, "%s\n", e)
	}
	return 2, errors.New("the instrumenter could not load the packages, but the go command builds them")
}

// buildAndRun builds the program of bigfoot run and runs it, so that its
// exit status (66 after a race) is bigfoot's, which go run would turn into 1.
func (d *run) buildAndRun(ctx context.Context, overlay string, proved []string) (int, error) {
	name := strings.TrimSuffix(filepath.Base(d.inv.Patterns[0]), ".go")
	if name == "." || name == string(filepath.Separator) || name == "" {
		name = filepath.Base(d.dir)
	}
	exe := filepath.Join(d.tmp, "exe", name)
	args := append([]string{"build", "-overlay", overlay, "-o", exe}, d.inv.goArgs(d.goflags, proved)...)
	if code, err := d.goCommand(ctx, d.env, args); code != 0 || err != nil {
		return code, err
	}
	if d.hasGoFlag("n") {
		return 0, nil
	}
	argv := append(append(append([]string{}, d.inv.Exec...), exe), d.inv.ProgArgs...)
	// The program gets the user's environment, not the workspace's.
	return d.command(ctx, d.cfg.Env, argv)
}

// plain runs the go command without instrumentation after the instrumenter
// could not load the packages, so that the compiler reports the errors in its
// own words. Nothing is run and nothing is written outside the temporary
// directory: build and run compile into it, test compiles the test binaries
// with -c into it.
func (d *run) plain(ctx context.Context, lerr *LoadError) (int, error) {
	d.logf("packages do not load; running the plain go command for its errors")
	out := filepath.Join(d.tmp, "plain") + string(filepath.Separator)
	if err := os.MkdirAll(out, 0o777); err != nil {
		return 1, err
	}
	verb := "build"
	args := []string{}
	if d.inv.Verb == "test" {
		verb = "test"
		args = append(args, "-c")
	}
	args = append(append([]string{verb}, args...), "-o", out)
	args = append(args, d.inv.plainArgs()...)
	code, err := d.goCommand(ctx, d.cfg.Env, args)
	if err != nil || code != 0 {
		return code, err
	}
	return d.loadFailed(lerr.Errors)
}

// printNotes prints the instrumenter's notes once each with -bfv, and
// nothing without: bigfoot prints what go test -race would, no more.
func (d *run) printNotes(notes []string) {
	if !d.inv.Verbose {
		return
	}
	seen := map[string]bool{}
	for _, note := range notes {
		if !seen[note] {
			seen[note] = true
			fmt.Fprintf(d.cfg.Stderr, "bigfoot: %s\n", note)
		}
	}
}

// hasGoFlag reports whether the boolean go flag -name is among the go args.
func (d *run) hasGoFlag(name string) bool {
	for _, a := range d.inv.GoArgs {
		if n, v, hasVal, ok := splitFlag(a); ok && n == name && (!hasVal || v == "true") {
			return true
		}
	}
	return false
}
