// Copyright 2026 The bigfoot Authors. All rights reserved.

package detector

import (
	"reflect"
	"runtime"
	"sync"
	"sync/atomic"
	"unsafe"
	"weak"

	"github.com/bigfoot-go/bigfoot/internal/ownheap"
	"github.com/bigfoot-go/bigfoot/internal/spin"
	"github.com/bigfoot-go/bigfoot/shadow"
)

// A syncVar is the vector clock of a synchronization object (a mutex, an
// atomic variable, an address passed to RaceRelease, ...), keyed by address.
// Releases join the releasing goroutine's clock into it; acquires join it
// into the acquiring goroutine's clock (Flanagan, Freund, "FastTrack:
// Efficient and Precise Dynamic Race Detection", PLDI 2009, §3).
type syncVar struct {
	mu      spin.Mutex
	waiters int32 // a WaitGroup's waiters in WaitGroupWait; guarded by mu
	// deleted says the sweeper removed the object from syncs; guarded
	// by mu.
	deleted bool
	// shared says vc is a goroutine's frozen clock, which other objects
	// share, whose entry inline[0] inline[1] raises, of the goroutine
	// whose serial is inline[2] (objclock.go).
	shared bool
	// refrozen counts the new frozen copies the shared clock took
	// (objclock.go, hot); guarded by mu.
	refrozen uint8
	vc       []uint64 // inline's while it fits, or a frozen clock (shared)
	obj      objProof // the object at the address, for reclaiming; guarded by mu
	// inline holds the clock of a program of few goroutines, saving
	// an allocation and a cache miss per sync object (a table of a
	// million atomically accessed words has a million). The fields
	// come in this order so that a syncVar takes 128 bytes (shared
	// fills deleted's padding).
	inline [6]uint64
	// dom is the serial of a goroutine whose clock is at least vc's,
	// whose acquire is then skipped (objclock.go), 0 if none is known.
	dom uint64
}

// newSyncVar returns the sync object of a new entry at addr, for g.
func (g *G) newSyncVar(addr uintptr) *syncVar {
	v := syncVars.get()
	v.vc = v.inline[:0]
	if p := shadow.PtrOf(addr); !shadow.OnStack(g.t.GP, p) && shadow.IsHeap(p) {
		v.obj.prove(addr)
	}
	return v
}

// An objProof tells whether the heap object a sync object's clock was
// made for still occupies its address: by the object's allocation
// version where the runtime keeps them (shadow.VersionProof), else by a
// weak pointer. The zero objProof is an immortal object's (a global, a
// stack variable), which nothing reclaims.
//
// Versions cost nothing outside the sync object, where each weak pointer
// is a special record in its span's sorted list, so that making one costs
// the number of the span's others: the weak pointers of a million
// atomically accessed words of one slice took minutes (issue 29).
type objProof struct {
	ver       shadow.VersionProof
	versioned bool
	wp        weak.Pointer[byte]
}

// prove makes p the proof of the heap object at addr, which the caller
// keeps reachable.
func (p *objProof) prove(addr uintptr) {
	if ver, ok := shadow.ProveVersion(addr); ok {
		*p = objProof{ver: ver, versioned: true}
		return
	}
	*p = objProof{wp: weak.Make((*byte)(shadow.PtrOf(addr)))}
	syncWeak.Add(1)
}

// syncWeak counts the weak pointers made for sync objects, for the stats
// line: none where the runtime keeps allocation versions.
var syncWeak atomic.Int64

// stale reports whether the object p was made for may no longer be the
// one at addr, which the caller keeps reachable (an object died and a new
// one took its memory, or a version proof aged).
func (p *objProof) stale(addr uintptr) bool {
	switch {
	case p.versioned:
		return !p.ver.Check(addr)
	case p.wp != (weak.Pointer[byte]{}):
		return !weakLive(p.wp)
	}
	return false
}

// dead reports whether the object p was made for was freed, for the
// sweeper, which holds no object at the address.
func (p *objProof) dead(addr uintptr) bool {
	switch {
	case p.versioned:
		return p.ver.Freed(addr)
	case p.wp != (weak.Pointer[byte]{}):
		return p.wp.Value() == nil
	}
	return false
}

var syncs = shadow.Map[syncVar]{Words: true}

// syncVars are the sync objects made ahead (reserve.go); syncRoom is the
// number of new sync objects the table takes without a resize after each
// GC cycle.
var syncVars = newObjectReserve[syncVar](512, 8192)

const syncRoom = 64

func init() {
	syncs.Grow(syncRoom)
	shadow.AfterGC(sweepSyncs)
}

// lockSync returns the sync object at addr, locked, or nil if there is
// none and create is false.
//
// A heap sync object holds a proof of its object (objProof), so that the
// sweeper drops the clocks of dead objects. Memory freed and reused by a
// new object (a new WaitGroup at the address of a dead one) may find the
// old entry still in the map; its proof is renewed to the new object here
// (renew), under the lock, so that the sweeper, which decides and deletes
// under the same lock, never drops a clock that a live object has
// released into. An object the sweeper deleted first is looked up again.
//
// The goroutine remembers the two sync objects it used last (a Lock and
// its Unlock, an RLock at the address and its RUnlock at address+1): a
// remembered object is the table's entry for its address until the
// sweeper deletes it, which it checks under the lock.
func (g *G) lockSync(addr uintptr, create bool) *syncVar {
	for i := range g.syncAddrs {
		if v := g.syncVars[i]; v != nil && g.syncAddrs[i] == addr {
			v.mu.Lock()
			if !v.deleted {
				v.renew(addr)
				return v
			}
			v.mu.Unlock()
			break
		}
	}
	v := g.lookupSync(addr, create)
	switch {
	case v == nil:
	case g.syncAddrs[0] == addr:
		g.syncVars[0] = v // replaces one the sweeper deleted
	default:
		g.syncAddrs[1], g.syncVars[1] = g.syncAddrs[0], g.syncVars[0]
		g.syncAddrs[0], g.syncVars[0] = addr, v
	}
	return v
}

// lookupSync is lockSync's lookup in the table.
func (g *G) lookupSync(addr uintptr, create bool) *syncVar {
	for {
		v := syncs.Load(addr)
		made := false
		if v == nil {
			if !create {
				return nil
			}
			var loaded bool
			v, loaded = syncs.LoadOrStore(addr, func() *syncVar { return g.newSyncVar(addr) })
			made = !loaded
		}
		v.mu.Lock()
		if v.deleted {
			v.mu.Unlock()
			continue
		}
		if !made {
			v.renew(addr)
		}
		return v
	}
}

// renew makes v's proof the object's now at addr if the one it was made
// for may have died. A clock whose object was proven freed (its version
// moved on) starts anew, as go -race's runtime drops the sync objects of
// freed memory; one that only may be stale (an aged proof, a cleared weak
// pointer, which an object queued for finalization has too) is kept: a
// stale clock only adds synchronization. v is locked.
func (v *syncVar) renew(addr uintptr) {
	if !v.obj.stale(addr) {
		return
	}
	if v.obj.versioned && v.obj.dead(addr) {
		v.reset()
	}
	v.obj.prove(addr)
}

// syncSweepEvery is how many GC cycles the detector observes per sweep of
// the sync objects, unless their number doubled since the last sweep. A
// sweep visits every sync object, a cache miss each; a dead object's
// entry left for a few more cycles costs its memory (an object allocated
// at its address renews it) and the frozen clock it shares, whose chunk
// it keeps (objclock.go). A program that makes atomics at new addresses
// all the time (a concurrent map resized again and again) made the
// entries of dead objects most of the heap, which paced the collector:
// the cycles came further apart, each sweep dropped more, and the live
// heap doubled between sweeps (4.8 GB after a collection, where go -race
// peaked at 90 MB). A sweep once the number doubles costs at most one
// visit per entry made.
const syncSweepEvery = 4

// syncSweeps counts sweepSyncs' calls; syncsSwept is the number of sync
// objects the last sweep left.
var (
	syncSweeps int
	syncsSwept int
)

// sweepSyncs drops the sync objects of dead heap objects, every
// syncSweepEvery cycles or once their number doubled, and the states of
// dead channels. It decides and deletes under the object's lock (see
// lockSync). The AfterGC hooks run one at a time.
func sweepSyncs() {
	syncSweeps++
	if syncSweepDue(syncSweeps, syncs.Len(), syncsSwept) {
		// Objects the cycle found unreachable are freed by the
		// runtime's sweep, which may not have reached them yet: their
		// sync objects would wait a cycle more (driver/sweephook.go).
		shadow.FinishSweep()
		sweepSyncVars()
		syncsSwept = syncs.Len()
	}
	syncs.Grow(syncRoom)
	chans.Range(func(addr uintptr, c *chanState) bool {
		if c.wp.Value() == nil && chans.CompareAndDelete(addr, c) {
			c.release()
		}
		return true
	})
}

// syncSweepDue reports whether sweepSyncs' nth call sweeps the sync
// objects, live of them now, of which the last sweep left swept.
func syncSweepDue(n, live, swept int) bool {
	return n%syncSweepEvery == 0 || live > 2*max(swept, syncRoom)
}

// sweepSyncVars drops the sync objects of dead heap objects.
func sweepSyncVars() {
	syncs.Range(func(addr uintptr, v *syncVar) bool {
		v.mu.Lock()
		if v.obj.dead(addr) {
			v.deleted = true
			// No goroutine uses v after it finds it deleted. Where
			// sync objects come in chunks (newObjectReserve), v's
			// lives while any of its 8,192 objects does: a clock
			// left here would live as long.
			v.vc = nil
			syncs.CompareAndDelete(addr, v)
		}
		v.mu.Unlock()
		return true
	})
}

// join sets dst to the pointwise maximum of dst and src. The maximum is
// stored whether or not it changed the entry: without a branch to
// mispredict, the loop takes two thirds of the time on entries that
// differ at random (the clocks of atomics many goroutines share), and no
// more on equal ones. dst is the caller's: no other goroutine reads it
// unlocked.
func join(dst, src []uint64) []uint64 {
	dst = lengthen(dst, len(src))
	joinWords(dst, src)
	return dst
}

// lengthen returns vc with zero entries added up to n, a new array
// allocated as the detector's (internal/ownheap).
func lengthen(vc []uint64, n int) []uint64 {
	if n <= len(vc) {
		return vc
	}
	m := ownheap.Begin()
	vc = append(vc, make([]uint64, n-len(vc))...)
	m.End()
	return vc
}

// joinGo is joinWords in Go. Four entries a step: a clock is as wide as
// the thread ids in use, a thousand in a suite whose goroutines each send
// on a channel, and each step's maxima are independent (the loop of one a
// step took 1.8x as long on 1,000 entries).
func joinGo(d, s []uint64) {
	d = d[:len(s)]
	i := 0
	for ; i+4 <= len(s); i += 4 {
		x, t := s[i:i+4:i+4], d[i:i+4:i+4]
		t[0], t[1], t[2], t[3] = max(t[0], x[0]), max(t[1], x[1]), max(t[2], x[2]), max(t[3], x[3])
	}
	for ; i < len(s); i++ {
		d[i] = max(d[i], s[i])
	}
}

// trim drops from the end of vc the entries the floor covers
// (shadow.SetFloor: every clock is at least the floor, so HB reads a
// missing entry as the floor's), keeping at least keep entries. A
// goroutine keeps its own entry (keep is its tid+1), which the floor never
// covers. Clocks trimmed where they are joined stay as long as the thread
// ids in use since the floor last rose, not as the peak of live
// goroutines: the cost of every later join and fork
// (TestClocksShrinkAfterPeak).
func trim(vc []uint64, keep int) []uint64 {
	if len(vc) <= keep {
		return vc
	}
	return trimTo(vc, keep, shadow.Floor())
}

// trimTo is trim with floor f.
func trimTo(vc []uint64, keep int, f []uint64) []uint64 {
	n := len(vc)
	for n > keep && n <= len(f) && vc[n-1] <= f[n-1] {
		n--
	}
	return vc[:n]
}

// joinClock joins src into g's clock and trims it.
func (g *G) joinClock(src []uint64) {
	g.t.VC = trim(join(g.t.VC, src), int(g.tid)+1)
}

// releaseInto returns dst, an object's clock, joined with g's and trimmed.
func (g *G) releaseInto(dst []uint64) []uint64 {
	return trim(join(dst, g.t.VC), 0)
}

// acquire orders the goroutine after every release of the object at addr.
func (g *G) acquire(addr uintptr) {
	if g.acquiresNothing(addr) {
		return
	}
	g.countSyncAs(syncAcquire)
	v := g.lockSync(addr, false)
	if v == nil {
		return // never released: nothing to acquire
	}
	v.acquireBy(g)
	v.mu.Unlock()
}

// take is acquire of a handoff, whose every release one acquire takes
// before the next release (package testing's, testingTake): it empties
// the object's clock, whose entries the goroutine now has.
func (g *G) take(addr uintptr) {
	g.countSyncAs(syncAcquire)
	v := g.lockSync(addr, false)
	if v == nil {
		return
	}
	v.acquireBy(g)
	v.reset()
	v.mu.Unlock()
}

// release orders the goroutine's past before later acquires of addr.
func (g *G) release(addr uintptr) {
	g.yield()
	g.countSyncAs(syncRelease)
	v := g.lockSync(addr, true)
	v.releaseBy(g)
	v.mu.Unlock()
	g.tick()
}

// A clockBox is a vector clock held by a closure rather than keyed by an
// address: the handoff clock, Once functions, finalizers and cleanups.
type clockBox struct {
	mu spin.Mutex
	vc []uint64
}

func (b *clockBox) release(g *G) {
	g.yield()
	g.countSyncAs(syncRelease)
	b.mu.Lock()
	b.vc = g.releaseInto(b.vc)
	b.mu.Unlock()
	g.tick()
}

func (b *clockBox) acquire(g *G) {
	g.countSyncAs(syncAcquire)
	b.mu.Lock()
	b.vc = trim(b.vc, 0)
	g.joinClock(b.vc)
	b.mu.Unlock()
}

// handoff is released by TestStart, Run and test ends and acquired by
// goroutines whose creation the detector did not see.
var handoff clockBox

// lockRead checks a read of a lock's memory by a Lock or Unlock. The lock
// changes its state with atomic operations, which Go's race detector sees:
// they do not race with each other, but a plain write of the lock (m =
// sync.Mutex{}) concurrent with them does. A read models exactly that:
// reads never conflict with reads, only with writes.
func (g *G) lockRead(p unsafe.Pointer, size uintptr) {
	g.Read(p, size, hookSite(hookLock))
}

func addr[T any](p *T) uintptr { return uintptr(unsafe.Pointer(p)) }

// acquireAt and releaseAt acquire and release the sync object of *p (at
// p's address plus off) and keep *p alive until they are done. Without
// that, an object whose last use is the operation the hook wraps (the
// WaitGroup of wg.Wait(), a mutex unlocked for the last time) could be
// collected between that operation and the acquire, and the sweeper
// would drop the clock the acquire must join (sweepSyncs): a lost
// happens-before edge, that is a false race.
func acquireAt[T any](g *G, p *T, off uintptr) {
	g.acquire(addr(p) + off)
	runtime.KeepAlive(p)
}

func releaseAt[T any](g *G, p *T, off uintptr) {
	g.release(addr(p) + off)
	runtime.KeepAlive(p)
}

// dataWord returns the data word of an interface value: the pointer for
// pointer-shaped dynamic types (channels, maps, pointers), else the address
// of the boxed copy.
func dataWord(x any) uintptr {
	return (*[2]uintptr)(unsafe.Pointer(&x))[1]
}

// The hooks of Mutex and RWMutex announce the operation themselves, with
// the goroutine state at hand, and hide it from package sync's own hooks
// (driver.syncSplices, which order the locks of uninstrumented code) by
// G.stdOff while they call the method, so that no operation counts twice.
// None of these methods panics (a bad unlock is a fatal error), so the
// count always comes back.

// Lock locks m; the lock acquires m's clock.
func Lock(g *G, m *sync.Mutex) {
	g.yield()
	g.stdOff++
	m.Lock()
	g.stdOff--
	acquireAt(g, m, 0)
	g.lockRead(unsafe.Pointer(m), unsafe.Sizeof(*m))
}

// Unlock releases into m's clock and unlocks m.
func Unlock(g *G, m *sync.Mutex) {
	g.lockRead(unsafe.Pointer(m), unsafe.Sizeof(*m))
	releaseAt(g, m, 0)
	g.stdOff++
	m.Unlock()
	g.stdOff--
}

// TryLock tries to lock m and acquires its clock if it succeeds.
func TryLock(g *G, m *sync.Mutex) bool {
	g.yield()
	g.stdOff++
	ok := m.TryLock()
	g.stdOff--
	if !ok {
		return false
	}
	acquireAt(g, m, 0)
	return true
}

// An RWMutex has two clocks: the writers' (at its address), released by
// Unlock and acquired by every lock, and the readers' (at its address+1),
// released by RUnlock and acquired by Lock. Readers are not ordered among
// themselves.

// RWLock write-locks m.
func RWLock(g *G, m *sync.RWMutex) {
	g.yield()
	g.stdOff++
	m.Lock()
	g.stdOff--
	acquireAt(g, m, 0)
	acquireAt(g, m, 1)
}

// RWUnlock write-unlocks m.
func RWUnlock(g *G, m *sync.RWMutex) {
	releaseAt(g, m, 0)
	g.stdOff++
	m.Unlock()
	g.stdOff--
}

// RWRLock read-locks m.
func RWRLock(g *G, m *sync.RWMutex) {
	g.yield()
	g.stdOff++
	m.RLock()
	g.stdOff--
	acquireAt(g, m, 0)
}

// RWRUnlock read-unlocks m.
func RWRUnlock(g *G, m *sync.RWMutex) {
	releaseAt(g, m, 1)
	g.stdOff++
	m.RUnlock()
	g.stdOff--
}

// RWTryLock tries to write-lock m.
func RWTryLock(g *G, m *sync.RWMutex) bool {
	g.yield()
	g.stdOff++
	ok := m.TryLock()
	g.stdOff--
	if !ok {
		return false
	}
	acquireAt(g, m, 0)
	acquireAt(g, m, 1)
	return true
}

// RWTryRLock tries to read-lock m.
func RWTryRLock(g *G, m *sync.RWMutex) bool {
	g.yield()
	g.stdOff++
	ok := m.TryRLock()
	g.stdOff--
	if !ok {
		return false
	}
	acquireAt(g, m, 0)
	return true
}

// LockerLock locks l; the clock is keyed by l's data word, which for the
// usual *sync.Mutex is the same object Lock uses. (RWMutex.RLocker's
// locker shares the writers' clock of its RWMutex: more synchronization
// than the readers' true order, never less.)
func LockerLock(g *G, l sync.Locker) {
	g.yield()
	l.Lock()
	g.acquire(dataWord(l))
	runtime.KeepAlive(l)
}

// LockerUnlock unlocks l.
func LockerUnlock(g *G, l sync.Locker) {
	g.release(dataWord(l))
	runtime.KeepAlive(l)
	l.Unlock()
}

// The WaitGroup model is Go's race runtime's (sync/waitgroup.go): Done
// (Add with a negative delta) releases into wg's clock and Wait acquires
// it when it returns; an Add that raises the counter from zero reads
// &wg.sema and the first Wait that has to block writes it, so that an Add
// from zero that is not ordered before a Wait that waits is reported as a
// race (misuse: Go's TestRaceWaitGroupWrongAdd and WrongWait). The counter
// is the WaitGroup's own; the hooks serialize on wg's sync object the
// increments they make and the waits they start, so that "from zero"
// and "first waiter" are decided as atomically as in WaitGroup itself.

// wgLayout locates the counter and the semaphore in a sync.WaitGroup;
// ok is false (and the misuse checks are off) if the layout is not the
// expected one.
//
// semaSize is how many bytes the model's accesses of &wg.sema cover: the
// semaphore and the rest of its 8-byte granule that lies in the
// WaitGroup (its padding). Go's race runtime reads and writes one byte
// there; a one-byte access in a granule that a write of the whole
// WaitGroup (its zero value stored by instrumented code) recorded whole
// would split the granule into one state per byte. No access reaches
// those bytes without reaching the semaphore's first byte (the padding
// belongs to the WaitGroup, and the semaphore is only accessed whole or
// with the whole WaitGroup), so the conflicts found are the same.
var wgLayout = func() (l struct {
	state, sema, semaSize uintptr
	ok                    bool
}) {
	t := reflect.TypeFor[sync.WaitGroup]()
	st, ok1 := t.FieldByName("state")
	se, ok2 := t.FieldByName("sema")
	l.state, l.sema = st.Offset, se.Offset
	l.semaSize = min(t.Size()-l.sema, 8-l.sema%8)
	l.ok = ok1 && ok2 && st.Type.Size() == 8 && l.state%8 == 0 && se.Type.Size() == 4
	return l
}()

// wgCounter returns wg's counter and waiter count.
func wgCounter(wg *sync.WaitGroup) (v int32, w uint32) {
	state := (*atomic.Uint64)(unsafe.Add(unsafe.Pointer(wg), wgLayout.state)).Load()
	return int32(state >> 32), uint32(state & 0x7fffffff)
}

// wgSema returns &wg.sema.
func wgSema(wg *sync.WaitGroup) unsafe.Pointer {
	return unsafe.Add(unsafe.Pointer(wg), wgLayout.sema)
}

// WaitGroupAdd adds delta to wg's counter: Done's release for a negative
// delta, the read of &wg.sema for an increment from zero.
func WaitGroupAdd(g *G, wg *sync.WaitGroup, delta int) {
	if delta < 0 {
		releaseAt(g, wg, 0)
	}
	if delta <= 0 || !wgLayout.ok {
		wg.Add(delta)
		return
	}
	g.wgIncrement(wg, func() { wg.Add(delta) })
}

// wgIncrement runs add, which increments wg's counter (Add, Go),
// serialized with the other increments under wg's clock lock; an
// increment from zero reads &wg.sema, as in Go's race runtime.
func (g *G) wgIncrement(wg *sync.WaitGroup, add func()) {
	v := g.lockSync(addr(wg), true)
	before, _ := wgCounter(wg)
	func() {
		defer v.mu.Unlock() // Add and Go panic on misuse
		add()
	}()
	if before == 0 {
		g.Read(wgSema(wg), wgLayout.semaSize, 0)
	}
	runtime.KeepAlive(wg)
}

// WaitGroupDone releases into wg's clock and calls Done.
func WaitGroupDone(g *G, wg *sync.WaitGroup) {
	releaseAt(g, wg, 0)
	wg.Done()
}

// WaitGroupWait waits and then acquires wg's clock. The first waiter that
// has to block writes &wg.sema.
func WaitGroupWait(g *G, wg *sync.WaitGroup) {
	g.yield()
	g.bubbleIdle()
	if !wgLayout.ok {
		wg.Wait()
		acquireAt(g, wg, 0)
		return
	}
	v := g.lockSync(addr(wg), true)
	n, w := wgCounter(wg)
	first := n != 0 && w == 0 && v.waiters == 0
	v.waiters++
	v.mu.Unlock()
	if first {
		g.Write(wgSema(wg), wgLayout.semaSize, 0)
	}
	// From here until it joins wg's clock, g checks nothing: its
	// deferred checks are made now, and the frontier may count g's
	// clock as joined with wg's (waitingSnapshot).
	g.commitFootprints()
	v = g.lockSync(addr(wg), true)
	g.waitOwner = nil
	g.waitOn.Store(v)
	v.mu.Unlock()
	wg.Wait()
	v = g.lockSync(addr(wg), true)
	v.waiters--
	g.waitOn.Store(nil)
	v.acquireBy(g)
	v.mu.Unlock()
	g.countSyncAs(syncAcquire)
	runtime.KeepAlive(wg)
}

// WaitGroupGo is wg.Go(f) with a fork edge to the new goroutine and a
// release into wg's clock when f returns.
func WaitGroupGo(g *G, wg *sync.WaitGroup, f func(), site uint32) {
	c := g.Fork(site)
	a := addr(wg)
	run := func() {
		cg := Start(c)
		defer cg.Exit()
		defer cg.release(a)
		f()
	}
	if !wgLayout.ok {
		wg.Go(run)
		runtime.KeepAlive(wg)
		return
	}
	g.wgIncrement(wg, func() { wg.Go(run) })
}

// OnceDo is o.Do(f): the end of f happens before every Do returns.
func OnceDo(g *G, o *sync.Once, f func()) {
	g.yield()
	a := addr(o)
	o.Do(func() {
		defer g.release(a)
		f()
	})
	g.acquire(a)
	runtime.KeepAlive(o)
}

// OnceFunc is sync.OnceFunc(f) with the same edge as OnceDo.
func OnceFunc(g *G, f func()) func() {
	b := ownheap.New[clockBox]()
	once := sync.OnceFunc(func() {
		cg := Cur()
		defer b.release(cg)
		f()
	})
	return func() {
		once()
		b.acquire(Cur())
	}
}

// OnceValue is sync.OnceValue(f) with the same edge as OnceDo.
func OnceValue[T any](g *G, f func() T) func() T {
	b := ownheap.New[clockBox]()
	once := sync.OnceValue(func() T {
		cg := Cur()
		defer b.release(cg)
		return f()
	})
	return func() T {
		v := once()
		b.acquire(Cur())
		return v
	}
}

// OnceValues is sync.OnceValues(f) with the same edge as OnceDo.
func OnceValues[T1, T2 any](g *G, f func() (T1, T2)) func() (T1, T2) {
	b := ownheap.New[clockBox]()
	once := sync.OnceValues(func() (T1, T2) {
		cg := Cur()
		defer b.release(cg)
		return f()
	})
	return func() (T1, T2) {
		v1, v2 := once()
		b.acquire(Cur())
		return v1, v2
	}
}

// CondWait is c.Wait: it unlocks c.L (a release of L) and, woken, locks
// it again (an acquire of L). Signal and Broadcast order nothing, as under
// go -race (neither package sync's Cond nor the runtime's notify list
// tells its race detector of an edge): a waiter is ordered after what the
// signaller did before it unlocked L, not after what it did without L.
func CondWait(g *G, c *sync.Cond) {
	g.bubbleIdle()
	l := dataWord(c.L)
	g.release(l)
	c.Wait()
	g.acquire(l)
}

// PoolPut releases into the clock of x itself (keyed by its data word, as
// Go's race runtime does) and puts it: whoever gets x next is ordered after
// the putter's uses of it.
func PoolPut(g *G, p *sync.Pool, x any) {
	if x != nil {
		g.release(dataWord(x))
	}
	p.Put(x)
}

// PoolGet gets an item and acquires its clock.
func PoolGet(g *G, p *sync.Pool) any {
	x := p.Get()
	if x != nil {
		g.acquire(dataWord(x))
		runtime.KeepAlive(x)
	}
	return x
}
