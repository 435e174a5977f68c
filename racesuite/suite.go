// Package racesuite runs Go's own race-detector test suite,
// $GOROOT/src/runtime/race/testdata, under bigfoot test, and classifies
// each test the way runtime/race/race_test.go does: a TestRace* test must
// report a race, a TestNoRace* test must not.
//
// The suite is read from the installed Go at test time; it is never copied
// into this repository. See racesuite_test.go for the harness.
package racesuite

import (
	"bufio"
	"bytes"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// A File is one file of the suite.
type File struct {
	Name  string   // base name
	Path  string   // absolute path
	Tests []string // top-level TestXxx functions (without TestMain), in order
	Skip  string   // why the file is left out, or ""
	Port  bool     // the file uses internal/synctest or runs a cgo program: run it through Port
	// Cgo names the program, beside the file, that the file's test runs
	// under the race detector (cgo_test.go runs cgo_test_main.go); the
	// harness builds it with the detector under test (CgoMainEnv).
	Cgo string
}

// cgoTest and cgoMain are the suite's cgo test file and the program its
// test runs with go run -race.
const (
	cgoTest = "cgo_test.go"
	cgoMain = "cgo_test_main.go"
)

// CgoMainEnv is the environment variable through which a ported cgo test
// finds the race-checked binary of its program (Port).
const CgoMainEnv = "RACESUITE_CGO_MAIN"

// Files lists the _test.go files of dir (the suite's testdata), with the
// tests each declares, marking files that need cgo or import internal
// packages (which a module outside GOROOT cannot import) as skipped, except
// internal/synctest, whose tests Port rewrites to testing/synctest, and
// cgo_test.go, which imports internal/testenv only to find the go command
// for go run -race cgo_test_main.go: Port runs the program's race-checked
// binary instead (File.Cgo).
func Files(dir string) ([]File, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "*_test.go"))
	if err != nil {
		return nil, err
	}
	sort.Strings(paths)
	var files []File
	fset := token.NewFileSet()
	for _, p := range paths {
		f, err := parser.ParseFile(fset, p, nil, parser.SkipObjectResolution)
		if err != nil {
			return nil, fmt.Errorf("parsing suite: %w", err)
		}
		file := File{Name: filepath.Base(p), Path: p}
		for _, imp := range f.Imports {
			path, _ := strconv.Unquote(imp.Path.Value)
			switch {
			case path == "C":
				file.Skip = "needs cgo"
			case path == "internal/synctest":
				file.Port = true
			case path == "internal/testenv" && file.Name == cgoTest:
				file.Port = true
				file.Cgo = filepath.Join(dir, cgoMain)
			case path == "internal" || strings.HasPrefix(path, "internal/") || strings.Contains(path, "/internal/"):
				file.Skip = "imports " + path
			}
			if file.Skip != "" {
				break
			}
		}
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if ok && fd.Recv == nil && strings.HasPrefix(fd.Name.Name, "Test") && fd.Name.Name != "TestMain" {
				file.Tests = append(file.Tests, fd.Name.Name)
			}
		}
		files = append(files, file)
	}
	return files, nil
}

// Port rewrites a file of the suite that Go's own race_test.go runs inside
// GOROOT so that it runs in a module outside it:
//
//   - internal/synctest becomes the public testing/synctest:
//     synctest.Run(func() { becomes synchronous synctest.Test(t,
//     func(*testing.T) {, in tests whose parameter is t. Wait is the same
//     in both.
//   - cgo_test.go's exec.Command(testenv.GoToolPath(t), "run", "-race",
//     "cgo_test_main.go") becomes exec.Command(os.Getenv(CgoMainEnv)): the
//     program, built by the harness with the race detector under test,
//     run as go run -race would run it (its races are reported on the
//     test's output, and a race makes it exit non-zero).
func Port(src []byte) ([]byte, error) {
	s := string(src)
	if strings.Contains(s, `"internal/synctest"`) {
		s = strings.Replace(s, `"internal/synctest"`, `"testing/synctest"`, 1)
		s = strings.ReplaceAll(s, "synctest.Run(func() {", "synctest.Test(t, func(*testing.T) {")
		if strings.Contains(s, "synctest.Run(") {
			return nil, fmt.Errorf("a synctest.Run call Port does not know")
		}
	}
	if strings.Contains(s, `"internal/testenv"`) {
		call := `exec.Command(testenv.GoToolPath(t), "run", "-race", "` + cgoMain + `")`
		if strings.Count(s, "testenv.") != 1 || !strings.Contains(s, call) {
			return nil, fmt.Errorf("a use of internal/testenv Port does not know")
		}
		s = strings.Replace(s, call, "exec.Command(os.Getenv(\""+CgoMainEnv+"\"))", 1)
		s = strings.Replace(s, "\t\"internal/testenv\"\n", "", 1)
	}
	return []byte(s), nil
}

// testPrefix starts the line go test -v prints when a test starts.
const testPrefix = "=== RUN   Test"

// A Result is the verdict on one test, as processLog in
// runtime/race/race_test.go reaches it.
type Result struct {
	Name    string // without the "Test" prefix, as processLog names it
	Skipped bool
	Passed  bool   // race reported if and only if expected
	Failing bool   // an expected failure ("Failing" in the name)
	GotRace bool   // a race was reported (or the runtime's map fatal error)
	Crashed string // the binary stopped during the test: the first line of why
}

// ExpectRace reports whether the test is expected to report a race.
func (r *Result) ExpectRace() bool { return !strings.HasPrefix(r.Name, "No") }

// FalsePositive reports a race in a NoRace test.
func (r *Result) FalsePositive() bool { return !r.Skipped && !r.ExpectRace() && r.GotRace }

// String is one line of the report for a test that did not pass.
func (r *Result) String() string {
	switch {
	case r.Skipped:
		return fmt.Sprintf("Test%-40s SKIPPED", r.Name)
	case r.Passed:
		return fmt.Sprintf("Test%-40s .", r.Name)
	case r.Crashed != "":
		return fmt.Sprintf("Test%-40s FAILED (crashed: %s)", r.Name, r.Crashed)
	case r.GotRace:
		return fmt.Sprintf("Test%-40s FAILED+ (false positive)", r.Name)
	}
	return fmt.Sprintf("Test%-40s FAILED (race not reported)", r.Name)
}

// Classify splits the output of a go test -v run of the suite into tests
// and judges each as processLog does. Tests whose names start with
// neither Race nor NoRace are left out. If crashed is non-empty, the last
// test that started is marked crashed with that reason, unless its log holds
// the runtime's concurrent map error, which counts as a race as in Go.
//
// One departure from processLog: a race report printed while a test runs
// whose stacks name no frame of that test but one of an earlier test
// counts for the earlier test (reportOwner). A racing goroutine that a
// test leaves behind may make its access after the next test started
// (TestRaceChanAsyncRev's sender preempted between its send and its
// write, under load, when TestNoRaceChanAsyncCloseRecv has started): the
// report is the earlier test's race, which go -race reports the same way
// under the same schedule, not one of the test that happens to be
// running.
func Classify(out []byte, crashed string) []*Result {
	var results []*Result
	byName := map[string]*Result{}
	name := ""
	var log []string
	flush := func(last bool) {
		r, earlier := processLog(name, log, byName)
		for _, e := range earlier {
			if !e.Skipped {
				e.GotRace = true
				e.Passed = e.ExpectRace() && e.Crashed == ""
			}
		}
		if r == nil {
			return
		}
		if last && crashed != "" && !r.GotRace && !r.Skipped {
			r.Passed = false
			r.Crashed = crashed
		}
		results = append(results, r)
		byName[r.Name] = r
	}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 1<<26)
	for sc.Scan() {
		s := sc.Text()
		if rest, ok := strings.CutPrefix(s, testPrefix); ok {
			flush(false)
			name, log = rest, nil
			continue
		}
		log = append(log, s)
	}
	flush(true)
	return results
}

// processLog is runtime/race/race_test.go's processLog, returning a
// Result instead of counting in globals, except that a race report that
// belongs to an earlier test (reportOwner; earlier holds the results so
// far, by name) counts for that test, returned in owners.
func processLog(testName string, tsanLog []string, earlier map[string]*Result) (r *Result, owners []*Result) {
	race := func(i int) bool {
		e := earlier[reportOwner(testName, tsanLog[i:])]
		if e == nil {
			return true
		}
		owners = append(owners, e)
		return false
	}
	if !strings.HasPrefix(testName, "Race") && !strings.HasPrefix(testName, "NoRace") {
		for i, s := range tsanLog {
			if strings.Contains(s, "DATA RACE") {
				race(i)
			}
		}
		return nil, owners
	}
	r = &Result{Name: testName, Failing: strings.Contains(testName, "Failing")}
	for i, s := range tsanLog {
		if strings.Contains(s, "DATA RACE") {
			if race(i) {
				r.GotRace = true
				break
			}
			continue
		}
		if strings.Contains(s, "fatal error: concurrent map") {
			// Detected by the runtime, not the race detector.
			r.GotRace = true
			break
		}
		if strings.Contains(s, "--- SKIP:") {
			r.Skipped = true
			return r, owners
		}
	}
	r.Passed = r.ExpectRace() == r.GotRace
	return r, owners
}

// frameTest matches a suite test's name in a stack frame's function, as
// in "racesuite_test.TestRaceChanAsyncRev.func1()".
var frameTest = regexp.MustCompile(`\.Test([A-Za-z0-9_]+)[.(]`)

// reportOwner returns the name (without "Test") of the suite test other
// than running to which the race report at the start of log belongs: the
// stack of each of its accesses ("Write at 0x... by goroutine 7:",
// "Previous read at ...") has a frame of that test's and of no other,
// and no stack of the report has a frame of running's. Otherwise it
// returns "". The report runs from its "DATA RACE" line to the next line
// of "=" signs.
func reportOwner(running string, log []string) string {
	owner := ""
	access, named := false, true // the section is an access's; it named owner
	for _, s := range log[1:] {
		if strings.HasPrefix(s, "==================") {
			break
		}
		if s != "" && s[0] != ' ' && s[0] != '\t' { // a section's header
			if access && !named {
				return ""
			}
			access, named = strings.Contains(s, " at 0x"), false
			continue
		}
		for _, m := range frameTest.FindAllStringSubmatch(s, -1) {
			switch name := m[1]; {
			case name == running:
				return ""
			case !access:
			case owner == "" || owner == name:
				owner, named = name, true
			default:
				return ""
			}
		}
	}
	if access && !named {
		return ""
	}
	return owner
}

// Started returns the top-level tests that started in out.
func Started(out []byte) map[string]bool {
	started := map[string]bool{}
	for _, line := range strings.Split(string(out), "\n") {
		if rest, ok := strings.CutPrefix(line, "=== RUN   "); ok {
			name, _, _ := strings.Cut(strings.TrimSpace(rest), "/")
			started[name] = true
		}
	}
	return started
}

// CrashReason returns why a run's output ends early: the first line of a
// panic or fatal error, or a timeout; "" if the run completed (the suite's
// TestMain prints ALL TESTS COMPLETE).
func CrashReason(out []byte) string {
	if bytes.Contains(out, []byte("ALL TESTS COMPLETE")) {
		return ""
	}
	for _, line := range strings.Split(string(out), "\n") {
		for _, p := range []string{"panic: ", "fatal error: ", "SIGSEGV", "unexpected fault"} {
			if strings.Contains(line, p) {
				return strings.TrimSpace(line)
			}
		}
	}
	return "the test binary stopped without finishing"
}

// RunAll runs tests through run, which runs the suite binary on the named
// tests and returns its output, and classifies them. When the binary
// crashes, the crashed test counts as failed and run is called again on the
// tests that have not started; restart is told each time. Tests that never
// start count as failed ("did not run").
func RunAll(tests []string, run func(tests []string) []byte, restart func(crash string, left int)) map[string]*Result {
	results := map[string]*Result{}
	remaining := tests
	for {
		out := run(remaining)
		crash := CrashReason(out)
		for _, r := range Classify(out, crash) {
			results[r.Name] = r
		}
		started := Started(out)
		var next []string
		for _, name := range remaining {
			if !started[name] {
				next = append(next, name)
			}
		}
		if crash == "" || len(next) == 0 || len(next) == len(remaining) {
			// Done, or the binary stopped before any test started.
			for _, name := range next {
				reason := "did not run"
				if crash != "" {
					reason = "did not run: " + crash
				}
				if r, _ := processLog(strings.TrimPrefix(name, "Test"), nil, nil); r != nil {
					r.Passed, r.Crashed = false, reason
					results[r.Name] = r
				}
			}
			return results
		}
		restart(crash, len(next))
		remaining = next
	}
}

// Floors reads a floor file: lines "mode passes", '#' comments.
func Floors(file string) (map[string]int, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	floors := map[string]int{}
	for i, line := range strings.Split(string(data), "\n") {
		line, _, _ = strings.Cut(line, "#")
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		n, err := strconv.Atoi(f[len(f)-1])
		if len(f) != 2 || err != nil {
			return nil, fmt.Errorf("%s:%d: want \"mode passes\"", file, i+1)
		}
		floors[f[0]] = n
	}
	return floors, nil
}

// VerifyTotals sums the precise-checks verifier's output (build tag
// bigfoot_verify; docs/runtime.md, "The precise-checks verifier") over
// the runs of a suite binary.
type VerifyTotals struct {
	Runs                                      int // summary lines seen
	Accesses, Checks, Uncovered, Illegitimate int
	Violations                                []string // the violation lines, at most 20
}

// Add adds the verifier lines of one run's output.
func (v *VerifyTotals) Add(out []byte) {
	for _, line := range strings.Split(string(out), "\n") {
		rest, ok := strings.CutPrefix(strings.TrimSpace(line), "bigfoot verify: ")
		if !ok {
			continue
		}
		if strings.HasPrefix(rest, "accesses=") {
			v.Runs++
			for _, f := range strings.Fields(rest) {
				k, val, _ := strings.Cut(f, "=")
				n, _ := strconv.Atoi(val)
				switch k {
				case "accesses":
					v.Accesses += n
				case "checks":
					v.Checks += n
				case "uncovered":
					v.Uncovered += n
				case "illegitimate":
					v.Illegitimate += n
				}
			}
			continue
		}
		if len(v.Violations) < 20 {
			v.Violations = append(v.Violations, rest)
		}
	}
}

func (v VerifyTotals) String() string {
	return fmt.Sprintf("%d runs, accesses=%d checks=%d uncovered=%d illegitimate=%d", v.Runs, v.Accesses, v.Checks, v.Uncovered, v.Illegitimate)
}
