package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"golang.org/x/mod/module"
	modzip "golang.org/x/mod/zip"
)

// These tests run one module under go test -race and bigfoot test and
// compare what the user sees: the exit status, standard output and
// standard error, with durations removed. bigfoot test is the same build
// as go test -race (docs/build.md, "The same build as go -race").

// durations matches the times go test prints ("0.012s", "(0.00s)") and the
// "(cached)" that stands for one.
var durations = regexp.MustCompile(`\s*(\(\d+\.\d+s\)|\d+\.\d+s|\(cached\))`)

// normalize removes durations from go test's output.
func normalize(s string) string {
	return durations.ReplaceAllString(s, "")
}

// sameAsGoRace runs go test -race and bigfoot test with args in dir and
// fails the test unless both exit with the same status and print the same
// output. It returns go test -race's normalized standard output.
func sameAsGoRace(t *testing.T, dir string, env []string, args ...string) string {
	t.Helper()
	if bigfootBin == "" {
		t.Skip("end-to-end test; skipped with -short")
	}
	want := run(t, dir, env, "go", append([]string{"test", "-race"}, args...)...)
	got := run(t, dir, env, bigfootBin, append([]string{"test"}, args...)...)
	want.stdout, want.stderr = normalize(want.stdout), normalize(want.stderr)
	got.stdout, got.stderr = normalize(got.stdout), normalize(got.stderr)
	if got != want {
		t.Errorf("bigfoot test %s differs from go test -race\nbigfoot:\n%v\ngo test -race:\n%v", strings.Join(args, " "), got, want)
	}
	return want.stdout
}

// TestSameGODEBUG: the default GODEBUG of a test binary is the one go test
// computes from the main module's go line and godebug lines, not the
// toolchain's (bigfoot's go.work has the toolchain's go line). In a go 1.17
// module, rand.Seed seeds the global source (randseednop=0); the module's
// godebug line panicnil=0 wins over its go line, so panic(nil) is
// recovered as a *runtime.PanicNilError.
func TestSameGODEBUG(t *testing.T) {
	dir := writeModule(t, map[string]string{
		"go.mod": "module example.com/old\n\ngo 1.17\n\ngodebug panicnil=0\n",
		"old_test.go": `package old

import (
	"fmt"
	"math/rand"
	"testing"
)

func TestPanicNil(t *testing.T) {
	defer func() { fmt.Printf("recovered %T\n", recover()) }()
	panic(nil)
}

func TestSeed(t *testing.T) {
	rand.Seed(1)
	a := rand.Int()
	rand.Seed(1)
	fmt.Println("seeded:", a == rand.Int())
}
`,
	})
	out := sameAsGoRace(t, dir, nil, "-count=1", "-v", ".")
	for _, want := range []string{"recovered *runtime.PanicNilError", "seeded: true"} {
		if !strings.Contains(out, want) {
			t.Errorf("go test -race printed no %q: the test does not show the setting\n%s", want, out)
		}
	}
}

// TestSameEnvironment: the test process gets the user's environment, not
// bigfoot's: GOWORK unset (or the user's setting), the user's GOFLAGS, no
// variable of bigfoot's, so that a test running the go command builds the
// user's module as it would under go test -race.
func TestSameEnvironment(t *testing.T) {
	dir := writeModule(t, map[string]string{
		"go.mod": "module example.com/env\n\ngo 1.22\n",
		"env_test.go": `package env

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
)

func TestEnv(t *testing.T) {
	for _, k := range []string{"GOWORK", "GOFLAGS"} {
		v, ok := os.LookupEnv(k)
		fmt.Printf("%s=%q set=%v\n", k, v, ok)
	}
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "BIGFOOT_USER_") {
			fmt.Println("bigfoot's variable:", kv)
		}
	}
	out, err := exec.Command("go", "list", "-m", "all").CombinedOutput()
	fmt.Printf("go list -m all: %s%v\n", out, err)
}
`,
	})
	for _, env := range [][]string{
		nil,
		{"GOWORK=off", "GOFLAGS=-mod=mod"},
	} {
		sameAsGoRace(t, dir, env, "-count=1", "-v", ".")
	}
}

// TestSameRaceTag: the build tag race is set as under go test -race, so
// that files constrained by race and !race switch (in //go:build and in
// old // +build lines, in the package and in its tests, with the user's
// own -tags kept), and a race-only file may call runtime.RaceXxx. An
// assembly file under !race gives way to its Go fallback under race.
func TestSameRaceTag(t *testing.T) {
	dir := writeModule(t, map[string]string{
		"go.mod": "module example.com/tags\n\ngo 1.22\n",
		"race.go": `//go:build race

package tags

const raceEnabled = true
`,
		"norace.go": `//go:build !race

package tags

const raceEnabled = false
`,
		"old_race.go": `// +build race,!custom

package tags

var oldStyle = "race, not custom"
`,
		"old_other.go": `// +build !race custom

package tags

var oldStyle = "not race, or custom"
`,
		"annotate_race.go": `//go:build race && linux

package tags

import (
	"runtime"
	"unsafe"
)

func annotate(p *int) { runtime.RaceAcquire(unsafe.Pointer(p)) }
`,
		"annotate_other.go": `//go:build !(race && linux)

package tags

func annotate(p *int) {}
`,
		"tags_test.go": `package tags

import (
	"fmt"
	"testing"
)

func TestTags(t *testing.T) {
	x := 1
	annotate(&x)
	fmt.Println("race:", raceEnabled, "old:", oldStyle, "asm:", asm())
}
`,
		"asm_amd64.s": `//go:build !race

#include "textflag.h"

// func asm() string
TEXT ·asm(SB), NOSPLIT, $0-16
	MOVQ $0, ret_base+0(FP)
	MOVQ $0, ret_len+8(FP)
	RET
`,
		"asm_amd64.go": `//go:build !race

package tags

func asm() string
`,
		"asm_other.go": `//go:build !amd64 || race

package tags

func asm() string { return "Go" }
`,
		"alloc_norace_test.go": `//go:build !race

package tags

import "testing"

func TestAllocs(t *testing.T) { t.Fatal("runs only without -race") }
`,
	})
	out := sameAsGoRace(t, dir, nil, "-count=1", "-v", ".")
	if !strings.Contains(out, `race: true old: race, not custom asm: Go`) {
		t.Errorf("go test -race does not show the tag:\n%s", out)
	}
	for _, env := range [][]string{nil, {"GOFLAGS=-tags=custom"}} {
		args := []string{"-count=1", "-v", "."}
		if env == nil {
			args = append([]string{"-tags", "custom"}, args...)
		}
		out = sameAsGoRace(t, dir, env, args...)
		if !strings.Contains(out, `race: true old: not race, or custom asm: Go`) {
			t.Errorf("go test -race with the tag custom (%v %v) does not show the tags:\n%s", env, args, out)
		}
	}
}

// oldModule is a module published without a go.mod, as modules from before
// Go modules are (gopkg.in/check.v1, old versions of many others): a
// goroutine handing back its result by closing a channel, and a race on a
// package variable.
var oldModule = map[string]string{
	"oldlib.go": `package oldlib

// Run runs f in a goroutine and returns a channel closed when f returned.
func Run(f func()) <-chan struct{} {
	done := make(chan struct{})
	go func() {
		f()
		close(done)
	}()
	return done
}

var hits int

// Hit counts twice, from two goroutines, without synchronization.
func Hit() {
	done := make(chan bool)
	go func() {
		hits++
		done <- true
	}()
	hits++
	<-done
}
`,
}

// writeOldProxy writes a file-system module proxy serving oldModule as
// example.com/oldlib v1.0.0, whose zip has no go.mod, and returns its
// GOPROXY URL.
func writeOldProxy(t *testing.T) string {
	t.Helper()
	src := writeModule(t, oldModule)
	proxy := t.TempDir()
	dir := filepath.Join(proxy, "example.com", "oldlib", "@v")
	if err := os.MkdirAll(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	zf, err := os.Create(filepath.Join(dir, "v1.0.0.zip"))
	if err != nil {
		t.Fatal(err)
	}
	if err := modzip.CreateFromDir(zf, module.Version{Path: "example.com/oldlib", Version: "v1.0.0"}, src); err != nil {
		t.Fatal(err)
	}
	if err := zf.Close(); err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string]string{
		"v1.0.0.mod":  "module example.com/oldlib\n", // what the go command assumes
		"v1.0.0.info": `{"Version":"v1.0.0","Time":"2015-01-01T00:00:00Z"}`,
		"list":        "v1.0.0\n",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o666); err != nil {
			t.Fatal(err)
		}
	}
	return "file://" + filepath.ToSlash(proxy)
}

// TestSameModuleWithoutGoMod: a dependency without a go.mod is
// instrumented like any other, with every -deps that instruments
// dependencies: the channel it closes orders the goroutine it started
// before the receive (no false race), and the race inside it is reported,
// as under go test -race.
func TestSameModuleWithoutGoMod(t *testing.T) {
	if bigfootBin == "" {
		t.Skip("end-to-end test; skipped with -short")
	}
	env := depsEnv(t, writeOldProxy(t))
	dir := writeModule(t, map[string]string{
		"go.mod": "module example.com/user\n\ngo 1.22\n\nrequire example.com/oldlib v1.0.0\n",
		"user_test.go": `package user

import (
	"fmt"
	"testing"

	"example.com/oldlib"
)

func TestNoRace(t *testing.T) {
	x := 0
	<-oldlib.Run(func() { x = 1 })
	x++
	fmt.Println("x:", x)
}

func TestRace(t *testing.T) { oldlib.Hit() }
`,
	})
	if r := run(t, dir, env, "go", "mod", "tidy"); r.code != 0 {
		t.Fatalf("go mod tidy: %v", r)
	}
	if r := run(t, dir, env, "go", "mod", "download", "-json", "example.com/oldlib"); !strings.Contains(r.stdout, `"GoModSum"`) || r.code != 0 {
		t.Fatalf("go mod download: %v", r)
	}
	sameAsGoRace(t, dir, env, "-count=1", "-v", "-run=TestNoRace", ".")
	want := run(t, dir, env, "go", "test", "-race", "-count=1", "-run=TestRace$", ".")
	for _, deps := range []string{"modules", "all"} {
		got := run(t, dir, env, bigfootBin, "test", "-deps="+deps, "-count=1", "-run=TestRace$", ".")
		if got.code != want.code || !strings.Contains(got.stdout+got.stderr, "WARNING: DATA RACE") || !strings.Contains(got.stdout+got.stderr, "oldlib.Hit") {
			t.Errorf("-deps=%s: the race in the module without a go.mod:\nbigfoot:\n%v\ngo test -race:\n%v", deps, got, want)
		}
	}
	// A copy whose packages were instrumented but not marked done (another
	// bigfoot process instrumenting it at the same moment, or one killed
	// before its markers) is instrumented again from the module's
	// sources, not from its own instrumented files.
	markers, err := filepath.Glob(filepath.Join(cacheHome(env), "bigfoot", "mod", "*", "example.com", "oldlib@v1.0.0", ".bigfoot"))
	if err != nil || len(markers) == 0 {
		t.Fatalf("no instrumented copy of oldlib with markers in the cache: %v", err)
	}
	for _, m := range markers {
		if err := os.RemoveAll(m); err != nil {
			t.Fatal(err)
		}
	}
	sameAsGoRace(t, dir, env, "-count=1", "-v", "-run=TestNoRace", ".")
}

// cacheHome is the XDG_CACHE_HOME of env.
func cacheHome(env []string) string {
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "XDG_CACHE_HOME="); ok {
			return v
		}
	}
	return ""
}

// TestSameBuildFailures: packages that do not type-check (under go test
// -race too) are reported as go test reports them, the "# pkg" errors and
// "FAIL pkg [build failed]", and the others are built and tested, with
// their races reported.
func TestSameBuildFailures(t *testing.T) {
	dir := writeModule(t, map[string]string{
		"go.mod":              "module example.com/m\n\ngo 1.22\n",
		"broken/broken.go":    "package broken\n\nfunc F() int { return undefinedThing }\n",
		"uses/uses.go":        "package uses\n\nimport \"example.com/m/broken\"\n\nvar X = broken.F()\n",
		"uses/uses_test.go":   "package uses\n\nimport \"testing\"\n\nfunc TestX(t *testing.T) { _ = X }\n",
		"badtest/bad.go":      "package badtest\n\nfunc G() int { return 1 }\n",
		"badtest/bad_test.go": "package badtest\n\nimport \"testing\"\n\nfunc TestG(t *testing.T) { var s string = G(); _ = s }\n",
		"good/good.go":        goodSource,
		"good/good_test.go":   "package good\n\nimport \"testing\"\n\nfunc TestH(t *testing.T) {\n\tif H() != 2 {\n\t\tt.Fatal(H())\n\t}\n}\n",
		"racy/racy.go":        "package racy\n",
		"racy/racy_test.go":   racyTest,
	})
	out := sameAsGoRace(t, dir, nil, "-count=1", "./broken", "./uses", "./badtest", "./good")
	for _, want := range []string{"FAIL\texample.com/m/badtest [build failed]", "ok  \texample.com/m/good"} {
		if !strings.Contains(out, want) {
			t.Errorf("go test -race printed no %q:\n%s", want, out)
		}
	}
	// Nothing of bigfoot's is printed: no note about the loop without a
	// static range (those need -bfv).
	if r := bigfootCmd(t, dir, "build", "./good"); r.code != 0 || r.stdout+r.stderr != "" {
		t.Errorf("bigfoot build of a package that builds prints something:\n%v", r)
	}
	r := bigfootCmd(t, dir, "test", "-count=1", "./...")
	if r.code != 1 || !strings.Contains(r.stdout, "FAIL\texample.com/m/racy") || !strings.Contains(r.stdout, "ok  \texample.com/m/good") || !strings.Contains(r.stderr+r.stdout, "WARNING: DATA RACE") {
		t.Errorf("bigfoot test ./... with packages that do not build: want the race in racy reported and good passing:\n%v", r)
	}
}

// TestSameVetFailures: a package that type-checks but fails the vet
// checks go test runs fails as under go test -race, with vet's message at
// the same line and column (the instrumented file's line directive gives a
// column, so the column is known), and the other packages are tested.
func TestSameVetFailures(t *testing.T) {
	dir := writeModule(t, map[string]string{
		"go.mod":                  "module example.com/m\n\ngo 1.22\n",
		"vetfail/lib.go":          "package vetfail\n\nfunc Retry() int { return 1 }\n",
		"vetfail/lib_test.go":     "package vetfail\n\nimport (\n\t\"fmt\"\n\t\"testing\"\n)\n\nfunc TestRetry(t *testing.T) {\n\tfmt.Printf(\"%d\\n\", \"retry\")\n}\n",
		"vetfail/example_test.go": "package vetfail\n\nfunc ExampleRetryContext() {\n\t_ = Retry()\n}\n",
		"good/good.go":            goodSource,
		"good/good_test.go":       "package good\n\nimport \"testing\"\n\nfunc TestH(t *testing.T) {\n\tif H() != 2 {\n\t\tt.Fatal(H())\n\t}\n}\n",
	})
	out := sameAsGoRace(t, dir, nil, "-count=1", "./...")
	for _, want := range []string{"FAIL\texample.com/m/vetfail [build failed]", "ok  \texample.com/m/good"} {
		if !strings.Contains(out, want) {
			t.Errorf("go test -race printed no %q:\n%s", want, out)
		}
	}
}

// goodSource is a package that builds, with a loop whose accesses keep
// their footprint records (no constant step), which the instrumenter notes
// with -bfv.
const goodSource = `package good

func H() int { return sum([]int{1, 1}, 1) }

func sum(a []int, step int) int {
	s := 0
	for i := 0; i < len(a); i += step {
		s += a[i]
	}
	return s
}
`

// racyTest races on a variable between a test and the goroutine it starts.
const racyTest = `package racy

import "testing"

func TestRace(t *testing.T) {
	x := 0
	done := make(chan bool)
	go func() {
		x = 1
		done <- true
	}()
	x = 2
	<-done
	t.Log(x > 0)
}
`

// testLines keeps of go test's output the lines that do not depend on the
// detector's report: test results and what the tests and package testing
// logged ("file.go:NN: message").
func testLines(out string) string {
	var keep []string
	for _, l := range strings.Split(normalize(out), "\n") {
		t := strings.TrimSpace(l)
		if strings.HasPrefix(t, "--- ") || strings.HasPrefix(t, "ok ") || strings.HasPrefix(t, "FAIL") || strings.HasPrefix(t, "testing: ") || logLine.MatchString(t) {
			keep = append(keep, l)
		}
	}
	return strings.Join(keep, "\n")
}

// logLine matches a line a test logged.
var logLine = regexp.MustCompile(`^[\w.-]+\.go:\d+: `)

// TestSameRaceFailures: a race fails the test it happened in, as under go
// test -race, with package testing's own message at its own line (not a
// line of bigfoot's runtime), once for a subtest and not again for its
// parent; t.Failed reports it; a race outside the tests fails the binary
// with "race detected outside of test execution".
func TestSameRaceFailures(t *testing.T) {
	if bigfootBin == "" {
		t.Skip("end-to-end test; skipped with -short")
	}
	dir := writeModule(t, map[string]string{
		"go.mod":       "module example.com/m\n\ngo 1.22\n",
		"racy/racy.go": "package racy\n",
		"racy/racy_test.go": racyTest + `
func TestSub(t *testing.T) {
	t.Run("a", func(t *testing.T) {
		y := 0
		done := make(chan bool)
		go func() {
			y = 1
			done <- true
		}()
		y = 2
		<-done
		t.Log(y > 0)
	})
	t.Log("parent failed:", t.Failed())
}
`,
		"initrace/initrace.go": `package initrace

var x int

func init() {
	done := make(chan bool)
	go func() {
		x = 1
		done <- true
	}()
	x = 2
	<-done
}
`,
		"initrace/initrace_test.go": "package initrace\n\nimport \"testing\"\n\nfunc TestNothing(t *testing.T) {}\n",
	})
	for _, pkg := range []string{"./racy", "./initrace"} {
		want := run(t, dir, nil, "go", "test", "-race", "-count=1", "-v", pkg)
		got := run(t, dir, nil, bigfootBin, "test", "-count=1", "-v", pkg)
		if got.code != want.code || testLines(got.stdout) != testLines(want.stdout) {
			t.Errorf("bigfoot test %s differs from go test -race\nbigfoot:\n%d\n%s\ngo test -race:\n%d\n%s", pkg, got.code, testLines(got.stdout), want.code, testLines(want.stdout))
		}
	}
}

// TestSameFrames: no frame of bigfoot's is in a stack the program sees.
// An example in the main goroutine prints the functions of the stack of a
// recovered panic, which go test -race checks against its Output comment:
// testing.runExample, testing.runExamples, testing.(*M).Run, main.main
// (no TestMain); a program's panic trace names main.main as its caller's
// (no wrapper), and a race in a program that then returns normally makes
// it exit with status 66 and print "Found 1 data race(s)" last; run with
// an argument, it then exits with status 3 and prints no such line.
func TestSameFrames(t *testing.T) {
	if bigfootBin == "" {
		t.Skip("end-to-end test; skipped with -short")
	}
	dir := writeModule(t, map[string]string{
		"go.mod":     "module example.com/frames\n\ngo 1.22\n",
		"lib/lib.go": "package lib\n\nfunc Boom() { panic(\"boom\") }\n",
		"lib/example_test.go": `package lib

import (
	"fmt"
	"runtime"
	"strings"
)

func Example() {
	defer func() {
		recover()
		pc := make([]uintptr, 32)
		frames := runtime.CallersFrames(pc[:runtime.Callers(0, pc)])
		for {
			f, more := frames.Next()
			if !strings.HasPrefix(f.Function, "runtime.") && !strings.HasPrefix(f.Function, "example.com/frames/lib.Example") && !strings.HasPrefix(f.Function, "example.com/frames/lib.Boom") {
				fmt.Println(f.Function)
			}
			if !more {
				break
			}
		}
	}()
	Boom()
	// Output:
	// testing.runExample
	// testing.runExamples
	// testing.(*M).Run
	// main.main
}
`,
		"panics/main.go": `package main

import "os"

var x int

func boom() { panic("boom " + os.Args[0][:0]) }

func main() {
	x++
	boom()
}
`,
		"racy/main.go": `package main

import (
	"fmt"
	"os"
)

func main() {
	x := 0
	done := make(chan bool)
	go func() {
		x = 1
		done <- true
	}()
	x = 2
	<-done
	if len(os.Args) > 1 {
		os.Exit(3)
	}
	fmt.Println("done")
	_ = x
}
`,
	})
	sameAsGoRace(t, dir, nil, "-count=1", "-v", "./lib")

	// Addresses, goroutine numbers and whether a call was inlined ("(...)")
	// depend on the code, not on the frames.
	addr := regexp.MustCompile(`( ?\+0x[0-9a-f]+|0x[0-9a-f]+|goroutine \d+|\(\.\.\.\)|\(\))`)
	for _, prog := range []string{"panics", "racy"} {
		goBin, bfBin := filepath.Join(t.TempDir(), prog), filepath.Join(t.TempDir(), prog)
		if r := run(t, dir, nil, "go", "build", "-race", "-o", goBin, "./"+prog); r.code != 0 {
			t.Fatalf("go build -race: %v", r)
		}
		if r := run(t, dir, nil, bigfootBin, "build", "-o", bfBin, "./"+prog); r.code != 0 {
			t.Fatalf("bigfoot build: %v", r)
		}
		argSets := [][]string{nil}
		if prog == "racy" {
			argSets = append(argSets, []string{"exit"}) // os.Exit(3) after the race
		}
		for _, args := range argSets {
			want, got := run(t, dir, nil, goBin, args...), run(t, dir, nil, bfBin, args...)
			if prog == "panics" {
				want.stderr, got.stderr = addr.ReplaceAllString(want.stderr, ""), addr.ReplaceAllString(got.stderr, "")
			} else {
				// The race reports differ; the lines after the last differ not.
				want.stderr, got.stderr = afterReports(want.stderr), afterReports(got.stderr)
			}
			if got != want {
				t.Errorf("%s %v: the bigfoot build's run differs from the go -race build's\nbigfoot:\n%v\ngo -race:\n%v", prog, args, got, want)
			}
		}
	}
}

// afterReports returns what stderr holds after its last race report.
func afterReports(stderr string) string {
	const end = "==================\n"
	if i := strings.LastIndex(stderr, end); i >= 0 {
		return stderr[i+len(end):]
	}
	return stderr
}

// TestSameRealModulesWithoutGoMod runs, from the module proxy, a suite
// library published without a go.mod (gopkg.in/check.v1 of 2018, whose
// goroutines and channels order its tests: left uninstrumented, they were
// a false race between the suite's sequential tests) and go-spew v1.1.1
// (no go.mod either), in a go 1.17 module: bigfoot test agrees with go
// test -race. It skips where the proxy cannot be reached.
func TestSameRealModulesWithoutGoMod(t *testing.T) {
	if bigfootBin == "" {
		t.Skip("end-to-end test; skipped with -short")
	}
	dir := writeModule(t, map[string]string{
		"go.mod": "module example.com/suite\n\ngo 1.17\n\nrequire (\n\tgithub.com/davecgh/go-spew v1.1.1\n\tgopkg.in/check.v1 v1.0.0-20180628173108-788fd7840127\n)\n",
		"suite_test.go": `package suite

import (
	"fmt"
	"testing"

	"github.com/davecgh/go-spew/spew"
	. "gopkg.in/check.v1"
)

func Test(t *testing.T) { TestingT(t) }

type S struct{ n []int }

var _ = Suite(&S{})

func (s *S) TestA(c *C) { s.n = append(s.n, 1); c.Assert(len(s.n) > 0, Equals, true) }
func (s *S) TestB(c *C) { s.n = append(s.n, 2); c.Assert(len(s.n) > 0, Equals, true) }
func (s *S) TestC(c *C) { fmt.Print(spew.Sdump(s.n)) }
`,
	})
	env := []string{"GOFLAGS=-mod=mod"}
	if r := run(t, dir, env, "go", "mod", "download", "github.com/davecgh/go-spew", "gopkg.in/check.v1"); r.code != 0 {
		t.Skipf("the module proxy cannot be reached: %v", r)
	}
	if r := run(t, dir, env, "go", "mod", "tidy"); r.code != 0 {
		t.Skipf("go mod tidy: %v", r)
	}
	sameAsGoRace(t, dir, nil, "-count=1", "-v", ".")
}

// TestSameCheckptr: go test -race compiles every package with the
// compiler's pointer checks (-race implies -d=checkptr), so a conversion
// that straddles two allocations is a fatal error, in the user's code as
// in the standard library's (reflect); bigfoot test fails the same way.
// Pointer arithmetic that stays in its object, through fields the
// instrumenter checks in place, passes under both. math, whose pointer
// checks are proved to pass, is compiled without them.
func TestSameCheckptr(t *testing.T) {
	dir := writeModule(t, map[string]string{
		"go.mod": "module example.com/m\n\ngo 1.22\n",
		"bad/bad_test.go": `package bad

import (
	"testing"
	"unsafe"
)

var sink []int64

func TestStraddle(t *testing.T) {
	sink = make([]int64, 4)
	p := (*[16]int64)(unsafe.Pointer(&sink[0]))
	t.Log(p[0])
}
`,
		"good/good_test.go": `package good

import (
	"math"
	"testing"
	"unsafe"
)

type buf struct {
	b   []int64
	off int
}

var shared = &buf{b: make([]int64, 8), off: 3}

func TestInObject(t *testing.T) {
	shared.b[3] = 7
	done := make(chan int)
	go func() {
		p := (*int64)(unsafe.Pointer(uintptr(unsafe.Pointer(&shared.b[0])) + uintptr(shared.off)*8))
		done <- int(*p)
	}()
	if v := <-done; v != 7 {
		t.Fatal(v)
	}
	if b := math.Float64bits(math.Pow(2, 0.5) * math.Sqrt2); b != 0x4000000000000000 && b != 0x4000000000000001 {
		t.Fatalf("%#x", b)
	}
}
`,
	})
	sameAsGoRace(t, dir, nil, "-count=1", "./good")
	if r := bigfootCmd(t, dir, "test", "-bfv", "-count=1", "./good"); r.code != 0 || !strings.Contains(r.stderr, " -gcflags=math=-d=checkptr=0 ") {
		t.Errorf("want math compiled without pointer checks:\n%v", r)
	}
	const fatal = "fatal error: checkptr: converted pointer straddles multiple allocations"
	for _, r := range []result{run(t, dir, nil, "go", "test", "-race", "-count=1", "./bad"), bigfootCmd(t, dir, "test", "-count=1", "./bad")} {
		if r.code != 1 || !strings.Contains(r.stdout+r.stderr, fatal) || !strings.Contains(r.stdout, "FAIL\texample.com/m/bad") {
			t.Errorf("want the package to fail with %q:\n%v", fatal, r)
		}
	}
}

// TestSameStackMoves: a footprint's range over an array on the
// goroutine's stack, in a recursion that grows (moves) the stack: the
// shadow looks the array's address up as a uintptr, which a move of the
// stack in the lookup's prologue left pointing into the old stack's
// freed span, and the runtime threw "found bad pointer in Go heap"
// (segmentio/ksuid's TestSort). Each depth of down starts the sort at
// another stack offset, so that one of them moves the stack there.
func TestSameStackMoves(t *testing.T) {
	dir := writeModule(t, map[string]string{
		"go.mod": "module example.com/deep\n\ngo 1.22\n",
		"deep_test.go": `package deep

import (
	"bytes"
	"testing"
)

type K [20]byte

func qs(a []K, lo, hi int) {
	if lo < hi {
		pivot := a[hi]
		i := lo - 1
		for j := lo; j != hi; j++ {
			if bytes.Compare(a[j][:], pivot[:]) < 0 {
				i++
				a[i], a[j] = a[j], a[i]
			}
		}
		i++
		if bytes.Compare(a[hi][:], a[i][:]) < 0 {
			a[i], a[hi] = a[hi], a[i]
		}
		qs(a, lo, i-1)
		qs(a, i+1, hi)
	}
}

func sortLocal(n int) bool {
	var a [300]K
	for i := range a {
		a[i][0], a[i][1] = byte(i>>8), byte(i)
	}
	qs(a[:], 0, len(a)-1)
	return bytes.Compare(a[0][:], a[len(a)-1][:]) < 0
}

func down(d int) bool {
	if d == 0 {
		return sortLocal(d)
	}
	return down(d - 1)
}

func TestDeepSortOfLocalArray(t *testing.T) {
	for d := 0; d < 400; d++ {
		done := make(chan bool)
		go func() { done <- down(d) }()
		if !<-done {
			t.Fatal("not sorted")
		}
	}
}
`,
	})
	sameAsGoRace(t, dir, nil, "-count=1", ".")
}
