// Copyright 2026 The bigfoot Authors. All rights reserved.

package detector

import (
	"bytes"
	"runtime"
	"strconv"
	"sync/atomic"
	"unsafe"

	"github.com/bigfoot-go/bigfoot/internal/ownheap"
	"github.com/bigfoot-go/bigfoot/internal/spin"
	"github.com/bigfoot-go/bigfoot/shadow"
)

// A G is the detector's state of one goroutine: its thread id and vector
// clock (in the embedded shadow.Thread) and its counters. Emitted code gets
// it once per function with Cur and passes it to every hook. A G is owned by
// its goroutine; other goroutines read only the fields that are atomic or
// published before the G is shared.
type G struct {
	t shadow.Thread
	// lastStrided is the goroutine's last strided check (checkStrided).
	lastStrided stridedCheck
	// stdOff, while positive, turns the goroutine's standard-library
	// hooks off (stdCur): the runtime's own work on the goroutine, such
	// as the verifier sorting its intervals, calls instrumented
	// standard-library code that must not count as the program's.
	// Only the goroutine itself touches it.
	stdOff int32
	sched  schedState // schedule perturbation (sched.go)
	tid    uint32
	goid   uint64 // set before the G is published in the registry
	// serial identifies the G among all that ever existed (never 0):
	// the channel queues tell by it that two clocks are of one goroutine
	// and so ordered (chanQueue.fold).
	serial   uint64
	key      uintptr
	forkSite uint32
	// forkStack is the creating goroutine's stack at the go statement
	// (stacks.go), which a report shows below forkSite; 0 if unknown.
	forkStack uint32
	parent    uint64 // goid of the creating goroutine, 0 if unknown
	pub       atomic.Uint64
	exited    atomic.Bool
	// snap is the goroutine's last published snapshot, a lower bound of
	// its vector clock, for the frontier (frontier.go); snapSeen is the
	// request it answered, liveIdx its index among the live goroutines
	// (guarded by frontiers.mu).
	snap     atomic.Pointer[[]uint64]
	snapSeen uint64
	liveIdx  int
	// waitOn is the clock the goroutine is blocked for, a WaitGroup's
	// in Wait or a test's signal key (waitFor), which it will join
	// before it accesses memory again (frontier.go); set and cleared
	// under the clock's lock. waitOwner, set with it, is the owner slot
	// of the goroutine that releases into the key (waitowner.go), nil
	// for a WaitGroup.
	waitOn    atomic.Pointer[syncVar]
	waitOwner *unsafe.Pointer

	selects []selectCase // cases of a select in progress (SelectPre)
	// chans are the states of the channels at chanPs the goroutine used
	// last (G.chanOf): a pipeline stage receives from one channel and
	// sends on another. chanNext is the entry a miss replaces.
	chanPs   [2]uintptr
	chans    [2]*chanState
	chanNext int
	// syncVars are the sync objects at syncAddrs the goroutine used
	// last, the most recent first (G.lockSync).
	syncAddrs [2]uintptr
	syncVars  [2]*syncVar
	bubble    *bubble // the testing/synctest bubble the goroutine is in, nil if none (synctest.go)
	// outer is the cleanup goroutine's own state while g is the state
	// of a cleanup it runs (cleanup.go), nil otherwise.
	outer *G

	// selfRead says an instrumented Read or ReadAt method began since
	// the innermost ReadInto's call (SelfRead): it checked its writes.
	selfRead bool

	// Counters, flushed into the global statistics at sync operations
	// and at exit (see stats.go).
	syncs          uint64
	acquiresSpared uint64 // acquires that joined nothing (acquiresNothing)
	ranges         uint64
	accesses       uint64
	checkOps       uint64 // check operations (counted with accesses)
	fpCommits      uint64 // footprint ranges checked
	footprints     uint64 // footprints obtained (Footprint calls)

	fp         fpStack       // pending footprints (footprint.go)
	pend       pendingChecks // checks moved past their function's return (pending.go)
	seen       stdSeen       // elements nested library returns checked in the epoch (stdseen.go)
	committing bool          // checking a footprint: reports name its site first
	// commitFP is the footprint whose range is being checked, nil
	// otherwise (a pending check, a side set)
	commitFP *Footprint
	// pendStack is the stack of the pending check being made (its
	// accesses'), 0 otherwise (pending.go)
	pendStack uint32
	// org and orgElem: the address of the element a static range's
	// entry counts from and the element size, while that range is
	// checked (0: another check), for a report to name the site that
	// touched the racing element (exact.go).
	org, orgElem uintptr
	hist         *history // the thread id's history, nil if off (history.go)
	// changes: the site changes of FM's footprints not yet moved to
	// hist (sitechange.go); nil until the first
	changes *changeLog
	// frozen is the last copy of the clock that sync objects and the
	// snapshot share (objclock.go); nobody changes it.
	frozen []uint64

	verify *verifyLog // the current span's records (verify.go); nil without bigfoot_verify

	// clockArray is the array outside the Go heap that forkG made for
	// the clock, which freeClock frees; nil for other goroutines.
	clockArray []uint64

	// child is what Fork returns for the goroutine whose state this
	// is: part of the G, not an object of its own at every go statement.
	child Child
}

// A Child is a goroutine being created: the state the parent prepared for
// it at the go statement (Fork), which the new goroutine adopts (Start).
type Child struct{ g *G }

// gSerial numbers the Gs (G.serial).
var gSerial atomic.Uint64

// registry maps the calling goroutine (its runtime g pointer, or its goid
// where getg is not available) to its G.
var registry shadow.Map[G]

// space is the process's shadow memory.
var space = shadow.NewSpace()

// Cur returns the calling goroutine's state, creating it if the goroutine
// was started by uninstrumented code. Emitted code calls it once per
// function. With the runtime's goroutine hooks it is a load from the
// goroutine's g (curG); otherwise, and for the first call after a go
// statement, which hands the g's word to the new goroutine, it is a
// lock-free hash lookup by the g, plus a comparison of goids that detects
// a g the runtime reused for a new goroutine (curReg).
func Cur() *G {
	if g := curG(); g != nil {
		return g
	}
	return curReg()
}

// curReg is Cur by the registry.
func curReg() *G {
	key, gp := curKey()
	if g := registry.Load(key); g != nil && (goidOff == 0 || goidOf(gp) == g.goid) {
		g.keep(gp)
		return g
	}
	return curSlow(key, gp)
}

// keep keeps g, the state of the calling goroutine whose g is gp, in the
// goroutine's slot (curG), with the low bit set, in place of an earlier
// state of the goroutine's that g replaces (start: Start or WaitGroupGo's
// state after the one adopted from the standard library's go statement),
// unless the slot holds a state a go statement prepared, whose bit is
// clear: for the goroutine the caller's next go statement creates, or one
// for the calling goroutine that it did not adopt.
func (g *G) keep(gp unsafe.Pointer) {
	if slotOff != 0 {
		if w := slot(gp); *w == 0 || *w&1 != 0 {
			*w = g.slotWord()
		}
	}
}

// slotWord is g as its goroutine's slot holds it (keep).
func (g *G) slotWord() uintptr { return uintptr(unsafe.Pointer(g)) | 1 }

// curSlow adopts the state an instrumented go statement prepared for the
// goroutine (adopt), makes a cleanup's (cleanupState), or creates the
// state of a goroutine started elsewhere.
// The latter has no fork edge, so it acquires the process-wide handoff
// clock (see docs/api.md, "Goroutines started elsewhere").
func curSlow(key uintptr, gp unsafe.Pointer) *G {
	if g := adopt(key, gp); g != nil {
		return g
	}
	if g := cleanupState(key, gp); g != nil {
		return g
	}
	shadow.RefreshGen() // see shadow.RefreshGen: goroutine boundaries
	handoff.mu.Lock()
	vc := ownheap.Append([]uint64(nil), handoff.vc...)
	handoff.mu.Unlock()
	g := newG(vc, 0, 0, 0)
	registerLive(g, nil, true)
	g.start(key, gp)
	return g
}

// curStarted returns the calling goroutine's state, creating it with an
// empty clock if it has none: for goroutines started by uninstrumented
// code whose creation edge the caller acquires next (a time.AfterFunc
// callback, a synctest bubble's root). Unlike curSlow it does not
// acquire the handoff clock, which the end of a test releases into: a
// callback that runs after its test returned would be ordered after
// everything the test did (the afterfunctest kernel, missed in loaded
// runs), where Go's race runtime orders it after the timer's creation
// only.
func curStarted() *G {
	key, gp := curKey()
	if g := registry.Load(key); g != nil && (goidOff == 0 || goidOf(gp) == g.goid) {
		return g
	}
	if g := adopt(key, gp); g != nil {
		return g
	}
	shadow.RefreshGen() // see shadow.RefreshGen: goroutine boundaries
	g := newG(nil, 0, 0, 0)
	registerLive(g, nil, true)
	g.start(key, gp)
	return g
}

// newG allocates a thread id for a goroutine whose initial vector clock is
// vc (which it takes over), created at site with the stack stack by the
// goroutine parent, and returns its state.
func newG(vc []uint64, site, stack uint32, parent uint64) *G {
	tid, clock := tids.alloc(vc, site, stack, parent)
	vc = lengthen(vc, int(tid)+1)
	return makeG(vc, tid, clock, site, stack, parent)
}

// forkG is newG for a go statement: the child's clock is a copy of pvc,
// the parent's, made once its thread id is known, so that it has room
// for its own entry (a copy as long as the parent's was copied again
// whenever the child's id was beyond it: a new id at most go statements
// of a program whose goroutines outnumber the quarantine). The copy is
// outside the Go heap (G.clockArray), with room to grow to its size
// class: a program that starts a goroutine per request made a clock of
// garbage per request, and another where the child's first join grew it.
func forkG(pvc []uint64, site, stack uint32, parent uint64) *G {
	tid, clock := tids.alloc(pvc, site, stack, parent)
	vc := shadow.AllocWords(max(len(pvc), int(tid)+1))
	copy(vc, pvc)
	g := makeG(vc, tid, clock, site, stack, parent)
	g.clockArray = vc
	return g
}

// freeClock frees g's clock array (forkG), once g's goroutine no longer
// needs it: at g's Exit (nothing runs on g after it), where the clock is
// dropped, or when start replaces g while frames of g's goroutine may
// still use it (WaitGroupGo's state after the one the standard library's
// go statement made), where the clock moves to the heap. Other
// goroutines never read a G's clock: they read its published epoch and
// snapshots, which are copies.
func (g *G) freeClock(keep bool) {
	a := g.clockArray
	if a == nil {
		return
	}
	if vc := g.t.VC; unsafe.SliceData(vc) == unsafe.SliceData(a) {
		g.t.VC = nil
		if keep {
			g.t.VC = ownheap.Append([]uint64(nil), vc...)
		}
	}
	g.clockArray = nil
	shadow.FreeWords(a)
}

// makeG returns the state of a goroutine with thread id tid from clock
// on, whose vector clock is vc (taken over, long enough for tid).
func makeG(vc []uint64, tid uint32, clock uint64, site, stack uint32, parent uint64) *G {
	vc[tid] = clock
	m := ownheap.Begin()
	g := &G{tid: tid, forkSite: site, forkStack: stack, parent: parent, serial: gSerial.Add(1), hist: tids.historyOf(tid)}
	m.End()
	g.t.VC = vc
	g.t.Epoch = shadow.MakeEpoch(tid, clock)
	g.pub.Store(uint64(g.t.Epoch))
	return g
}

// start registers g as the calling goroutine's state. An entry it replaces
// belongs to a goroutine that exited without Exit (its g was reused), whose
// thread id can now be recycled.
func (g *G) start(key uintptr, gp unsafe.Pointer) {
	g.key = key
	g.t.GP = gp
	g.goid = curGoid(gp)
	tids.setGoid(g.tid, shadow.Epoch(g.pub.Load()).Clock(), g.goid)
	stats.goroutines.Add(1)
	if old := registry.Store(key, g); old != nil && old != g && !old.exited.Swap(true) {
		unregister(old)
		old.t.Release() // its goroutine is gone: nobody else uses old.t
		old.freeClock(true)
		c := shadow.Epoch(old.pub.Load()).Clock()
		tids.free(old.tid, c, c)
	}
	g.keep(gp)
}

// Fork is called by the parent at a go statement: it prepares the child's
// state, whose vector clock is a copy of the parent's (the go statement
// happens before the goroutine starts), and advances the parent's clock.
func (g *G) Fork(site uint32) *Child {
	// Keep the GC generation current, so that what the child (and the
	// parent) record next is not taken for state from before a cycle.
	shadow.RefreshGen()
	g.t.VC = trim(g.t.VC, int(g.tid)+1)
	c := forkG(g.t.VC, site, creatorStack(g), g.goid)
	g.commitFootprints()
	g.publishIfWider()
	// The parent's snapshot is a lower bound of the clock c copies.
	registerLive(c, g.snap.Load(), false)
	c.bubble = g.bubble
	c.sched = g.sched.fork(g)
	g.commitFootprints()
	g.publishIfAsked()
	if verifyChecks {
		g.verifySpan(endSync, syncRelease)
	}
	g.tick()
	g.syncs++
	c.child.g = c
	return &c.child
}

// Start is the first statement of a goroutine created by an instrumented go
// statement: it installs the state prepared by Fork.
func Start(c *Child) *G {
	key, gp := curKey()
	c.g.start(key, gp)
	c.g.yield()
	return c.g
}

// Exit is deferred by every instrumented goroutine: it removes the state
// and recycles the thread id. What it allocates (a free list's or the
// thread-id queue's growth) is the detector's (internal/ownheap).
func (g *G) Exit() {
	m := ownheap.Begin()
	defer m.End()
	g.cancelSelect()
	g.commitFootprints()
	g.bubbleIdle()
	if verifyChecks {
		g.verifySpan(endExit, syncBoth)
	}
	g.flush()
	if g.exited.Swap(true) {
		return
	}
	g.fp.release()
	g.seen.release()
	g.releaseSelects()
	unregister(g)
	g.t.Release()
	if slotOff != 0 && g.t.GP != nil && *slot(g.t.GP) == g.slotWord() {
		// Nothing keeps g reachable once the registry drops it.
		*slot(g.t.GP) = 0
	}
	registry.CompareAndDelete(g.key, g)
	final, seen := g.t.Epoch.Clock(), g.t.Epoch.Clock()
	if g.t.Recorded != g.t.Epoch {
		seen-- // nothing recorded since the release that made final
	}
	tids.free(g.tid, final, seen)
	g.freeClock(false)
}

// tick advances the goroutine's clock; called after every release.
func (g *G) tick() {
	g.t.VC[g.tid]++
	g.t.Epoch++
	g.pub.Store(uint64(g.t.Epoch))
}

// tids allocates thread ids. FastTrack needs a recycled id to continue from
// a clock greater than any epoch its previous owner published, and the new
// owner must be ordered after those epochs, because its own vector clock
// entry claims them. An id freed at exit therefore waits in a FIFO until
// a forking parent already knows its last visible epoch (it happens
// before the parent, e.g. through WaitGroup.Wait) or more than quarantine
// ids were freed after it. The last visible epoch is the final one if
// the goroutine recorded an access at it, else the one before: the
// release that ended it, whose tick made the final epoch (a worker's
// deferred wg.Done, its last operation, releases clock c and exits at
// c+1; the parent's Wait learns c). Without that, every id of a loop of
// fork-and-wait rounds went through the quarantine, and every clock
// carried quarantine entries more than the live goroutines need; it is then spare, and the new owner of a spare id is
// treated as ordered after the old one, which may hide races between them
// (documented in docs/runtime.md). Spare ids are reused lowest first, so
// that after a peak of live goroutines the ids in use are again the
// lowest ones, and the entries of the peak's ids at the end of every
// vector clock, once the floor covers them, are trimmed (trim) instead of
// being carried by every later join and fork. Memory stays bounded by the
// peak number of live goroutines plus quarantine.
var tids tidTable

type tidTable struct {
	mu     spin.Mutex
	next   uint32
	queue  []freeTID // freed, at most quarantine, oldest first
	head   int
	spare  tidHeap    // freed and past the quarantine
	owners []owners   // per tid, its recent owners
	hists  []*history // per tid, its history (history.go)
}

const quarantine = 64

type freeTID struct {
	tid   uint32
	final uint64 // the owner's last clock; the next owner's starts after it
	seen  uint64 // the owner's last visible clock: final, or final-1
}

// A tidHeap is a min-heap of free thread ids by id.
type tidHeap []freeTID

func (h *tidHeap) push(f freeTID) {
	*h = append(*h, f)
	s := *h
	for i := len(s) - 1; i > 0; {
		p := (i - 1) / 2
		if s[p].tid <= s[i].tid {
			break
		}
		s[p], s[i] = s[i], s[p]
		i = p
	}
}

func (h *tidHeap) pop() freeTID {
	s := *h
	top := s[0]
	n := len(s) - 1
	s[0] = s[n]
	s = s[:n]
	for i := 0; ; {
		c := 2*i + 1
		if c >= n {
			break
		}
		if c+1 < n && s[c+1].tid < s[c].tid {
			c++
		}
		if s[i].tid <= s[c].tid {
			break
		}
		s[i], s[c] = s[c], s[i]
		i = c
	}
	*h = s
	return top
}

// owners are a thread id's last maxOwners owners, oldest first: a fixed
// array, so that a go statement that reuses the id allocates nothing (a
// slice trimmed to its last four made two objects at every fork).
type owners struct {
	n int
	o [maxOwners]owner
}

const maxOwners = 4

// list returns the owners, oldest first.
func (os *owners) list() []owner { return os.o[:os.n] }

// add appends o, dropping the oldest owner if the array is full.
func (os *owners) add(o owner) {
	if os.n == maxOwners {
		copy(os.o[:], os.o[1:])
		os.n--
	}
	os.o[os.n] = o
	os.n++
}

type owner struct {
	start    uint64 // first clock of this owner
	goid     uint64
	site     uint32 // fork site
	stack    uint32 // fork stack (G.forkStack)
	parent   uint64
	finished bool
}

func init() { tids.next = 1 }

func (ts *tidTable) alloc(vc []uint64, site, stack uint32, parent uint64) (uint32, uint64) {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	var tid uint32
	var clock uint64 = 1
	if len(ts.spare) > 0 {
		f := ts.spare.pop()
		tid, clock = f.tid, f.final+1
	} else if len(ts.queue) > ts.head {
		if f := ts.queue[ts.head]; shadow.HB(shadow.MakeEpoch(f.tid, f.seen), vc) {
			ts.dequeue()
			tid, clock = f.tid, f.final+1
		}
	}
	if tid == 0 {
		if ts.next > shadow.MaxTID {
			panic("bigfoot: too many live goroutines")
		}
		tid = ts.next
		ts.next++
		for len(ts.owners) <= int(tid) {
			ts.owners = append(ts.owners, owners{})
		}
	}
	ts.owners[tid].add(owner{start: clock, site: site, stack: stack, parent: parent})
	return tid, clock
}

// dequeue removes the oldest id of the FIFO and returns it.
func (ts *tidTable) dequeue() freeTID {
	f := ts.queue[ts.head]
	ts.queue[ts.head] = freeTID{}
	ts.head++
	if ts.head > 1024 && ts.head*2 > len(ts.queue) {
		ts.queue = append([]freeTID(nil), ts.queue[ts.head:]...)
		ts.head = 0
	}
	return f
}

// free queues tid, whose owner ended at clock final, its last access
// recorded at clock seen (final, or final-1 if none was recorded at
// final: see tids).
func (ts *tidTable) free(tid uint32, final, seen uint64) {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	if os := ts.owners[tid].list(); len(os) > 0 {
		os[len(os)-1].finished = true
	}
	ts.queue = append(ts.queue, freeTID{tid, final, seen})
	if len(ts.queue)-ts.head > quarantine {
		ts.spare.push(ts.dequeue())
	}
}

func (ts *tidTable) setGoid(tid uint32, start, goid uint64) {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	os := ts.owners[tid].list()
	for i := range os {
		if o := &os[i]; o.start == start {
			o.goid = goid
		}
	}
}

// ownerOf returns the owner of thread id e.TID() at e's clock.
func ownerOf(e shadow.Epoch) (owner, bool) {
	ts := &tids
	ts.mu.Lock()
	defer ts.mu.Unlock()
	t := e.TID()
	if int(t) >= len(ts.owners) {
		return owner{}, false
	}
	os := ts.owners[t].list()
	for i := len(os) - 1; i >= 0; i-- {
		if os[i].start <= e.Clock() {
			return os[i], true
		}
	}
	return owner{}, false
}

// stackGoid parses the calling goroutine's id from runtime.Stack.
func stackGoid() int64 {
	var buf [64]byte
	b := buf[:runtime.Stack(buf[:], false)]
	b = bytes.TrimPrefix(b, []byte("goroutine "))
	if i := bytes.IndexByte(b, ' '); i >= 0 {
		b = b[:i]
	}
	id, _ := strconv.ParseInt(string(b), 10, 64)
	return id
}
