package driver

import (
	"fmt"
	"strings"

	"github.com/bigfoot-go/bigfoot/mode"
)

// A Scope says which packages are instrumented (-deps).
type Scope string

const (
	// ScopeMain instruments the main module(s) only.
	ScopeMain Scope = "main"
	// ScopeModules also instruments the dependency modules.
	ScopeModules Scope = "modules"
	// ScopeAll also instruments the dependency modules and the standard
	// library, except the packages listed in docs/build.md.
	ScopeAll Scope = "all"
)

// Scopes lists the values -deps accepts.
var Scopes = []Scope{ScopeMain, ScopeModules, ScopeAll}

// DefaultScope is the -deps value when the flag is not given: every
// package go -race instruments that bigfoot can (docs/build.md lists the
// standard-library packages it leaves out, and why).
var DefaultScope = ScopeAll

// An Invocation is one parsed command line of bigfoot build, test or run.
//
// Bigfoot's own flags are removed; every other argument is kept verbatim in
// GoArgs, in order, to be handed to the go command.
type Invocation struct {
	Verb    string    // "build", "test" or "run"
	Mode    mode.Mode // -mode
	Deps    Scope     // -deps
	Work    bool      // -work: keep the temporary directory and print its path
	Verbose bool      // -bfv: print bigfoot's steps and all instrumenter notes
	Dir     string    // -C dir, consumed here: the directory everything runs in

	// GoArgs are the arguments for the go command, after the verb:
	// flags, packages, and for test the flags after the packages and
	// -args; for run they stop before the program's arguments.
	GoArgs []string
	// Patterns are the package patterns (or .go files) among GoArgs.
	Patterns []string
	// BuildFlags are the flags among GoArgs that affect package loading.
	BuildFlags []string
	// ProgArgs are, for run, the arguments of the program.
	ProgArgs []string
	// Exec is the -exec program of run (split into words), if any.
	Exec []string
	// Output is the value of -o, if any.
	Output string
	// X reports whether -x was given (print commands).
	X bool
	// GoWork reports whether the go command's own -work flag was given.
	GoWork bool
	// Dropped lists go flags removed because the workspace build cannot
	// honour them (-mod=mod, -mod=vendor); see docs/build.md.
	Dropped []string

	buildArgs []string // the go build flags among GoArgs, with their values
	tagsArg   int      // 1 + the index in GoArgs of the last -tags flag's value; 0 if none
}

// plainArgs returns the build flags and packages of inv, without test
// flags: the arguments of a plain compile.
func (inv *Invocation) plainArgs() []string {
	return append(append([]string{}, inv.buildArgs...), inv.Patterns...)
}

// flagKind describes how a go command flag takes its value.
type flagKind int

const (
	boolFlag  flagKind = iota // -f or -f=true|false
	valueFlag                 // -f v or -f=v
)

// buildFlags are the flags shared by build, test and run (go help build).
var buildFlags = map[string]flagKind{
	"a": boolFlag, "n": boolFlag, "v": boolFlag, "x": boolFlag, "work": boolFlag,
	"race": boolFlag, "msan": boolFlag, "asan": boolFlag, "cover": boolFlag,
	"trimpath": boolFlag, "linkshared": boolFlag, "modcacherw": boolFlag,
	"buildvcs": boolFlag, "json": boolFlag,
	"p": valueFlag, "covermode": valueFlag, "coverpkg": valueFlag,
	"asmflags": valueFlag, "buildmode": valueFlag, "compiler": valueFlag,
	"gccgoflags": valueFlag, "gcflags": valueFlag, "installsuffix": valueFlag,
	"ldflags": valueFlag, "mod": valueFlag, "modfile": valueFlag,
	"overlay": valueFlag, "pgo": valueFlag, "pkgdir": valueFlag,
	"tags": valueFlag, "toolexec": valueFlag,
	"debug-actiongraph": valueFlag, "debug-runtime-trace": valueFlag,
	"debug-trace": valueFlag,
}

// verbFlags are the flags particular to one verb.
var verbFlags = map[string]map[string]flagKind{
	"build": {"o": valueFlag},
	"run":   {"exec": valueFlag},
	// go help test and go help testflag.
	"test": {
		"c": boolFlag, "o": valueFlag, "exec": valueFlag, "i": boolFlag,
		"artifacts": boolFlag, "benchmem": boolFlag, "failfast": boolFlag,
		"fullpath": boolFlag, "short": boolFlag,
		"bench": valueFlag, "benchtime": valueFlag, "count": valueFlag,
		"cpu": valueFlag, "fuzz": valueFlag, "fuzztime": valueFlag,
		"fuzzminimizetime": valueFlag, "list": valueFlag, "outputdir": valueFlag,
		"parallel": valueFlag, "run": valueFlag, "shuffle": valueFlag,
		"skip": valueFlag, "timeout": valueFlag, "vet": valueFlag,
		"blockprofile": valueFlag, "blockprofilerate": valueFlag,
		"coverprofile": valueFlag, "cpuprofile": valueFlag,
		"memprofile": valueFlag, "memprofilerate": valueFlag,
		"mutexprofile": valueFlag, "mutexprofilefraction": valueFlag,
		"trace": valueFlag,
	},
}

// loadFlags are the go flags that change which files make up a package;
// they are passed to the instrumenter's load.
var loadFlags = map[string]bool{"tags": true, "mod": true}

// A UsageError is a malformed command line; the CLI exits with status 2.
type UsageError struct{ Msg string }

func (e *UsageError) Error() string { return e.Msg }

func usagef(format string, args ...any) error {
	return &UsageError{Msg: fmt.Sprintf(format, args...)}
}

// splitFlag splits a command-line flag "-name=value" or "--name" into its
// name and value. ok is false when arg is not a flag.
func splitFlag(arg string) (name, value string, hasValue, ok bool) {
	if len(arg) < 2 || arg[0] != '-' || arg == "--" {
		return "", "", false, false
	}
	name = strings.TrimPrefix(arg[1:], "-")
	if i := strings.IndexByte(name, '='); i >= 0 {
		return name[:i], name[i+1:], true, true
	}
	return name, "", false, true
}

// ParseArgs parses the arguments of bigfoot VERB (those after the verb).
//
// It recognizes bigfoot's own flags (-mode, -deps, -work, -bfv) anywhere before
// the packages (and, for test, anywhere before -args), and knows which go
// flags take a value, so that it can tell where the packages start.
func ParseArgs(verb string, args []string) (*Invocation, error) {
	vf, ok := verbFlags[verb]
	if !ok {
		return nil, usagef("unknown command %q", verb)
	}
	inv := &Invocation{Verb: verb, Mode: mode.Default, Deps: DefaultScope}
	kind := func(name string) (flagKind, bool) {
		if k, ok := vf[name]; ok {
			return k, true
		}
		k, ok := buildFlags[name]
		return k, ok
	}

	// -C must come first, as for the go command.
	if len(args) > 0 {
		if name, val, hasVal, ok := splitFlag(args[0]); ok && name == "C" {
			if !hasVal {
				if len(args) < 2 {
					return nil, usagef("flag needs an argument: -C")
				}
				val, args = args[1], args[1:]
			}
			inv.Dir = val
			args = args[1:]
		}
	}

	sawPackages := false // a run of non-flag arguments has been seen
	inPackages := false  // we are in that run
	for i := 0; i < len(args); i++ {
		arg := args[i]
		name, val, hasVal, isFlag := splitFlag(arg)
		if !isFlag {
			if verb == "run" {
				// go run [flags] package|files.go... [arguments]
				j := i
				if strings.HasSuffix(arg, ".go") {
					for j < len(args) && strings.HasSuffix(args[j], ".go") && !strings.HasPrefix(args[j], "-") {
						j++
					}
				} else {
					j = i + 1
				}
				inv.Patterns = append(inv.Patterns, args[i:j]...)
				inv.GoArgs = append(inv.GoArgs, args[i:j]...)
				inv.ProgArgs = append([]string{}, args[j:]...)
				return inv, inv.check()
			}
			if verb == "test" && sawPackages && !inPackages {
				// After the package list, a non-flag argument and everything
				// after it go to the test binary.
				inv.GoArgs = append(inv.GoArgs, args[i:]...)
				break
			}
			sawPackages, inPackages = true, true
			inv.Patterns = append(inv.Patterns, arg)
			inv.GoArgs = append(inv.GoArgs, arg)
			continue
		}
		inPackages = false
		if verb == "build" && sawPackages {
			// go build stops parsing flags at the first package; let it
			// report the misplaced flag.
			inv.GoArgs = append(inv.GoArgs, args[i:]...)
			break
		}
		if name == "args" {
			inv.GoArgs = append(inv.GoArgs, args[i:]...)
			break
		}

		// bigfoot's own flags.
		switch name {
		case "mode":
			if !hasVal {
				if i+1 >= len(args) {
					return nil, usagef("flag needs an argument: -mode")
				}
				i++
				val = args[i]
			}
			if err := inv.Mode.Set(val); err != nil {
				return nil, usagef("invalid -mode %q: want one of %s", val, mode.Names())
			}
			continue
		case "deps":
			if !hasVal {
				if i+1 >= len(args) {
					return nil, usagef("flag needs an argument: -deps")
				}
				i++
				val = args[i]
			}
			inv.Deps = Scope(val)
			continue
		case "bfv":
			inv.Verbose = !hasVal || val == "true" || val == "1"
			continue
		case "race":
			return nil, usagef("bigfoot replaces -race: drop the flag (the binary is race-checked by bigfoot)")
		case "h", "help":
			return nil, errHelp
		}

		k, known := kind(name)
		if !known {
			if verb == "test" {
				// A test binary flag (go help testflag); passed through.
				inv.GoArgs = append(inv.GoArgs, arg)
				continue
			}
			return nil, usagef("flag provided but not defined: -%s", name)
		}
		start := i
		if k == valueFlag && !hasVal {
			if i+1 >= len(args) {
				return nil, usagef("flag needs an argument: -%s", name)
			}
			i++
			val = args[i]
		}
		switch name {
		case "work":
			// Keep our directory too, and let the go command keep its own.
			inv.Work = true
			inv.GoWork = true
		case "x":
			inv.X = !hasVal || val == "true"
		case "o":
			inv.Output = val
		case "exec":
			if verb == "run" {
				inv.Exec = strings.Fields(val)
				continue // bigfoot run executes the program itself
			}
		case "modfile":
			return nil, usagef("bigfoot: -modfile is not supported: the build uses a temporary workspace, and the go command does not allow -modfile there")
		case "overlay":
			return nil, usagef("bigfoot: -overlay is not supported: bigfoot passes its own overlay to the go command")
		case "mod":
			// Workspace mode accepts only -mod=readonly; see docs/build.md.
			if val != "readonly" {
				inv.Dropped = append(inv.Dropped, "-mod="+val)
				continue
			}
		}
		if name == "gcflags" {
			// One argument, for withCheckptr.
			inv.GoArgs = append(inv.GoArgs, "-gcflags="+val)
		} else {
			inv.GoArgs = append(inv.GoArgs, args[start:i+1]...)
		}
		if name == "tags" {
			inv.tagsArg = len(inv.GoArgs)
		}
		if _, ok := buildFlags[name]; ok {
			inv.buildArgs = append(inv.buildArgs, args[start:i+1]...)
		}
		if loadFlags[name] {
			inv.BuildFlags = append(inv.BuildFlags, "-"+name+"="+val)
		}
	}
	return inv, inv.check()
}

// check validates the parsed invocation.
func (inv *Invocation) check() error {
	if !validScope(inv.Deps) {
		return usagef("invalid -deps %q: want one of main, modules, all", inv.Deps)
	}
	if inv.Verb == "run" && len(inv.Patterns) == 0 {
		return usagef("go: no go files listed")
	}
	return nil
}

// validScope reports whether s is one of Scopes.
func validScope(s Scope) bool {
	for _, x := range Scopes {
		if x == s {
			return true
		}
	}
	return false
}

// errHelp is returned by ParseArgs for -h and -help.
var errHelp = &UsageError{Msg: "help requested"}

// IsHelp reports whether err asks for the verb's usage text.
func IsHelp(err error) bool { return err == errHelp }
