package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"golang.org/x/mod/module"
	modzip "golang.org/x/mod/zip"
)

// counterModule is a tiny third-party module: package-level state and an
// object, neither safe for concurrent use, and a reader that is.
var counterModule = map[string]string{
	"go.mod": "module example.com/counter\n\ngo 1.22\n",
	"counter.go": `// Package counter is not safe for concurrent use, but for its Source.
package counter

import "sync"

var n int

// Inc increments the package's counter.
func Inc() { n++ }

// Get returns it.
func Get() int { return n }

// A Box collects numbers.
type Box struct{ v []int }

// Add appends x.
func (b *Box) Add(x int) { b.v = append(b.v, x) }

// Len returns how many numbers b holds.
func (b *Box) Len() int { return len(b.v) }

// A Source is a reader whose reads take turns.
type Source struct {
	mu sync.Mutex
	n  byte
}

// Read fills p with the number of the read.
func (s *Source) Read(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.n++
	for i := range p {
		p[i] = s.n
	}
	return len(p), nil
}
`,
}

// depsTests are the tests of the user's module: two races inside the
// dependency and their twins with a mutex around the calls.
const depsTests = `package user

import (
	"sync"
	"testing"

	"example.com/counter"
)

func twice(f func()) {
	var wg sync.WaitGroup
	for i := 0; i < 2; i++ {
		wg.Add(1)
		go func() { defer wg.Done(); f() }()
	}
	wg.Wait()
}

func TestRacePkgState(t *testing.T) { twice(counter.Inc) }

func TestRaceObject(t *testing.T) {
	var b counter.Box
	twice(func() { b.Add(1) })
}

func TestNoRacePkgState(t *testing.T) {
	var mu sync.Mutex
	twice(func() { mu.Lock(); counter.Inc(); mu.Unlock() })
}

func TestNoRaceObject(t *testing.T) {
	var mu sync.Mutex
	var b counter.Box
	twice(func() { mu.Lock(); b.Add(1); mu.Unlock() })
	if b.Len() != 2 {
		t.Fatal(b.Len())
	}
}

func TestNoRaceLockedRead(t *testing.T) {
	var s counter.Source
	buf := make([]byte, 8)
	twice(func() {
		for i := 0; i < 50; i++ {
			s.Read(buf)
		}
	})
}
`

// writeProxy writes a file-system module proxy serving counterModule as
// example.com/counter v1.0.0 and returns its GOPROXY URL.
func writeProxy(t *testing.T) string {
	t.Helper()
	src := writeModule(t, counterModule)
	proxy := t.TempDir()
	mv := module.Version{Path: "example.com/counter", Version: "v1.0.0"}
	dir := filepath.Join(proxy, "example.com", "counter", "@v")
	if err := os.MkdirAll(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	zf, err := os.Create(filepath.Join(dir, "v1.0.0.zip"))
	if err != nil {
		t.Fatal(err)
	}
	if err := modzip.CreateFromDir(zf, mv, src); err != nil {
		t.Fatal(err)
	}
	if err := zf.Close(); err != nil {
		t.Fatal(err)
	}
	files := map[string]string{
		"v1.0.0.mod":  counterModule["go.mod"],
		"v1.0.0.info": `{"Version":"v1.0.0","Time":"2024-01-01T00:00:00Z"}`,
		"list":        "v1.0.0\n",
	}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o666); err != nil {
			t.Fatal(err)
		}
	}
	return "file://" + filepath.ToSlash(proxy)
}

// depsEnv is an environment with a private module cache filled from the
// proxy, a private bigfoot cache, and the shared build cache.
func depsEnv(t *testing.T, proxy string) []string {
	t.Helper()
	out, err := exec.Command("go", "env", "GOCACHE").Output()
	if err != nil {
		t.Fatal(err)
	}
	return []string{
		"GOPROXY=" + proxy, "GOSUMDB=off", "GOFLAGS=-modcacherw",
		"GOMODCACHE=" + t.TempDir(), "GOCACHE=" + strings.TrimSpace(string(out)),
		"XDG_CACHE_HOME=" + t.TempDir(),
	}
}

// TestDepsRaces: races on the package-level state and on an object of a
// third-party module are reported in each mode of modes, in each of 20 runs, with
// -deps=modules, for a module from the module cache and for one replaced
// by a local directory; the twins with a mutex report nothing, nor do two
// goroutines reading the dependency's Source into one buffer (its Read
// locks: when the call's check of the buffer came after the method's own,
// past its unlock, they raced).
func TestDepsRaces(t *testing.T) {
	if bigfootBin == "" {
		t.Skip("end-to-end test; skipped with -short")
	}
	proxy := writeProxy(t)
	for _, route := range []string{"modcache", "replace"} {
		t.Run(route, func(t *testing.T) {
			env := depsEnv(t, proxy)
			gomod := "module example.com/user\n\ngo 1.22\n\nrequire example.com/counter v1.0.0\n"
			files := map[string]string{"user_test.go": depsTests}
			if route == "replace" {
				gomod += "\nreplace example.com/counter => ./counter\n"
				for name, data := range counterModule {
					files["counter/"+name] = data
				}
			}
			files["go.mod"] = gomod
			dir := writeModule(t, files)
			if r := run(t, dir, env, "go", "mod", "tidy"); r.code != 0 {
				t.Fatalf("go mod tidy: %v", r)
			}
			for _, mode := range modes {
				bin := filepath.Join(t.TempDir(), "user.test")
				r := run(t, dir, env, bigfootBin, "test", "-deps=modules", "-mode", mode, "-c", "-o", bin, ".")
				if r.code != 0 {
					t.Fatalf("%s: bigfoot test -c: %v", mode, r)
				}
				checkRuns(t, dir, bin, mode, 20, depsFrames)
			}
		})
	}
}

// depsFrames are the tests of depsTests, each with a frame its report
// must name ("" for the race-free twins).
var depsFrames = map[string]string{
	"TestRacePkgState": "counter.Inc", "TestRaceObject": "counter.(*Box).Add",
	"TestNoRacePkgState": "", "TestNoRaceObject": "", "TestNoRaceLockedRead": "",
}

// checkRuns runs the test binary n times per test of frames: TestRace*
// must report a race every time, naming the test's frame, TestNoRace*
// never.
func checkRuns(t *testing.T, dir, bin, mode string, n int, frames map[string]string) {
	t.Helper()
	for test, frame := range frames {
		racy := strings.HasPrefix(test, "TestRace")
		for i := 0; i < n; i++ {
			r := run(t, dir, nil, bin, "-test.run=^"+test+"$", "-test.count=1")
			reported := strings.Contains(r.stderr+r.stdout, "WARNING: DATA RACE")
			if reported != racy || (!racy && r.code != 0) {
				t.Fatalf("%s: %s run %d: race reported = %v, want %v\n%v", mode, test, i+1, reported, racy, r)
			}
			if racy && !strings.Contains(r.stderr+r.stdout, frame) {
				t.Fatalf("%s: %s: the report does not name %s:\n%v", mode, test, frame, r)
			}
		}
	}
}

// stdTests race inside the standard library: a shared bytes.Buffer and
// strings.Builder, and sort.Ints on a shared slice; the twins hold a mutex
// around the calls. The loggers share a bytes.Buffer through a log.Logger,
// whose own Mutex (in log, which is not instrumented) orders their writes;
// a write to the buffer beside the logger races with them.
const stdTests = `package user

import (
	"bytes"
	"log"
	"sort"
	"strings"
	"sync"
	"testing"
)

func twice(f func()) {
	var wg sync.WaitGroup
	for i := 0; i < 2; i++ {
		wg.Add(1)
		go func() { defer wg.Done(); f() }()
	}
	wg.Wait()
}

func locked(f func()) func() {
	var mu sync.Mutex
	return func() { mu.Lock(); defer mu.Unlock(); f() }
}

func TestRaceSharedBuffer(t *testing.T) {
	var buf bytes.Buffer
	twice(func() { buf.WriteString("hello") })
}

func TestRaceSortSharedSlice(t *testing.T) {
	s := []int{5, 3, 1, 4}
	twice(func() { sort.Ints(s) })
}

func TestRaceSharedBuilder(t *testing.T) {
	var b strings.Builder
	twice(func() { b.WriteString("hello") })
}

func TestNoRaceSharedBuffer(t *testing.T) {
	var buf bytes.Buffer
	twice(locked(func() { buf.WriteString("hello") }))
	if buf.Len() != 10 {
		t.Fatal(buf.String())
	}
}

func TestNoRaceSortSharedSlice(t *testing.T) {
	s := []int{5, 3, 1, 4}
	twice(locked(func() { sort.Ints(s) }))
}

func TestNoRaceSharedBuilder(t *testing.T) {
	var b strings.Builder
	twice(locked(func() { b.WriteString("hello") }))
}

func TestNoRaceLoggers(t *testing.T) {
	var buf bytes.Buffer
	l := log.New(&buf, "", 0)
	twice(func() {
		for i := 0; i < 10; i++ {
			l.Printf("line %d", i)
		}
	})
	if n := strings.Count(buf.String(), "\n"); n != 20 {
		t.Fatalf("%d lines", n)
	}
}

func TestRaceLoggerAndWriter(t *testing.T) {
	var buf bytes.Buffer
	l := log.New(&buf, "", 0)
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); l.Print("logged") }()
	go func() { defer wg.Done(); buf.Write([]byte("direct")) }()
	wg.Wait()
}
`

// stdFrames are the tests of stdTests and the library frames their
// reports must name.
var stdFrames = map[string]string{
	"TestRaceSharedBuffer": "bytes.(*Buffer).WriteString", "TestRaceSortSharedSlice": "sort.Ints",
	"TestRaceSharedBuilder":  "strings.(*Builder).WriteString",
	"TestNoRaceSharedBuffer": "", "TestNoRaceSortSharedSlice": "", "TestNoRaceSharedBuilder": "",
	"TestRaceLoggerAndWriter": "bytes.(*Buffer).Write", "TestNoRaceLoggers": "",
}

// TestStdRaces: races inside the standard library are reported with
// -deps=all in each mode of modes, in each of 20 runs, naming the library's
// frames; the twins with a mutex report nothing.
func TestStdRaces(t *testing.T) {
	if bigfootBin == "" {
		t.Skip("end-to-end test; skipped with -short")
	}
	dir := writeModule(t, map[string]string{
		"go.mod":       "module example.com/user\n\ngo 1.22\n",
		"user_test.go": stdTests,
	})
	for _, mode := range modes {
		bin := filepath.Join(t.TempDir(), "user.test")
		r := run(t, dir, nil, bigfootBin, "test", "-deps=all", "-mode", mode, "-c", "-o", bin, ".")
		if r.code != 0 {
			t.Fatalf("%s: bigfoot test -c: %v", mode, r)
		}
		checkRuns(t, dir, bin, mode, 20, stdFrames)
	}
}

// TestStdAssemblyPackage: the Go files of a package with assembly are
// instrumented, as go -race instruments them (-deps=all): its test binary
// and a main package with assembly build, and a race inside the standard
// library, in code they call, is reported (a link failure was the symptom
// once); the test binary fails, and the main program exits with status
// 66 (the runtime runs the exit processing).
func TestStdAssemblyPackage(t *testing.T) {
	if bigfootBin == "" {
		t.Skip("end-to-end test; skipped with -short")
	}
	dir := writeModule(t, map[string]string{
		"go.mod":          "module example.com/asm\n\ngo 1.22\n",
		"stub.s":          "",
		"asm.go":          "package asm\n\nimport \"example.com/asm/share\"\n\nfunc Race() int { return share.Race() }\n",
		"cmd/main/stub.s": "",
		"cmd/main/main.go": `package main

import (
	"fmt"

	"example.com/asm/share"
)

func main() { fmt.Println(share.Race()) }
`,
		"asm_test.go": `package asm

import "testing"

func TestRaceAssembly(t *testing.T) {
	if n := Race(); n != 10 {
		t.Log(n)
	}
}
`,
		"share/share.go": `package share

import (
	"bytes"
	"sync"
)

// Race writes a shared bytes.Buffer from two goroutines.
func Race() int {
	var buf bytes.Buffer
	var wg sync.WaitGroup
	for i := 0; i < 2; i++ {
		wg.Add(1)
		go func() { defer wg.Done(); buf.WriteString("hello") }()
	}
	wg.Wait()
	return buf.Len()
}
`,
	})
	r := run(t, dir, nil, bigfootBin, "test", "-deps=all", "-count=1", ".")
	if r.code == 0 || !strings.Contains(r.stdout+r.stderr, "WARNING: DATA RACE") || !strings.Contains(r.stdout+r.stderr, "bytes.(*Buffer).WriteString") {
		t.Errorf("bigfoot test -deps=all in a package with assembly: want the race in bytes.Buffer reported; got %v", r)
	}
	bin := filepath.Join(t.TempDir(), "main")
	if r := run(t, dir, nil, bigfootBin, "build", "-deps=all", "-o", bin, "./cmd/main"); r.code != 0 {
		t.Fatalf("bigfoot build -deps=all of a main package with assembly: %v", r)
	}
	r = run(t, dir, nil, bin)
	if r.code != 66 || !strings.Contains(r.stderr, "WARNING: DATA RACE") {
		t.Errorf("main package with assembly: want the race reported and status 66; got %v", r)
	}
}

// syncTests share a user's io.Writer through a log.Logger: log's own
// Mutex, in code no -deps value instruments the same way, orders the
// writes (sync announces its operations itself); a write beside the
// logger races with them.
const syncTests = `package user

import (
	"log"
	"sync"
	"testing"
)

type sink struct{ lines [][]byte }

func (s *sink) Write(p []byte) (int, error) {
	s.lines = append(s.lines, append([]byte(nil), p...))
	return len(p), nil
}

func TestNoRaceLoggerToWriter(t *testing.T) {
	s := &sink{}
	l := log.New(s, "", 0)
	var wg sync.WaitGroup
	for i := 0; i < 4; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := 0; j < 20; j++ {
				l.Printf("line %d", j)
			}
		}()
	}
	wg.Wait()
	if len(s.lines) != 80 {
		t.Fatal(len(s.lines))
	}
}

func TestRaceLoggerBesideWriter(t *testing.T) {
	s := &sink{}
	l := log.New(s, "", 0)
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); l.Print("logged") }()
	go func() { defer wg.Done(); s.Write([]byte("direct")) }()
	wg.Wait()
}
`

// TestSyncInUninstrumentedCode: the locks of code that is not
// instrumented (here log's) order the instrumented code it calls, under
// every -deps value; the race beside them is still reported.
func TestSyncInUninstrumentedCode(t *testing.T) {
	if bigfootBin == "" {
		t.Skip("end-to-end test; skipped with -short")
	}
	dir := writeModule(t, map[string]string{
		"go.mod":       "module example.com/user\n\ngo 1.22\n",
		"user_test.go": syncTests,
	})
	frames := map[string]string{"TestNoRaceLoggerToWriter": "", "TestRaceLoggerBesideWriter": "(*sink).Write"}
	for _, deps := range []string{"main", "modules", "all"} {
		for _, mode := range []string{"bigfoot", "fasttrack"} {
			bin := filepath.Join(t.TempDir(), "user.test")
			r := run(t, dir, nil, bigfootBin, "test", "-deps="+deps, "-mode", mode, "-c", "-o", bin, ".")
			if r.code != 0 {
				t.Fatalf("-deps=%s -mode=%s: bigfoot test -c: %v", deps, mode, r)
			}
			checkRuns(t, dir, bin, mode+"/"+deps, 5, frames)
			// Every synchronization yields (sched=1), also sync's
			// own, inside sync.Pool's pinned section: no crash.
			r = run(t, dir, []string{"BIGFOOT_OPTIONS=sched=1"}, bin, "-test.run=^TestNoRace", "-test.count=3")
			if r.code != 0 || strings.Contains(r.stdout+r.stderr, "WARNING: DATA RACE") {
				t.Fatalf("-deps=%s -mode=%s with sched=1: want success, no race; got %v", deps, mode, r)
			}
		}
	}
}

// TestSyncCountedOnce: a Lock/Unlock pair in user code is announced once,
// by the user-level hooks, although package sync announces its own
// operations too (driver.syncSplices): stats=1 counts the synchronization
// operations of 1,000 pairs of each kind.
func TestSyncCountedOnce(t *testing.T) {
	dir, bin := buildUserMain(t, `package main

import "sync"

var (
	mu  sync.Mutex
	rw  sync.RWMutex
	n   int
)

func main() {
	for i := 0; i < 1000; i++ {
		mu.Lock()
		n++
		mu.Unlock()
		rw.Lock()
		n++
		rw.Unlock()
		rw.RLock()
		_ = n
		rw.RUnlock()
	}
}
`, "-mode", "fasttrack")
	r := run(t, dir, []string{"BIGFOOT_OPTIONS=stats=1"}, bin)
	m := regexp.MustCompile(` syncs=(\d+)`).FindStringSubmatch(r.stderr)
	if r.code != 0 || m == nil {
		t.Fatalf("want success and statistics, got %v", r)
	}
	// 7,000 clock operations (RWMutex.Lock acquires two clocks), plus what the runtime's start and exit do.
	if syncs, _ := strconv.Atoi(m[1]); syncs < 7000 || syncs > 7500 {
		t.Errorf("syncs=%d for 6,000 lock operations (7,000 clock operations); want each counted once", syncs)
	}
}

// TestStdFacts: the effect summaries of the instrumented standard library
// reach the main module's run. A loop whose body calls utf8.RuneLen, which
// neither synchronizes nor panics, gets a static range for a[i] under the
// default -deps=all; with -deps=main the call is unknown and a[i] keeps a
// per-iteration footprint record.
func TestStdFacts(t *testing.T) {
	dir := userModule(t, `package main

import (
	"fmt"
	"sync"
	"unicode/utf8"
)

func main() {
	a := make([]int, 1024)
	for i := range a {
		a[i] = i
	}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		s := 0
		for i := 0; i < len(a); i++ {
			s += a[i] * utf8.RuneLen(rune(i))
		}
		fmt.Println(s)
	}()
	wg.Wait()
}
`)
	emitted := func(deps string) string {
		t.Helper()
		src := keptMain(t, dir, "-deps="+deps)
		for _, line := range strings.Split(string(src), "\n") {
			if strings.Contains(line, "utf8.RuneLen") {
				return line
			}
		}
		t.Fatalf("-deps=%s: no line calls utf8.RuneLen:\n%s", deps, src)
		return ""
	}
	if line := emitted("all"); strings.Contains(line, "&a[i]") {
		t.Errorf("-deps=all: a[i] is checked in the loop, want a static range: %s", line)
	}
	if line := emitted("main"); !strings.Contains(line, "&a[i]") {
		t.Errorf("-deps=main: want a per-iteration record of a[i] (the call is unknown): %s", line)
	}
}
