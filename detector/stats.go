// Copyright 2026 The bigfoot Authors. All rights reserved.

package detector

import (
	"fmt"
	"os"
	"reflect"
	"sync/atomic"
	"unsafe"

	"github.com/bigfoot-go/bigfoot/internal/ownheap"
	"github.com/bigfoot-go/bigfoot/shadow"
)

// stats holds the counters flushed from goroutine states. Goroutines count
// in their own state (no shared cache line on the hot path) and flush here
// at exit and, with stats=1, every 64 sync operations; the counts of
// goroutines still running at program exit are therefore approximate.
var stats struct {
	checks, checkOps, ranges, syncs, accesses, goroutines, fpCommits, footprints, moved, pendingMade atomic.Uint64
	acquiresSpared                                                                                   atomic.Uint64
	rules                                                                                            [shadow.NumRules]atomic.Uint64
}

// What a synchronization operation does to the goroutine's vector clock,
// for the verifier (verify.go): a check covers and is legitimate for
// accesses across an operation only in one direction, by what it does.
const (
	syncAcquire = 1 << iota // joins another clock into the goroutine's
	syncRelease             // publishes the goroutine's clock and starts a new epoch
	syncBoth    = syncAcquire | syncRelease
)

// countSync is called by every synchronization operation before it
// acquires or releases, holding no lock of the detector's: it waits while
// a sweep that fell behind stalls the program (shadow.WaitBehindSweep),
// commits the goroutine's pending footprints
// (their accesses precede the operation), publishes a snapshot of its
// clock if a sweep asked for one, and counts the operation. (It does not
// yield for sched=N: an acquire follows its operation, so the yield
// points are the hooks' own, before the operation: G.yield.)
// An operation that may both acquire and release calls countSync; one
// that only acquires or only releases says so with countSyncAs.
func (g *G) countSync() {
	g.countSyncAs(syncBoth)
}

// countSyncAs is countSync for an operation that does what kind says
// (syncAcquire, syncRelease or both).
func (g *G) countSyncAs(kind uint8) {
	shadow.WaitBehindSweep()
	g.commitFootprints()
	g.publishIfAsked() // after the commit: see frontier.go
	if verifyChecks {
		g.verifySpan(endSync, kind)
	}
	g.syncs++
	if g.syncs%64 == 0 && opts.stats {
		// Only the stats line reads the totals; without it the
		// goroutine's counts wait for its exit.
		g.flush()
	}
}

// flush adds the goroutine's counters to stats and zeroes them.
func (g *G) flush() {
	stats.checks.Add(g.t.Stats.Checks)
	stats.checkOps.Add(g.checkOps)
	stats.fpCommits.Add(g.fpCommits)
	stats.footprints.Add(g.footprints)
	stats.moved.Add(g.pend.moved)
	stats.pendingMade.Add(g.pend.made)
	g.pend.moved, g.pend.made = 0, 0
	stats.ranges.Add(g.ranges)
	stats.syncs.Add(g.syncs)
	stats.acquiresSpared.Add(g.acquiresSpared)
	g.acquiresSpared = 0
	stats.accesses.Add(g.accesses)
	for i, n := range g.t.Stats.Rules {
		stats.rules[i].Add(n)
	}
	g.t.Stats = shadow.Stats{}
	g.ranges, g.syncs, g.accesses, g.checkOps, g.fpCommits, g.footprints = 0, 0, 0, 0, 0, 0
}

func statsLine() string {
	s := "bigfoot stats:"
	if countAccesses {
		// checks: check operations (an element, a range, a field group
		// each count one), the numerator of the check ratio.
		s += fmt.Sprintf(" accesses=%d checks=%d", stats.accesses.Load(), stats.checkOps.Load())
	}
	s += fmt.Sprintf(" shadow_ops=%d ranges=%d footprint_commits=%d footprints=%d syncs=%d goroutines=%d races=%d shadow_pages=%d",
		stats.checks.Load(), stats.ranges.Load(), stats.fpCommits.Load(), stats.footprints.Load(), stats.syncs.Load(),
		stats.goroutines.Load(), races.Load(), space.Len())
	// moved: footprint ranges moved past their function's return;
	// pending_checks: the checks they became (pending.go).
	s += fmt.Sprintf(" moved=%d pending_checks=%d", stats.moved.Load(), stats.pendingMade.Load())
	// acquires_spared: acquires, atomic loads among them, that joined
	// nothing and committed nothing (atomic.go).
	s += fmt.Sprintf(" acquires_spared=%d", stats.acquiresSpared.Load())
	// gc_counter: where the shadow reads the number of GC cycles
	// (driver/gccount.go); ident_proof: how it proves an object's
	// identity across cycles (driver/allocver.go).
	// sync_weak: sync objects proven by a weak pointer, not a version.
	s += fmt.Sprintf(" gc_cycles=%d gc_counter=%s ident_proof=%s sync_weak=%d", shadow.ExactGen(), shadow.GCCounter(), shadow.IdentProof(), syncWeak.Load())
	sh := space.ShapeStats()
	s += fmt.Sprintf(" runs_coarse=%d runs_block=%d runs_stride=%d runs_mapped=%d run_granules=%d fine_granules=%d split_granules=%d part_granules=%d shadow_bytes=%d",
		sh.Coarse, sh.Block, sh.Stride, sh.Mapped, sh.RunGranules, sh.Fine, sh.Split, sh.Parts, sh.Bytes)
	// own_allocs, own_alloc_bytes: the detector's heap objects, left
	// out of the program's runtime.MemStats (internal/ownheap).
	n, b := ownheap.Counts()
	s += fmt.Sprintf(" own_allocs=%d own_alloc_bytes=%d", n, b)
	if sched.n != 0 {
		s += fmt.Sprintf(" sched_yields=%d", schedYields.Load())
	}
	// rules: how often each FastTrack rule applied, on every path (the
	// inlined same-epoch checks count theirs too).
	sep := " rules="
	for i := range stats.rules {
		s += fmt.Sprintf("%s%s:%d", sep, shadow.Rule(i), stats.rules[i].Load())
		sep = ","
	}
	return s
}

// finish flushes the calling goroutine's counters, prints statistics if
// asked and closes the log, once: the exit processing may run twice, from
// Exit or TestMainEnd and then from the runtime's exit (exitHook). code is
// the status the program asked to exit with; at 0, after a race, it prints
// "Found N data race(s)", as go -race's exit processing does (racefini,
// which the runtime runs only for a status of 0).
func finish(code int) {
	if finished.Swap(true) {
		return
	}
	g := Cur()
	g.commitFootprints() // may report: before reportMu
	if verifyChecks {
		g.verifySpan(endFinish, syncBoth)
	}
	reportMu.Lock()
	defer reportMu.Unlock()
	defer stdQuiet()()
	finishLocked(g)
	if n := races.Load(); n > 0 && code == 0 {
		fmt.Fprintf(output(), "Found %d data race(s)\n", n)
	}
}

func finishLocked(g *G) {
	g.flush()
	if opts.stats {
		fmt.Fprintln(stderr, statsLine())
	}
	if verifyChecks {
		fmt.Fprintln(output(), verifyLine())
	}
	if logFile != nil {
		logFile.Sync()
	}
}

// finished is set by the first finish.
var finished atomic.Bool

// exitHook is the exit processing the runtime runs when main.main returns
// and at os.Exit, after the exit hooks, where bigfoot's driver added it
// (driver/exithook.go): it finishes and returns the status to exit with
// instead of code. The runtime's file declares the variable through a
// linkname; the detector's init sets it.
//
//lint:ignore U1000 the runtime reads it through a linkname.
var exitHook func(code int) int

func init() {
	exitHook = func(code int) int {
		finish(code)
		return exitStatus(code)
	}
}

// Exit replaces os.Exit in instrumented code: it prints statistics if
// asked and exits with exitStatus(code).
func Exit(code int) {
	finish(code)
	os.Exit(exitStatus(code))
}

// exitStatus is the status a program exits with when it asks for code:
// code itself if it is not 0, else exitcode (default 66) if races were
// reported, or verifyExitCode (67) if the verifier (build tag
// bigfoot_verify) found checks that are not precise.
func exitStatus(code int) int {
	switch {
	case code != 0:
	case races.Load() > 0:
		code = opts.exitcode
	case verifyChecks && verifyViolations() > 0:
		code = verifyExitCode
	}
	return code
}

// Main runs the program's main function (renamed) and then exits like
// Exit(0).
func Main(main func()) {
	Cur() // the main goroutine's state, which the standard library's hooks never create
	main()
	Exit(0)
}

// TestMainStart is the first statement of a test binary's TestMain (the
// package's own, left where it is, or the one the instrumenter adds): its
// argument, Cur(), gives the main goroutine its state, which the standard
// library's hooks never create, before the tests start. The same statement defers TestMainEnd, so no
// frame of the runtime stands between the testing package and TestMain.
func TestMainStart(g *G) {
}

// TestMainEnd runs when TestMain returns (or panics): it prints statistics
// if asked and sets the status m.Run recorded, which the go test driver
// exits with after TestMain, to exitStatus of it. m is the *testing.M.
func TestMainEnd(m any) {
	f := exitCodeField(m)
	if !f.IsValid() {
		finish(1)
		return
	}
	v := reflect.NewAt(f.Type(), unsafe.Pointer(f.UnsafeAddr())).Elem()
	finish(int(v.Int()))
	v.SetInt(int64(exitStatus(int(v.Int()))))
}

// exitCodeField is the exitCode field of *testing.M m (unexported), or the
// zero Value if m has none.
func exitCodeField(m any) reflect.Value {
	v := reflect.ValueOf(m)
	if v.Kind() != reflect.Pointer || v.IsNil() || v.Elem().Kind() != reflect.Struct {
		return reflect.Value{}
	}
	f := v.Elem().FieldByName("exitCode")
	if !f.IsValid() || !f.CanInt() {
		return reflect.Value{}
	}
	return f
}

// TB is the part of testing.TB the runtime uses.
type TB interface {
	Cleanup(func())
	Errorf(format string, args ...any)
}

// TestStart is the first statement of every test, benchmark and fuzz
// function: it releases into the handoff clock (for goroutines the test
// starts through uninstrumented code) and makes the test fail if a race is
// reported before it ends.
func TestStart(g *G, t TB) {
	base := races.Load()
	shadow.RefreshGen()
	handoff.release(g)
	t.Cleanup(func() {
		handoff.release(Cur())
		if !testingCounts && races.Load() > base {
			t.Errorf("race detected during execution of test")
		}
	})
}

// testingCounts is set, in the init of internal/race, where bigfoot's
// driver made internal/race.Errors return raceErrors (driver/racecount.go):
// package testing then fails a test with a race itself, as under -race,
// and TestStart leaves it to it. The variable is that file's through a
// linkname: no other code writes it.
var testingCounts bool

// raceErrors is what internal/race.Errors returns in a bigfoot build: the
// number of races reported. internal/race reads it through a linkname.
//
//lint:ignore U1000 internal/race reads it through a linkname.
var raceErrors func() int

func init() { raceErrors = RaceErrors }

// Run is t.Run(name, f) or b.Run(name, f): the subtest runs in a goroutine
// the testing package starts, which the handoff clock orders after the
// parent's past. Where package testing has bigfoot's edges
// (testingEdges), they order the subtest after the call and the return
// after the subtest's end (or its t.Parallel), and the subtest's
// goroutine acquires the handoff clock when it first runs instrumented
// code (curSlow): f runs as it is, the entry of the subtest's stack as
// under go -race, and the parent releases the subtest's past into the
// handoff clock when Run returns. Otherwise f runs in a wrapper that
// acquires the handoff clock and releases it at the subtest's end.
func Run[T any](g *G, run func(string, func(T)) bool, name string, f func(T)) bool {
	handoff.release(g)
	if testingEdges {
		ok := run(name, f)
		handoff.acquire(g)
		handoff.release(g)
		return ok
	}
	ok := run(name, func(t T) {
		cg := Cur()
		defer handoff.release(cg)
		handoff.acquire(cg)
		f(t)
	})
	handoff.acquire(g)
	return ok
}
