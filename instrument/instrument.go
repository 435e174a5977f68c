// Package instrument is the source instrumenter of bigfoot: it loads the
// packages of the user's main module with go/packages, decides with go/types
// and go/ssa which expressions touch shared memory and which calls
// synchronize, and emits instrumented Go source that calls the runtime in
// github.com/bigfoot-go/bigfoot/detector (imported as __bf; see docs/api.md).
//
// The result is an overlay: the ordinary go command compiles the rewritten
// files in place of the originals. Every rewrite is a textual edit of the
// original file: nodes that need no change are copied byte for byte, and no
// edit adds or removes a newline before the end of the file, so compiler
// directives stay attached to their declarations and every position a
// compiler error, panic or race report names is the user's own line.
//
// The mode implemented is "fasttrack": a check at every shared-memory
// access, placed at the access itself by wrapping its address,
//
//	x.f          ->  (*__bf.R(__bfg, &x.f, __bfS_1a2b+3))
//	x.f = v      ->  *__bf.W(__bfg, &x.f, __bfS_1a2b+4) = v
//
// plus a hook at every synchronization operation. The other modes
// (package mode) leave out the wrappers that placement's RedCard plans
// make redundant (redcard.go), group fields (group.go), defer element
// accesses in loops into footprints (footprint.go) and leave the static
// safe class unchecked, as their Mode's methods say. Whatever cannot be
// instrumented safely is left as it was and reported in Result.Notes: a
// bigfoot build must never fail where the plain build succeeds.
package instrument

import (
	"context"
	"strings"

	"github.com/bigfoot-go/bigfoot"
	"github.com/bigfoot-go/bigfoot/mode"
	"github.com/bigfoot-go/bigfoot/placement"
)

// Config says what to instrument.
type Config struct {
	Dir        string    // directory to run the load in (inside the user's module)
	Patterns   []string  // package patterns, as for go build
	Tests      bool      // include _test.go files and external test packages (bigfoot test)
	BuildFlags []string  // flags that affect loading (-tags, -mod, ...), passed to go/packages
	Env        []string  // environment for go/packages (nil = os.Environ())
	Mode       mode.Mode // what to emit (docs/instrument.md, "Modes"); the zero value is fasttrack
	// Std instruments the standard-library packages named by Patterns
	// instead of main-module packages. The output imports the runtime
	// like any other; the driver turns those references into
	// package-local hooks (docs/build.md), since a standard-library
	// package cannot import a module.
	Std bool
	// Facts are the effect summaries of packages instrumented by earlier
	// runs (Result.Facts of the standard library's and the dependencies'
	// runs), for calls into them from the packages of this run.
	Facts [][]byte
	// RuntimeHooks says the runtime runs the detector's exit processing
	// when main.main returns and at os.Exit (driver/exithook.go): then
	// main.main is not wrapped and test packages get no generated
	// TestMain, so that no frame of bigfoot's is in the program's stacks.
	RuntimeHooks bool
	// SyncOnce says the build's package sync orders Once.Do's callers
	// after its function itself (the driver's splices of once.go): calls
	// of Once.Do, OnceFunc, OnceValue and OnceValues then get no hook,
	// whose wrapper of the function would be a frame of bigfoot's in the
	// function's stack.
	SyncOnce bool
	// SyscallIO says the build's package syscall announces I/O where go
	// -race's does (the driver's splices of syscall_unix.go: a Read or
	// Pread that succeeded acquires, a Write, Pwrite or Sendfile
	// releases, one sync object for all I/O): calls that do I/O then get
	// no hook at the call site, which ordered more (an open, a stat, a
	// close; docs/runtime.md, "I/O").
	SyscallIO bool
	// ListDriver is an executable that serves the loads as go/packages'
	// driver (ServeListDriver: bigfoot's own binary), so that go list
	// does not compile the packages to instrument for export data; ""
	// loads through go list directly.
	ListDriver string
	// Graph is the import graph of Patterns, if the caller listed it
	// already with the same flags and environment (go list -deps -json,
	// with -test if Tests): the load then does not list it again.
	Graph []ListedPackage
}

// Result is the instrumented program as an overlay.
type Result struct {
	Replace map[string][]byte // absolute path of an existing source file -> instrumented content
	Add     map[string][]byte // absolute path of a NEW file in an existing package dir -> content
	Notes   []string          // human-readable notes: files left uninstrumented and why, fallbacks
	// Broken are the errors of the packages left uninstrumented because
	// they do not type-check: the go command reports them.
	Broken []string
	// Facts maps the import path of each package this run summarized
	// (modes with plans, test variants left out) to its effect
	// summaries, encoded for Config.Facts of the runs that import it.
	Facts map[string][]byte
	// PointerChecksPass are the import paths of the standard-library
	// packages of a Config.Std run whose pointer checks provably pass
	// (pointerChecksPass): the driver compiles them without -d=checkptr
	// when their imports are too.
	PointerChecksPass []string
	// Plan is placement's decisions on the sites of the instrumented
	// files (of the standard library: static ranges only), with what
	// this run rendered and refused (placement.SitePlan), in file and
	// position order.
	Plan placement.SiteReport
}

// LoadError is returned when packages do not load or type-check (other than
// the expected undefined runtime.RaceXxx). The driver then runs the plain go
// command so the user sees the compiler's own errors.
type LoadError struct{ Errors []string }

func (e *LoadError) Error() string {
	if len(e.Errors) == 1 {
		return "bigfoot: loading packages: " + e.Errors[0]
	}
	return "bigfoot: loading packages: " + e.Errors[0] + " (and more)"
}

// RuntimePath is the import path of the runtime emitted code calls.
const RuntimePath = bigfoot.ModulePath + "/detector"

// Run loads the packages (go/packages, with tests when cfg.Tests),
// instruments every package of the main module (pkg.Module != nil &&
// pkg.Module.Main), and returns the overlay. Packages outside the main
// module are left alone.
func Run(ctx context.Context, cfg Config) (*Result, error) {
	if !cfg.Mode.Valid() {
		return nil, &modeError{cfg.Mode}
	}
	pkgs, runtimePkgs, broken, err := load(ctx, cfg)
	if err != nil {
		return nil, err
	}
	count, verify := hasBuildTag(cfg.BuildFlags, "bigfoot_count"), hasBuildTag(cfg.BuildFlags, "bigfoot_verify")
	// The verifier checks that every announced access is covered by a
	// check: the static safe class, never checked by design, is
	// announced only for counting.
	imported, err := decodeFacts(cfg.Facts)
	if err != nil {
		return nil, err
	}
	res := instrumentPackages(pkgs, cfg.Mode, recording{elided: count || verify, safe: count && !verify}, cfg.Std, built{runtimeHooks: cfg.RuntimeHooks, syncOnce: cfg.SyncOnce, syscallIO: cfg.SyscallIO}, imported)
	linkRuntimeTests(runtimePkgs, res)
	res.Broken = broken
	return res, nil
}

// hasBuildTag reports whether the build flags set the build tag.
func hasBuildTag(flags []string, tag string) bool {
	for i, f := range flags {
		var list string
		switch {
		case strings.HasPrefix(f, "-tags=") || strings.HasPrefix(f, "--tags="):
			_, list, _ = strings.Cut(f, "=")
		case (f == "-tags" || f == "--tags") && i+1 < len(flags):
			list = flags[i+1]
		default:
			continue
		}
		for _, t := range strings.FieldsFunc(list, func(r rune) bool { return r == ',' || r == ' ' }) {
			if t == tag {
				return true
			}
		}
	}
	return false
}

type modeError struct{ mode mode.Mode }

func (e *modeError) Error() string { return "bigfoot: unknown mode " + e.mode.String() }
