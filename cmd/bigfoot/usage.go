package main

const mainUsage = `Bigfoot is a data-race detector for Go: a drop-in for go build, go test and
go run with -race, whose race checks are inserted into the source.

Usage:

	bigfoot <command> [arguments]

The commands are:

	build       compile packages and dependencies, race-checked
	test        test packages, race-checked
	run         compile and run a Go program, race-checked
	analyze     show where checks go, per function (text, JSON, HTML)
	bench       compare bigfoot's modes with go -race on the bench workloads
	version     print bigfoot's version
	help        print this text, or a command's

Use "bigfoot help <command>" for more information about a command.
`

// commonFlags is the part of each command's help about bigfoot's own flags.
const commonFlags = `
Bigfoot's own flags may appear anywhere before the packages (for test, also
after them, before -args); every other flag is passed to the go command
verbatim:

	-mode mode
		how checks are placed:
		bigfoot     static placement, coalescing, compressed shadow (default)
		fasttrack   one check at every shared-memory access (the baseline)
		redcard     redundant checks removed, no motion
		slimstate   every access; element accesses in loops deferred
		            into footprints coalesced at run time
	-deps scope
		which packages get race checks, in the same mode:
		main        your module (or workspace) only
		modules     also the dependency modules (instrumented copies
		            cached per module version, mode and bigfoot binary)
		all         also the standard library, except the packages
		            listed in docs/build.md (the default; rewritten once
		            per toolchain, mode and bigfoot binary, and cached)
	-work
		print the temporary directory (the runtime module, go.work, the
		overlay and the instrumented files) and keep it; the go command's
		own -work is passed on as well.
	-bfv
		print bigfoot's steps and every note of the instrumenter.

-race is refused: bigfoot replaces it. -mod=mod and -mod=vendor are ignored
(with -bfv, a note says so) and -modfile and -overlay are refused, because
the build runs in a temporary workspace that adds the runtime module beside
yours; see docs/build.md. Your module's files, go.mod and go.sum are never
written.

The race-checked binary reports races in the format of Go's race detector
and exits with status 66 if it saw any; options come from the environment
variable BIGFOOT_OPTIONS, in the style of GORACE: space-separated key=value
pairs exitcode=66, halt_on_error=0, log_path=, stats=0, dedup=1.

Exit status: that of the go command (for run, that of the program); 2 for a
malformed command line.
`

var verbUsage = map[string]string{
	"build": `usage: bigfoot build [-mode mode] [-deps scope] [-work] [-bfv] [build flags] [packages]

Build compiles the packages named by the import paths, like go build, with
race checks in every package of your module (or workspace) and, as -deps
says, of its dependencies and the standard library. Synchronization (sync,
sync/atomic, channels) is modelled where instrumented code performs it.

The build flags are those of go build (see 'go help build'): -o, -v, -x,
-a, -n, -p, -tags, -ldflags, -gcflags, -trimpath, -buildmode, -cover, ...
` + commonFlags,

	"test": `usage: bigfoot test [-mode mode] [-deps scope] [-work] [-bfv] [build/test flags] [packages] [build/test flags & test binary flags]

Test runs the tests of the packages like go test -race: the packages, their
tests and external test packages are race-checked, and a test during which
a race is reported fails with "race detected during execution of test".

Every flag of go test is accepted and passed on (see 'go help test' and
'go help testflag'): -run, -skip, -count, -v, -json, -short, -timeout,
-bench, -benchmem, -cover, -coverprofile, -c, -o, -exec, -failfast,
-shuffle, -parallel, -cpu, ..., and -args with the test binary's arguments.
` + commonFlags,

	"run": `usage: bigfoot run [-mode mode] [-deps scope] [-work] [-bfv] [build flags] [-exec xprog] package [arguments...]

Run compiles the named main package (or the listed .go files) race-checked
and runs it with the arguments. Unlike go run, bigfoot run exits with the
program's own exit status, so a program that saw races exits with 66.
With -exec xprog, the program is run as 'xprog a.out arguments...'.

The build flags are those of go build (see 'go help build').
` + commonFlags,
}
