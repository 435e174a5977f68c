// Corpus runs the test suites of the corpus's real modules under go test
// -race and bigfoot test and checks that bigfoot is a drop-in on them: the
// same packages build, the same pass, no race is reported by bigfoot
// alone, and no suite takes more than three times go -race's wall time.
// It exits with status 1 if any of that fails. See docs/corpus.md.
//
// With -eachtest it runs every top-level test of every package in a
// process of its own, bounded by -timeout (default 10m) each, under
// bigfoot (go -race only for the tests that fail or hit the bound), so
// that a suite too long for one bound still gets a verdict per test; with
// -tags bigfoot_verify it exits with status 1 on any violation the
// verifier prints.
//
// Usage:
//
//	go run ./corpus/cmd/corpus [-bigfoot bin/bigfoot] [-modules file] [-only substrings] [-runs N] [-o dir] [-tags tags] [-tools race,bigfoot] [-prime=false] [-timeout d]
//	go run ./corpus/cmd/corpus -eachtest [-bigfoot bin/bigfoot] [-modules file] [-only substrings] [-o dir] [-tags tags] [-timeout d] [-short] [-pkg regexp] [-run regexp]
//	go run ./corpus/cmd/corpus -merge a/report.json,b/report.json [-o dir]
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"regexp"
	"strings"
	"syscall"

	"github.com/bigfoot-go/bigfoot/corpus"
)

func main() {
	bigfoot := flag.String("bigfoot", "bin/bigfoot", "the bigfoot `command` to test with")
	modules := flag.String("modules", "", "the module list `file` (default: corpus/modules.txt as built in)")
	only := flag.String("only", "", "run only the modules whose path contains one of these comma-separated `substrings`")
	runs := flag.Int("runs", 1, "runs per tool and module, interleaved")
	out := flag.String("o", "corpus-results", "write results.md, report.json and each run's output (logs/) to `dir`")
	tags := flag.String("tags", "", "build `tags` for both tools (bigfoot_verify: the precise-checks verifier)")
	tools := flag.String("tools", "race,bigfoot", "comma-separated `tools` to run each suite under")
	prime := flag.Bool("prime", true, "before a module's timed runs, build a copy of it under each tool, untimed, so that the runs find the standard library and the dependencies in the tools' caches")
	timeout := flag.Duration("timeout", 0, "bound on each run of a suite (default 20m), or with -eachtest on each test (default 10m)")
	eachTest := flag.Bool("eachtest", false, "run each top-level test in a process of its own, under bigfoot, and under go -race where bigfoot's fails or hits the bound")
	short := flag.Bool("short", false, "with -eachtest: run the tests with -test.short")
	run := flag.String("run", "", "with -eachtest: run only the top-level tests whose names match this `regexp`")
	pkgs := flag.String("pkg", "", "with -eachtest: test only the packages whose import paths match this `regexp`")
	merge := flag.String("merge", "", "run nothing: read these comma-separated report.json `files`, compare their modules again and report them as one")
	flag.Parse()
	if flag.NArg() > 0 {
		flag.Usage()
		os.Exit(2)
	}
	command := strings.Join(append([]string{"go run ./corpus/cmd/corpus"}, os.Args[1:]...), " ")
	if *merge != "" {
		rep, err := corpus.ReadReports(strings.Split(*merge, ","), command)
		if err != nil {
			fatal(err)
		}
		finish(rep, *out, nil)
		return
	}
	ms := corpus.Modules()
	if *modules != "" {
		f, err := os.Open(*modules)
		if err != nil {
			fatal(err)
		}
		ms, err = corpus.ParseModules(f)
		f.Close()
		if err != nil {
			fatal(fmt.Errorf("%s: %v", *modules, err))
		}
	}
	ms = corpus.Select(ms, *only)
	if len(ms) == 0 {
		fatal(fmt.Errorf("no module matches -only %q", *only))
	}
	// Interrupted or terminated, the runner kills the suite's whole
	// process group and removes its temporary directory before it exits.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if *eachTest {
		rep, err := corpus.RunEachTest(ctx, corpus.EachTestOptions{
			Run:      compile("-run", *run),
			Packages: compile("-pkg", *pkgs),
			Modules:  ms,
			Bigfoot:  *bigfoot,
			Tags:     *tags,
			Bound:    *timeout,
			Short:    *short,
			OutDir:   *out,
			Progress: os.Stderr,
			Command:  command,
			Commit:   commit(),
		})
		if rep == nil {
			fatal(err)
		}
		finish(rep, *out, err)
		return
	}
	opts := corpus.Options{
		Modules:  ms,
		Tools:    strings.Split(*tools, ","),
		Runs:     *runs,
		Bigfoot:  *bigfoot,
		Tags:     *tags,
		Prime:    *prime,
		Timeout:  *timeout,
		OutDir:   *out,
		Progress: os.Stderr,
		Command:  command,
		Commit:   commit(),
	}
	rep, err := corpus.Run(ctx, opts)
	if rep == nil {
		fatal(err)
	}
	finish(rep, *out, err)
}

// report is what both kinds of run produce.
type report interface {
	WriteFiles(dir string) error
	Markdown(w io.Writer) error
	Err() error
}

// finish writes the report into out and on standard output, and exits
// with status 2 if err is set, 1 if an acceptance condition failed. The
// runs return a report with every error but one that stops them before
// they start, which is fatal before finish.
func finish(rep report, out string, err error) {
	if werr := rep.WriteFiles(out); werr != nil && err == nil {
		err = werr
	}
	rep.Markdown(os.Stdout)
	if err != nil {
		fatal(err)
	}
	if err := rep.Err(); err != nil {
		fmt.Fprintf(os.Stderr, "corpus: %v\n", err)
		os.Exit(1)
	}
}

// commit returns the commit of the working tree, or "" outside git.
func commit() string {
	out, err := exec.Command("git", "rev-parse", "--short", "HEAD").Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

// compile returns the regular expression expr of the flag name, nil if
// expr is empty.
func compile(name, expr string) *regexp.Regexp {
	if expr == "" {
		return nil
	}
	re, err := regexp.Compile(expr)
	if err != nil {
		fatal(fmt.Errorf("%s: %v", name, err))
	}
	return re
}

func fatal(err error) {
	fmt.Fprintf(os.Stderr, "corpus: %v\n", err)
	os.Exit(2)
}
