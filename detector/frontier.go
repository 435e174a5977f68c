// Copyright 2026 The bigfoot Authors. All rights reserved.

package detector

// The synchronization frontier.
//
// After each GC cycle the shadow sweep drops the state of locations whose
// epochs all happen before every goroutine that can still access memory
// (shadow/frontier.go): FastTrack's check would pass for every future
// access. The detector supplies that bound, the frontier F: a vector
// clock below the clock of every goroutine, now and later.
//
// Goroutines own their vector clocks, and the sweeper must not read them.
// Instead each goroutine publishes a snapshot, an immutable copy of its
// clock, when asked: the sweeper bumps snapReq, and a goroutine that sees
// a new request at its next synchronization operation (countSync, after
// its pending checks and footprints are committed, so that no later
// deferred check of it runs with a smaller clock) publishes a copy. One
// atomic load per synchronization operation otherwise. The snapshots a
// sweep finds were thus published since the previous sweep, or earlier: a
// goroutine blocked meanwhile keeps its old one. Vector clocks only grow,
// so any old snapshot is a lower bound of its goroutine's clock, and an
// old one only makes F smaller (less is dropped, never anything wrong).
//
// F is the entrywise minimum of the snapshots of the live goroutines,
// those registered here from their creation to their Exit:
//
//   - A goroutine's own entry in its snapshot is its clock minus one, so
//     that F never covers a goroutine's current epoch: accesses still to
//     come in that epoch are not ordered before anything yet. (A state
//     holding a goroutine's current epoch is also never dropped under a
//     fast path that just found that epoch in it.)
//   - A forked child is registered at the go statement, before it runs,
//     with its parent's snapshot: a lower bound of the clock it copies.
//   - A goroutine with no visible creation edge (started by uninstrumented
//     code: curSlow, curStarted) has a clock that need not be above F, so
//     a dropped state could hide a race it would have found. It joins the
//     largest frontier any sweep used (maxF) into its initial clock: an
//     over-synchronization, but only with accesses that every goroutine
//     live at that sweep had already synchronized past (docs/runtime.md,
//     "Approximations that over-synchronize"). Registration and the
//     sweep's computation of F both run under frontiers.mu, so such a
//     goroutine is either counted in F or sees the F that was used.
//   - Exited goroutines are removed: they access no memory any more.
//   - A goroutine blocked in a WaitGroup's Wait counts with its snapshot
//     joined with the WaitGroup's clock, which it joins before its next
//     access; one blocked for a subtest's signal, with the signal's
//     clock or, before the subtest released into it, the subtest's
//     snapshot (waitingSnapshot).
//
// A goroutine that never exits through Exit (one started by uninstrumented
// code that returned) stays registered until its runtime g is reused, and
// pins F at its last snapshot: safe, it only keeps more state.

import (
	"sync/atomic"

	"github.com/bigfoot-go/bigfoot/internal/ownheap"
	"github.com/bigfoot-go/bigfoot/internal/spin"
	"github.com/bigfoot-go/bigfoot/shadow"
)

// maxFrontierWork bounds the snapshot entries one frontier computation
// reads (distinct snapshots times their length). Beyond it the sweep drops
// dead state only: a program with thousands of live goroutines and as many
// thread ids would otherwise spend seconds per cycle on it.
const maxFrontierWork = 1 << 24

var (
	// snapReq is bumped when a sweep asks for snapshots (askSnapshots):
	// goroutines publish a new snapshot at their next synchronization
	// operation.
	snapReq atomic.Uint64

	frontiers struct {
		mu   spin.Mutex
		gs   []*G     // live goroutines; g.liveIdx is g's index
		maxF []uint64 // the entrywise maximum of every frontier computed
	}
)

func init() {
	space.SetFrontier(frontier)
	space.SetSnapshotRequest(requestSnapshots)
}

// publish stores a snapshot of g's clock, answering request r.
func (g *G) publish(r uint64) {
	g.snapSeen = r
	if g.frozenCurrent() && g.frozen[g.tid] == g.t.VC[g.tid]-1 {
		// The frozen clock is g's, its own entry lowered by one: the
		// snapshot snapOf would copy.
		g.snap.Store(snapHeader(g.frozen))
		return
	}
	g.snap.Store(snapOf(g.t.VC, g.tid))
}

// publishIfAsked publishes a snapshot if a sweep asked for one since g's
// last. Callers have committed g's pending checks.
func (g *G) publishIfAsked() {
	if r := snapReq.Load(); r != g.snapSeen {
		g.publish(r)
	}
}

// publishIfWider publishes a snapshot, unasked, if g's clock grew wider
// than its last snapshot (it joined a peak of goroutines). It runs where
// a goroutine may then block for long, at a go statement (Fork, and
// package testing's before tRunner): a test's parent blocked in t.Run
// for the whole of the next test would otherwise hold the frontier, and
// with it the floor, below the peak, and every clock would keep the
// peak's entries. Callers have committed g's pending checks.
func (g *G) publishIfWider() {
	if s := g.snap.Load(); s != nil && len(*s) < len(g.t.VC) {
		g.publish(snapReq.Load())
	}
}

// snapOf returns a copy of vc with the entry of tid, the owner's current
// clock, lowered by one (see the package comment above), without the
// zero entries at its end (a missing entry is 0): a new goroutine's clock
// reaches its own entry, at its thread id, through zeros, and with
// thousands of live goroutines the copies of those zeros were a large
// part of the detector's memory. The copy and its header are made ahead
// (reserve.go): a goroutine publishes when a sweep asks, at its next
// synchronization, which may be in a call whose allocations a test
// counts.
func snapOf(vc []uint64, tid uint32) *[]uint64 {
	n := len(vc)
	for n > 0 && (vc[n-1] == 0 || n-1 == int(tid) && vc[n-1] == 1) {
		n--
	}
	s := frozenWords.copyOf(vc[:n])
	if int(tid) < len(s) && s[tid] > 0 {
		s[tid]--
	}
	return snapHeader(s)
}

// snapHeader returns a slice header for snapshot s, to publish through
// g.snap. The header of a snapshot as wide as a carved clock comes from a
// reserve; a wider one's is its own allocation, as its words are (a
// reserve's chunk lives while any of its headers does, and with them
// every snapshot they point to: with 1,500 live goroutines one chunk of
// 4,096 headers kept 48 MB of dead snapshots, hamba/avro's
// TestConcurrentParse).
func snapHeader(s []uint64) *[]uint64 {
	var h *[]uint64
	if len(s) > maxCarved {
		h = ownheap.New[[]uint64]()
	} else {
		h = snapHeaders.get()
	}
	*h = s
	return h
}

// snapHeaders are the slice headers of narrow snapshots (snapHeader).
var snapHeaders = newObjectReserve[[]uint64](256, 4096)

// registerLive adds g, just created, to the live goroutines with snapshot snap
// (nil: a snapshot of its own clock). If parentless, g has no creation
// edge: its clock first joins the largest frontier used so far.
func registerLive(g *G, snap *[]uint64, parentless bool) {
	fs := &frontiers
	fs.mu.Lock()
	if parentless && len(fs.maxF) > 0 {
		joinBelow(g, fs.maxF)
	}
	if snap == nil {
		snap = snapOf(g.t.VC, g.tid)
	}
	g.snapSeen = snapReq.Load()
	g.snap.Store(snap)
	g.liveIdx = len(fs.gs)
	fs.gs = append(fs.gs, g)
	fs.mu.Unlock()
}

// joinBelow joins f into g's clock, except g's own entry: f never covers a
// live goroutine's current epoch, and the entry of a reused thread id in f
// belongs to its previous owners, whose final clock g's already exceeds.
func joinBelow(g *G, f []uint64) {
	own := g.t.VC[g.tid]
	g.t.VC = join(g.t.VC, f)
	g.t.VC[g.tid] = own
}

// unregister removes g, which exited, from the live goroutines.
func unregister(g *G) {
	fs := &frontiers
	fs.mu.Lock()
	if i := g.liveIdx; i >= 0 && i < len(fs.gs) && fs.gs[i] == g {
		last := fs.gs[len(fs.gs)-1]
		fs.gs[i] = last
		last.liveIdx = i
		fs.gs[len(fs.gs)-1] = nil
		fs.gs = fs.gs[:len(fs.gs)-1]
		g.liveIdx = -1
	}
	fs.mu.Unlock()
}

// frontier computes the frontier for a sweep: the entrywise minimum of the
// live goroutines' snapshots (a missing entry is 0), or nil if there are
// no live goroutines or computing it would cost too much. It also asks
// every goroutine for a new snapshot, for the next sweep (see askSnapshots).
func frontier() []uint64 {
	fs := &frontiers
	fs.mu.Lock()
	defer fs.mu.Unlock()
	askSnapshots(len(fs.gs))
	f := minSnapshots(fs.gs, fs.maxF)
	if f != nil {
		fs.maxF = join(fs.maxF, f)
		shadow.SetFloor(append([]uint64(nil), fs.maxF...))
	}
	return f
}

// snapBudget bounds the snapshot entries that one request makes the live
// goroutines copy, on average per sweep (askSnapshots).
const snapBudget = 1 << 20

var (
	// sweepsSinceAsk counts the sweeps since the last request; guarded
	// by frontiers.mu.
	sweepsSinceAsk int
	// cheapAsk is set while a request costs at most snapBudget/2
	// entries (as of the last sweep's askSnapshots): requestSnapshots
	// asks only then, so that its requests and the sweeps' together
	// stay within snapBudget per sweep.
	cheapAsk atomic.Bool
)

// askSnapshots bumps the request counter, so that each of the live
// goroutines copies its clock (up to maxTID entries) at its next
// synchronization operation. With many goroutines and many thread ids a
// request every GC cycle would make the copies themselves a large part of
// the allocation (10,000 goroutines of 10,000 entries: 800 MB per cycle),
// so requests are spaced to copy at most snapBudget entries per sweep on
// average. Fewer requests only leave older snapshots: a smaller frontier.
func askSnapshots(live int) {
	sweepsSinceAsk++
	tids.mu.Lock()
	width := int(tids.next)
	tids.mu.Unlock()
	cost := live * width
	cheapAsk.Store(cost <= snapBudget/2)
	if cost <= snapBudget || sweepsSinceAsk >= cost/snapBudget {
		snapReq.Add(1)
		sweepsSinceAsk = 0
	}
}

// requestSnapshots is the shadow's request ahead of a sweep outside a GC
// cycle (shadow.Space.SetSnapshotRequest), halfway between two such
// sweeps: it asks for snapshots if a request is cheap, so that the sweep's
// frontier covers the synchronization up to the request, not only up to
// the previous sweep's. Requests that would copy many entries stay spaced
// by askSnapshots. It takes no lock: the shadow calls it with its own
// locks held.
func requestSnapshots() {
	if cheapAsk.Load() {
		snapReq.Add(1)
	}
}

// waitingSnapshot returns the bound of g's clock for the frontier while g
// is blocked for the clock of w, a WaitGroup's in Wait or a test's signal
// key (waitowner.go): its snapshot s joined with w's clock, which g joins
// before it accesses memory again (WaitGroupWait and waitFor commit g's
// deferred checks before it blocks). w's clock only grows until g joins
// it (a handoff key is emptied only by g's own acquire), so the clock g
// will join is at least the one read here, under w's lock, while g is
// still blocked (g clears waitOn under that lock as it joins). A signal
// key with no release yet counts its owner's snapshot instead, a lower
// bound of the clock the owner will release into it. g's own entry stays
// below its clock: g ticks after every release, and no other goroutine's
// clock reaches g's current epoch. So a goroutine blocked in Wait for the
// whole run (a pipeline's main goroutine), or in t.Run for a whole test,
// does not hold the frontier at its last snapshot, and the sweep can drop
// what the others settled since. s (shared with g) is not changed.
func waitingSnapshot(g *G, w *syncVar, s []uint64) []uint64 {
	w.mu.Lock()
	defer w.mu.Unlock()
	if g.waitOn.Load() != w {
		return s // awake, and joined w already
	}
	s = ownheap.Append([]uint64(nil), s...)
	if len(w.vc) == 0 && !w.shared {
		return join(s, g.ownerSnapshot())
	}
	return w.joinInto(s)
}

// minSnapshots returns the entrywise minimum of the snapshots of gs, nil if
// gs is empty, every entry is 0, or the work exceeds maxFrontierWork. An
// entry missing from a snapshot, or below floor's, counts as floor's: every
// clock is at least the floor (shadow.SetFloor), and trimmed clocks, and so
// their snapshots, leave out the entries it covers.
func minSnapshots(gs []*G, floor []uint64) []uint64 {
	if len(gs) == 0 {
		return nil
	}
	seen := make(map[*[]uint64]struct{})
	var f []uint64
	work := 0
	for i, g := range gs {
		p := g.snap.Load()
		s := *p
		if w := g.waitOn.Load(); w != nil {
			s = waitingSnapshot(g, w, s)
		} else if _, ok := seen[p]; ok {
			continue
		} else {
			seen[p] = struct{}{}
		}
		if i == 0 {
			f = join(append([]uint64(nil), s...), floor)
			continue
		}
		work += len(f)
		if work > maxFrontierWork {
			return nil
		}
		for j := range f {
			var x uint64
			if j < len(s) {
				x = s[j]
			}
			if j < len(floor) {
				x = max(x, floor[j])
			}
			f[j] = min(f[j], x)
		}
		for len(f) > 0 && f[len(f)-1] == 0 {
			f = f[:len(f)-1]
		}
		if len(f) == 0 {
			return nil
		}
	}
	return f
}
