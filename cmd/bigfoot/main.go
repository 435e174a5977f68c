// Bigfoot is a data-race detector for Go: a drop-in for go build, go test
// and go run with -race, whose race checks are inserted into the source.
//
// Usage:
//
//	bigfoot build [-mode mode] [-deps scope] [-work] [-bfv] [build flags] [packages]
//	bigfoot test  [-mode mode] [-deps scope] [-work] [-bfv] [build/test flags] [packages] [build/test flags & test binary flags]
//	bigfoot run   [-mode mode] [-deps scope] [-work] [-bfv] [build flags] [-exec xprog] package [arguments...]
//	bigfoot analyze [-json] [-html dir] [packages]
//	bigfoot bench [-runs N] [-short] [-peer] [-modes list] [-o dir] [workloads]
//	bigfoot bench -suites [-runs N] [-o dir] [modules]
//	bigfoot version
//	bigfoot help [command]
//
// Run "bigfoot help" for the details.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/bigfoot-go/bigfoot"
	"github.com/bigfoot-go/bigfoot/driver"
)

func main() {
	serveListDriver()
	stop := startProfiles(os.Stderr)
	code := bigfootMain(context.Background(), os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// bigfootMain runs the command line args and returns the exit status.
func bigfootMain(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, mainUsage)
		return 2
	}
	verb, args := args[0], args[1:]
	switch verb {
	case "help", "-h", "-help", "--help":
		return help(args, stdout, stderr)
	case "version":
		fmt.Fprintln(stdout, version())
		return 0
	case "bench":
		return benchMain(ctx, args, stdout, stderr)
	case "analyze":
		return analyzeMain(ctx, args, stdout, stderr)
	case driver.VetToolVerb:
		if len(args) < 2 {
			return 2
		}
		return driver.VetTool(args[1], args[0], args[2:], stdout, stderr)
	case driver.EmbedToolVerb:
		if len(args) < 2 {
			return 2
		}
		return driver.EmbedTool(args[1], args[0], args[2:], stdout, stderr)
	case "build", "test", "run":
	default:
		fmt.Fprintf(stderr, "bigfoot %s: unknown command\nRun 'bigfoot help' for usage.\n", verb)
		return 2
	}

	inv, err := driver.ParseArgs(verb, args)
	if driver.IsHelp(err) {
		fmt.Fprint(stdout, verbUsage[verb])
		return 0
	}
	if err != nil {
		fmt.Fprintf(stderr, "bigfoot %s: %v\nRun 'bigfoot help %s' for usage.\n", verb, err, verb)
		return 2
	}
	cfg := &driver.Config{
		Runtime:    bigfoot.Runtime(),
		Instrument: instrumentFiles,
		Self:       self(),
		Stdin:      stdin,
		Stdout:     stdout,
		Stderr:     stderr,
	}
	code, err := driver.Run(ctx, cfg, inv)
	if err != nil {
		fmt.Fprintf(stderr, "bigfoot: %v\n", err)
		if code == 0 {
			code = 1
		}
	}
	return code
}

// help prints the usage of bigfoot or of one command.
func help(args []string, stdout, stderr io.Writer) int {
	switch {
	case len(args) == 0:
		fmt.Fprint(stdout, mainUsage)
		return 0
	case len(args) == 1 && args[0] == "analyze":
		fmt.Fprint(stdout, analyzeUsage)
		return 0
	case len(args) == 1 && args[0] == "bench":
		fmt.Fprintf(stdout, benchUsage, strings.Join(workloadNames(), ", "))
		return 0
	case len(args) == 1 && verbUsage[args[0]] != "":
		fmt.Fprint(stdout, verbUsage[args[0]])
		return 0
	}
	fmt.Fprintf(stderr, "bigfoot help %s: unknown help topic. Run 'bigfoot help'.\n", args[0])
	return 2
}

// version describes this binary: bigfoot's module version, the Go it was
// built with and the platform.
func version() string {
	v := "(devel)"
	if bi, ok := debug.ReadBuildInfo(); ok {
		if bi.Main.Version != "" {
			v = bi.Main.Version
		}
		for _, s := range bi.Settings {
			if s.Key == "vcs.revision" && v == "(devel)" {
				v += " " + s.Value
			}
		}
	}
	return fmt.Sprintf("bigfoot version %s %s %s/%s", v, runtime.Version(), runtime.GOOS, runtime.GOARCH)
}

// self returns the absolute name of bigfoot's executable, or "" if it
// cannot be found.
func self() string {
	exe, err := os.Executable()
	if err != nil {
		return ""
	}
	return exe
}
