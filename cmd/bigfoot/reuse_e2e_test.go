package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// TestReuseNoFalseRace runs testdata/reuse/churn, race-free goroutines that
// allocate, fill and drop short-lived slices with garbage collections in
// between, in each mode of modes, many times: no run may report a race. Deferred
// checks (slimstate and bigfoot modes) used to commit after the garbage
// collector had reused their memory for another goroutine's slice and
// reported a false race in most runs.
func TestReuseNoFalseRace(t *testing.T) {
	runs := 20
	if testing.Short() {
		runs = 3
	}
	wantOutputEveryRun(t, "churn", runs, "")
}

// wantOutputEveryRun runs testdata/reuse/<prog> with go run, which must
// print want (if not empty), then builds it in each mode of modes and runs it runs
// times: every run must exit with status 0, report no race and print what
// go run printed.
func wantOutputEveryRun(t *testing.T, prog string, runs int, want string) {
	bin := bigfootForTest(t)
	root, _ := filepath.Abs("../../testdata/reuse")
	plain := run(t, root, nil, "go", "run", "./"+prog)
	if plain.code != 0 || !strings.Contains(plain.stdout, want) {
		t.Fatalf("go run ./%s: want %q; got %v", prog, want, plain)
	}
	for _, mode := range modes {
		t.Run(mode, func(t *testing.T) {
			exe := filepath.Join(t.TempDir(), prog)
			if r := run(t, root, nil, bin, "build", "-mode="+mode, "-o", exe, "./"+prog); r.code != 0 {
				t.Fatalf("bigfoot build -mode=%s: %v", mode, r)
			}
			for i := 0; i < runs; i++ {
				r := run(t, root, nil, exe)
				if r.code != 0 || strings.Contains(r.stderr, "DATA RACE") || r.stdout != plain.stdout {
					t.Fatalf("run %d of %d in mode %s: want exit status 0, no race and %q; got %v", i+1, runs, mode, plain.stdout, r)
				}
			}
		})
	}
}

// TestReshareNoFalseRace runs testdata/reuse/reshare, records handed
// from one goroutine to another (so that their state is shared) and
// dropped, then the same memory refilled by a goroutine that never
// synchronized with those two, in each mode of modes, many times: no run may
// report a race. The shadow must see that the memory holds new objects
// (the runtime's allocation versions, driver/allocver.go); with versions
// that never change it reported a false race in 4 of 5 runs.
func TestReshareNoFalseRace(t *testing.T) {
	runs := 10
	if testing.Short() {
		runs = 3
	}
	wantOutputEveryRun(t, "reshare", runs, "filled 20000 true")
}

// TestCollectAfterGC runs testdata/reuse/collect, records handed from one
// goroutine to another and then dropped, in each mode of modes: after the
// program's runtime.GC every record must be collected, as without bigfoot.
// The shadow holds such records until its next sweep (shadow/ident.go);
// without the release before the program's runtime.GC, 43 of its 100
// records survived the cycle.
func TestCollectAfterGC(t *testing.T) {
	wantOutputEveryRun(t, "collect", 3, "collected 100 of 100")
}

// TestRaceAcrossGC runs testdata/reuse/straddle, two races (a heap
// variable and a global) whose accesses straddle forced GC cycles, in
// each mode of modes, many times: every run must report both, as go -race does.
// The runtime used to drop the first access's state at the first access
// after a cycle (it could have been a dead object's) and missed both.
func TestRaceAcrossGC(t *testing.T) {
	wantRacesEveryRun(t, "straddle", "straddle/main.go:35", "straddle/main.go:36")
}

// TestRaceAcrossGCManyObjects runs testdata/reuse/straddlemany, a race
// across a forced GC cycle on the last of 100 objects one goroutine
// created and wrote before it, in each mode of modes, many times: every run must
// report it, as go -race does. The shadow kept the first state of only
// 64 new objects per GC cycle across it (trackBudget) and missed it.
func TestRaceAcrossGCManyObjects(t *testing.T) {
	wantRacesEveryRun(t, "straddlemany", "straddlemany/main.go:37")
}

// wantRacesEveryRun builds testdata/reuse/<prog> in each mode of modes and runs it
// 20 times (3 with -short): every run must report exactly one race at
// each of sites (file:line), and no other.
func wantRacesEveryRun(t *testing.T, prog string, sites ...string) {
	bin := bigfootForTest(t)
	runs := 20
	if testing.Short() {
		runs = 3
	}
	root, _ := filepath.Abs("../../testdata/reuse")
	for _, mode := range modes {
		t.Run(mode, func(t *testing.T) {
			exe := filepath.Join(t.TempDir(), prog)
			if r := run(t, root, nil, bin, "build", "-mode="+mode, "-o", exe, "./"+prog); r.code != 0 {
				t.Fatalf("bigfoot build -mode=%s: %v", mode, r)
			}
			for i := 0; i < runs; i++ {
				r := run(t, root, nil, exe)
				ok := strings.Count(r.stderr, "WARNING: DATA RACE") == len(sites)
				for _, site := range sites {
					ok = ok && strings.Contains(r.stderr, site)
				}
				if !ok {
					t.Fatalf("run %d of %d in mode %s: want the races at %v; got %v", i+1, runs, mode, sites, r)
				}
			}
		})
	}
}

var (
	shortBinOnce sync.Once
	shortBin     string
	shortBinErr  error
)

// removeShortBin removes the command bigfootForTest built, if any.
func removeShortBin() {
	if shortBin != "" {
		os.RemoveAll(filepath.Dir(shortBin))
	}
}

// bigfootForTest returns the bigfoot command: the one TestMain built, or
// with -short, where TestMain builds none, one built for the tests that
// still run then.
func bigfootForTest(t *testing.T) string {
	t.Helper()
	if bigfootBin != "" {
		return bigfootBin
	}
	shortBinOnce.Do(func() {
		dir, err := os.MkdirTemp("", "bigfoot-short-")
		if err != nil {
			shortBinErr = err
			return
		}
		shortBin = filepath.Join(dir, "bigfoot")
		if out, err := exec.Command("go", "build", "-o", shortBin, ".").CombinedOutput(); err != nil {
			shortBinErr = err
			t.Logf("%s", out)
		}
	})
	if shortBinErr != nil {
		t.Fatalf("building bigfoot: %v", shortBinErr)
	}
	return shortBin
}

// TestRaceAfterHandoffGC runs testdata/reuse/handoff, a race on a small
// record that two goroutines shared (handed over a channel) before forced
// GC cycles, with a third goroutine that writes it after them, in every
// mode, many times: every run must report it, as go -race does. The
// record's state has no weak pointer of its own (the fresh records before
// it spend the budget of tracking), so the race is found only if the
// adoption's proof of the object's identity (the weak pointer adoption
// makes, shadow/gc.go) survives the cycles.
func TestRaceAfterHandoffGC(t *testing.T) {
	wantRacesEveryRun(t, "handoff", "handoff/main.go:49")
}

// TestGCCounterFromRuntime: a bigfoot build reads the number of completed
// GC cycles from the runtime (the file the driver adds to package
// runtime, driver/gccount.go), not from runtime/metrics, and the count it
// reads is the runtime's: at exit at least the cycles the program saw
// through runtime/metrics after its own runtime.GC calls. Its shadow
// proves object identity by the runtime's allocation versions
// (driver/allocver.go).
func TestGCCounterFromRuntime(t *testing.T) {
	dir, bin := buildUserMain(t, `package main

import (
	"fmt"
	"runtime"
	"runtime/metrics"
)

func main() {
	for range 3 {
		runtime.GC()
	}
	s := []metrics.Sample{{Name: "/gc/cycles/total:gc-cycles"}}
	metrics.Read(s)
	fmt.Println(s[0].Value.Uint64())
}
`)
	r := run(t, dir, []string{"BIGFOOT_OPTIONS=stats=1"}, bin)
	m := regexp.MustCompile(` gc_cycles=(\d+) gc_counter=(\w+) ident_proof=(\w+)`).FindStringSubmatch(r.stderr)
	if r.code != 0 || m == nil {
		t.Fatalf("want success and statistics, got %v", r)
	}
	if m[2] != "runtime" {
		t.Errorf("gc_counter=%s, want runtime", m[2])
	}
	if m[3] != "version" {
		t.Errorf("ident_proof=%s, want version (driver/allocver.go)", m[3])
	}
	seen, _ := strconv.Atoi(strings.TrimSpace(r.stdout))
	if got, _ := strconv.Atoi(m[1]); seen < 3 || got < seen {
		t.Errorf("gc_cycles=%d at exit, the program saw %d after 3 runtime.GC calls", got, seen)
	}
}

// TestVersionsAdvanceAtFree builds a program that reads the runtime's
// allocation versions (driver/allocver.go) of objects it allocates, drops
// some of them and collects: the words of every dropped object, small or
// large, have a new version, those of every object it keeps the one
// they had, and allocating does not move a version (the sweep alone
// counts: bigfootSwept, which reads the span's bitmaps 64 objects at a
// time and advances runs of freed objects, or the pages of a span whose
// objects all die).
func TestVersionsAdvanceAtFree(t *testing.T) {
	dir, bin := buildUserMain(t, `package main

import (
	"fmt"
	"runtime"
	"unsafe"
)

//go:linkname versionPage github.com/bigfoot-go/bigfoot/shadow.runtimeVersionPage
var versionPage func(p uintptr) (*[512]uint8, uint8)

func version(p uintptr) uint8 {
	vp, pv := versionPage(p &^ 4095)
	if vp == nil {
		panic(fmt.Sprintf("%#x: not in a heap span", p))
	}
	return vp[p&4095>>3] + pv
}

type small [8]int64  // one word of versions per object
type odd [5]int64    // objects across version words
type large [8192]int64
type mid [12]int64   // spans of which every object dies

func main() {
	if versionPage == nil {
		fmt.Println("no versions")
		return
	}
	var addrs []uintptr
	var keep []any
	var kept []bool
	var all []unsafe.Pointer // every object, until the collection
	for i := range 3000 {
		var p unsafe.Pointer
		switch i % 100 {
		case 0:
			p = unsafe.Pointer(new(large))
		case 1, 2, 3:
			p = unsafe.Pointer(new(odd))
		default:
			p = unsafe.Pointer(new(small))
		}
		addrs = append(addrs, uintptr(p))
		all = append(all, p)
		// Runs of dropped and kept objects of several lengths.
		k := i%7 == 0 || i%13 < 3
		kept = append(kept, k)
		if k {
			keep = append(keep, (*byte)(p))
		}
	}
	// Whole spans of objects that all die: the pages' versions move.
	for range 2000 {
		p := unsafe.Pointer(new(mid))
		addrs = append(addrs, uintptr(p))
		all = append(all, p)
		kept = append(kept, false)
	}
	before := make([]uint8, len(addrs))
	for i, a := range addrs {
		before[i] = version(a)
	}
	// Allocation moves no version: the same objects, read again.
	for range 1000 {
		_ = new(small)
	}
	for i, a := range addrs {
		if version(a) != before[i] {
			fmt.Println("moved by allocation:", i)
			return
		}
	}
	runtime.KeepAlive(all)
	all = nil
	runtime.GC()
	runtime.GC()
	// New objects take the memory of the dead ones, in spans in use
	// again, where their versions can be read.
	var again []*mid
	for range 4000 {
		again = append(again, new(mid))
	}
	bad, checked := 0, 0
	for i, a := range addrs {
		vp, _ := versionPage(a &^ 4095)
		if vp == nil {
			continue // a large object's span went back to the heap
		}
		checked++
		if moved := version(a) != before[i]; moved == kept[i] {
			bad++
			if bad < 5 {
				fmt.Println("object", i, "kept", kept[i], "moved", moved)
			}
		}
	}
	runtime.KeepAlive(keep)
	runtime.KeepAlive(again)
	if checked < len(addrs)/2 {
		fmt.Println("checked only", checked, "of", len(addrs))
	}
	fmt.Println("bad", bad)
}
`)
	r := run(t, dir, nil, bin)
	if r.code != 0 || strings.TrimSpace(r.stdout) != "bad 0" {
		t.Fatalf("want bad 0, got %v", r)
	}
}
