// Copyright 2026 The bigfoot Authors. All rights reserved.

package detector

import (
	"sync/atomic"
	"unsafe"
	"weak"

	"github.com/bigfoot-go/bigfoot/internal/ownheap"
	"github.com/bigfoot-go/bigfoot/internal/spin"
	"github.com/bigfoot-go/bigfoot/shadow"
)

// The channel model (docs/runtime.md, "Channels").
//
// The Go memory model orders (1) a send before the completion of the
// matching receive, (2) the k-th receive before the completion of the
// (k+C)-th send on a channel of capacity C (C = 0: unbuffered), and (3) a
// close before a receive that observes it. The hooks run outside the
// channel operation and cannot see which send matched which receive, so
// the runtime bounds the possible matches and acquires every candidate.
//
// Every send announces itself before the operation (SendPre) by pushing its
// clock as a send entry; p, its index, is the number of sends started
// before it. If a send with channel-order index k (1-based) has index p,
// the sends started before it but ordered after it in the channel were all
// still in flight (announced, not completed) when it was announced, so
//
//	p - inflight(p) <= k - 1.
//
// The entry records lo = p - inflight(p). A receive's own channel-order
// index k is at most the number of receives announced when it completes
// (every receive ordered before it has started), so at RecvPost the
// receive acquires every send entry with lo < receivesStarted. That
// includes the matched send whatever the interleaving. Symmetrically a
// send completing (SendPost) acquires every receive entry with
// lo < sendsStarted - C, which includes every receive that the capacity
// rule orders before it. Entries that every later acquire would take are
// folded into a base clock, and the oldest entries are folded when too
// many accumulate, keeping memory bounded; folding only adds
// synchronization.
//
// The helpers of emitted code (Chan(c).Send, Recv2, helpers.go) try an
// operation without blocking while they hold the channel state's lock
// taken for the announcement, and complete it under the same lock if it
// did not block: one lock section instead of two. That is one of the
// interleavings of announcement, operation and completion the argument
// above covers, so the edges are the same.
//
// A select announces each of its cases in its direction (SelectPre): a
// send case as a send, a receive case as a receive. The case that fires
// completes as the plain operation would (SelectPost); the announcements
// of the others are retracted, their counts and their entries, so that no
// later operation acquires the clock of a case that did not fire. A select
// that takes its default case is retracted the same way, at its default
// case or at the goroutine's next channel hook or exit.

type chanEntry struct {
	lo    int64
	id    uint64
	owner uint64 // the serial of the goroutine that pushed it (G.serial); 0 if unknown
	slot  int32  // the slot of its clock in the queue's arena
	n     int32  // the clock's length
}

// A chanQueue holds the clocks of announced operations of one direction
// that later operations may still acquire, oldest first, and a base
// clock, the join of the entries already folded.
//
// Entries are pushed with non-decreasing lower bounds (lo counts the
// operations completed before the announcement, and retraction keeps it),
// so an acquire takes a prefix of the live entries: it folds that prefix
// into the base and joins the base once, O(entries acquired) instead of a
// scan and a compaction of every entry held. The live entries are
// entries[head:]; a retracted entry is removed in place, keeping the
// order. If an entry is ever pushed out of order (unsorted), an acquire
// falls back to scanning every entry until the queue empties.
//
// The clocks live in slots of one arena of words (clocks, width words a
// slot), the entries name theirs by index, and a folded entry's slot is
// reused by a later push: the queue holds no pointer but its two slices,
// so a push or a fold neither allocates (once the arena holds as many
// slots as the queue had clocks at once) nor runs the collector's write
// barrier, which slices of per-entry buffers did on every fold while a
// cycle ran (docs/runtime.md, "Channels"). The arena is outside the Go
// heap (shadow.AllocWords): replaced as it widens, and freed with the
// channel's state (chanState.release).
//
// A goroutine's clock only grows, and its pushes on one channel get
// increasing ids, so of two entries one goroutine pushed, the later one's
// clock dominates. While every entry folded so far is one goroutine's
// (owner), the base is the clock of the last of them (ownerID): folding
// the owner's next entry makes that entry's slot the base, instead of a
// join, and folding one of its earlier entries changes nothing. A channel
// with one sender (or one receiver) thus folds that direction's entries
// in O(1), and an acquire by the owner itself joins nothing: the base is
// a clock of its own past.
type chanQueue struct {
	entries  []chanEntry
	head     int
	unsorted bool
	clocks   []uint64 // the arena: slot s is clocks[s*width:][:width]
	width    int
	free     []int32 // slots not in use
	base     int32   // the base's slot plus one; 0: no base yet
	baseN    int     // the base's length
	owner    uint64  // the goroutine whose entries alone made the base; 0: several, or unknown
	ownerID  uint64  // with owner, the id of its entry whose clock the base is
}

// maxChanEntries bounds the live entries of a queue (older ones are
// folded). A queue that empties with an arena of more than maxIdleWords
// words, and more than two slots, shrinks it to its base (one slot; an
// arena grows by doubling, from one slot when it widens): a burst of
// clocks of many goroutines does not hold memory for the channel's
// lifetime. Smaller arenas are kept, so
// that a queue that empties and fills again, as a buffered channel's
// receives do all the time, does not allocate every time (shrinking at 8
// slots doubled BenchmarkChanPipeline's time). Keeping an arena of one
// slot's size class doubled instead (a class exceeds two slots' words
// unless the width is a power of two, so ants' worker channels shrink
// and grow again at each task) raised the peak memory of ants' test of
// 10,000-worker pools from 2.9 GB to 4.4-5.3: its idle workers'
// channels held twice the clocks.
const (
	maxChanEntries = 64
	maxIdleWords   = 4096 // 32 KiB
)

// oversized reports whether an empty queue's arena is to shrink.
func (q *chanQueue) oversized() bool {
	return cap(q.clocks) > max(maxIdleWords, 2*q.width)
}

// live returns the entries not yet folded, oldest first.
func (q *chanQueue) live() []chanEntry { return q.entries[q.head:] }

// slot returns the words of slot s.
func (q *chanQueue) slot(s int32) []uint64 {
	i := int(s) * q.width
	return q.clocks[i : i+q.width : i+q.width]
}

// baseClock returns the base clock (nil if there is none).
func (q *chanQueue) baseClock() []uint64 {
	if q.base == 0 {
		return nil
	}
	return q.slot(q.base - 1)[:q.baseN]
}

// alloc returns a free slot of at least n words.
func (q *chanQueue) alloc(n int) int32 {
	if k := len(q.free); k > 0 && n <= q.width {
		s := q.free[k-1]
		q.free = q.free[:k-1]
		return s
	}
	return q.allocSlow(n)
}

// allocSlow is alloc when the slots must widen or none is free.
func (q *chanQueue) allocSlow(n int) int32 {
	if n > q.width {
		q.widen(n)
	}
	if k := len(q.free); k > 0 {
		s := q.free[k-1]
		q.free = q.free[:k-1]
		return s
	}
	s := int32(len(q.clocks) / q.width)
	if len(q.clocks)+q.width > cap(q.clocks) {
		grown := shadow.AllocWordsUncleared(max(2*cap(q.clocks), 2*q.width))[:len(q.clocks)]
		copy(grown, q.clocks)
		shadow.FreeWords(q.clocks)
		q.clocks = grown
	}
	q.clocks = q.clocks[:len(q.clocks)+q.width]
	return s
}

// widen makes the slots n words wide at least (a clock grows with the
// number of goroutines), moving every slot.
func (q *chanQueue) widen(n int) {
	w := (n + 7) &^ 7 // whole cache lines
	slots := len(q.clocks) / max(q.width, 1)
	grown := shadow.AllocWordsUncleared(max(slots, 1) * w)[:slots*w]
	for s := range slots {
		copy(grown[s*w:], q.clocks[s*q.width:(s+1)*q.width])
	}
	shadow.FreeWords(q.clocks)
	q.clocks, q.width = grown, w
}

// push appends an entry for an operation with lower bound lo and clock vc,
// announced by the goroutine whose serial is owner (0 if unknown). Its
// common case (room for the entry, a free slot wide enough, the order
// kept) is written out here; pushSlow does the rest.
func (q *chanQueue) push(lo int64, id, owner uint64, vc []uint64) {
	n, k := len(q.entries), len(q.free)-1
	if n-q.head >= maxChanEntries || n == cap(q.entries) || k < 0 || len(vc) > q.width ||
		n > q.head && lo < q.entries[n-1].lo {
		q.pushSlow(lo, id, owner, vc)
		return
	}
	s := q.free[k]
	q.free = q.free[:k]
	dst := q.clocks[int(s)*q.width:][:len(vc)]
	if len(vc) > 8 {
		copy(dst, vc) // memmove: 4x the loop's speed on 1,000 words
	} else {
		//lint:ignore S1001 not copy: a call of memmove for a few words.
		for j, c := range vc {
			dst[j] = c
		}
	}
	// Fill the new entry in place: appending a composite literal built
	// on the stack reloads it with wider moves than it was stored with,
	// a store-forwarding stall that was half of push's time.
	q.entries = q.entries[:n+1]
	e := &q.entries[n]
	e.lo, e.id, e.owner, e.slot, e.n = lo, id, owner, s, int32(len(vc))
}

// pushSlow is push when the queue is full, its entries need room, no
// slot is free or wide enough, or the entry is out of order.
func (q *chanQueue) pushSlow(lo int64, id, owner uint64, vc []uint64) {
	m := ownheap.Begin()
	defer m.End()
	if len(q.entries)-q.head >= maxChanEntries {
		q.fold(q.head)
		q.head++
	}
	if q.head > 0 && len(q.entries) == cap(q.entries) && q.head >= len(q.entries)/2 {
		// Reuse the folded prefix's room instead of growing, once it
		// is at least half the buffer (so that moving the live
		// entries down costs O(1) per push, amortized).
		n := copy(q.entries, q.entries[q.head:])
		q.entries = q.entries[:n]
		q.head = 0
	}
	if n := len(q.entries); n > q.head && lo < q.entries[n-1].lo {
		q.unsorted = true
	}
	s := q.alloc(len(vc))
	copy(q.slot(s), vc)
	q.entries = append(q.entries, chanEntry{})
	e := &q.entries[len(q.entries)-1]
	e.lo, e.id, e.owner, e.slot, e.n = lo, id, owner, s, int32(len(vc))
}

// fold joins entry i into the base and frees its slot (or the base's, if
// the entry's becomes the base); the caller drops the entry.
func (q *chanQueue) fold(i int) {
	e := &q.entries[i]
	if e.owner == q.owner && e.owner != 0 {
		if e.id > q.ownerID {
			// e dominates the base, the owner's earlier clock.
			e.slot, q.base = q.base-1, e.slot+1
			q.baseN, q.ownerID = int(e.n), e.id
		}
		q.free = ownheap.Append(q.free, e.slot)
		return
	}
	q.foldJoin(e)
}

// foldJoin is fold of an entry not known to be ordered with the base.
func (q *chanQueue) foldJoin(e *chanEntry) {
	switch {
	case q.base == 0:
		q.base, q.baseN = e.slot+1, int(e.n)
		q.owner, q.ownerID = e.owner, e.id
		return
	default:
		b := q.slot(q.base - 1)
		if n := int(e.n); n > q.baseN {
			clear(b[q.baseN:n]) // words of the slot's previous clocks
			q.baseN = n
		}
		for j, c := range q.slot(e.slot)[:e.n] {
			if c > b[j] {
				b[j] = c
			}
		}
		q.owner = 0
	}
	q.free = ownheap.Append(q.free, e.slot)
}

// remove drops the entry id, if it was not folded into the base yet.
func (q *chanQueue) remove(id uint64) {
	live := q.live()
	for i, e := range live {
		if e.id == id {
			q.free = ownheap.Append(q.free, e.slot)
			copy(live[i:], live[i+1:])
			q.entries = q.entries[:len(q.entries)-1]
			q.reset()
			return
		}
	}
}

// reset rewinds an empty queue to the start of its buffer, and shrinks
// an oversized arena to the base: four slots of 4,000 words, made again
// each time the queue emptied, took 14% of the time of a suite of 4,000
// t.Parallel subtests.
func (q *chanQueue) reset() {
	if q.head == len(q.entries) {
		q.entries = q.entries[:0]
		q.head = 0
		q.unsorted = false
		if q.oversized() {
			q.shrink()
		}
	}
}

// shrink replaces the arena by one holding the base alone. It is kept
// out of line so that reset inlines.
//
//go:noinline
func (q *chanQueue) shrink() {
	clocks := shadow.AllocWordsUncleared(q.width)[:0]
	if q.base != 0 {
		clocks = append(clocks, q.slot(q.base-1)...)
		q.base = 1
	}
	shadow.FreeWords(q.clocks)
	q.clocks = clocks
	q.free = q.free[:0]
}

// release frees the queue's arena and empties it, for a channel that is
// gone (chanState.release).
func (q *chanQueue) release() {
	shadow.FreeWords(q.clocks)
	*q = chanQueue{}
}

// acquireBy joins into g's clock the base and every entry with lo <
// bound, and folds those entries into the base. A base made of g's own
// entries alone (owner) is a clock of g's past, which g's clock
// dominates: it is not joined.
func (q *chanQueue) acquireBy(g *G, bound int64) {
	if !q.unsorted {
		for q.head < len(q.entries) {
			e := &q.entries[q.head]
			if e.lo >= bound {
				break
			}
			if e.owner == q.owner && e.owner != 0 {
				// fold's owner case, written out.
				if e.id > q.ownerID {
					e.slot, q.base = q.base-1, e.slot+1
					q.baseN, q.ownerID = int(e.n), e.id
				}
				q.free = ownheap.Append(q.free, e.slot)
			} else {
				q.foldJoin(e)
			}
			q.head++
		}
	} else {
		q.takeUnsorted(bound)
	}
	if q.head == len(q.entries) {
		// reset, written out.
		q.entries, q.head, q.unsorted = q.entries[:0], 0, false
		if q.oversized() {
			q.shrink()
		}
	}
	if q.owner != g.serial || g.serial == 0 {
		g.t.VC = join(g.t.VC, q.baseClock())
	}
}

// takeUnsorted folds into the base every entry with lo < bound, of a
// queue whose entries are not in order.
func (q *chanQueue) takeUnsorted(bound int64) {
	kept := q.head
	for i := q.head; i < len(q.entries); i++ {
		if q.entries[i].lo < bound {
			q.fold(i)
			continue
		}
		q.entries[kept] = q.entries[i]
		kept++
	}
	q.entries = q.entries[:kept]
}

// release frees the arenas of c, the state of a channel that is gone,
// which the caller took out of chans. The arenas are outside the Go heap
// (shadow.AllocWords), so the collector does not free them with c. The
// lock orders it after any operation still in progress: a hook may run
// after the last use of its channel (SendPost, a select's retraction),
// but it finds an empty queue, not a freed one, and no goroutine that
// could order itself after this channel's operations remains. chanOf
// and G.chanOf never return c again: its weak pointer is nil.
func (c *chanState) release() {
	c.mu.Lock()
	c.sends.release()
	c.recvs.release()
	c.mu.Unlock()
}

type chanState struct {
	mu       spin.Mutex
	wp       weak.Pointer[byte]
	sends    chanQueue
	recvs    chanQueue
	nextID   uint64 // identifies entries, for retraction
	sent     int64  // sends started (announced, not retracted)
	sendIF   int64  // sends in flight
	rcvd     int64  // receives started
	recvIF   int64  // receives in flight
	closed   bool
	close    []uint64
	ctx      *ctxState    // the channel is a context's Done channel (context.go)
	capPlus1 atomic.Int64 // the channel's capacity plus one, 0 until known (capacity)
	hchan    chanAccess   // the sends' reads and the closes' writes of the channel
}

// chanAccess is the FastTrack state of the channel itself, which, as in
// Go's race runtime, a send reads and a close writes (one byte at the
// hchan), so that a close racing with a send is reported. No other
// instrumented access reaches the hchan, and every send and close takes
// the channel state's lock anyway, so the state lives here rather than
// in the shadow: the check costs a comparison and a store under that
// lock instead of the shadow's slow path, which every send took (each
// hook's release starts a new epoch) and which was most of the cost of a
// send after the channel model's own (BenchmarkChanPair). A shared hchan
// byte also made the shadow adopt the channel with a weak pointer of its
// own; the channel state has one already.
type chanAccess struct {
	r  shadow.Epoch // the last send, while the sends are ordered (rs nil)
	rs []uint64     // per thread id, the clock of its last send, once two were unordered
	w  shadow.Epoch // the last close; 0: none
}

// check checks an access of the channel (at p) by g, a write for a close,
// a read for a send, with the rules of the shadow's FastTrack cell
// (shadow's cell.access, Rhodes' thesis §2.3.7): it reports
// whether the access conflicts with an earlier one not ordered before it,
// and sets *r to the first conflict, and records g's access. The channel
// state is locked.
func (a *chanAccess) check(g *G, p uintptr, write bool, r *shadow.Race) (found bool) {
	if g.t.Disabled > 0 {
		return false
	}
	e := g.t.Epoch
	tid, clk := e.TID(), e.Clock()
	if !write {
		if a.w == e || a.rs == nil && a.r == e || a.rs != nil && int(tid) < len(a.rs) && a.rs[tid] == clk {
			return false // read in the same epoch, or of g's own write in it (shadow's cell.ownWrite)
		}
		if !shadow.HB(a.w, g.t.VC) { // write-read race
			*r, found = shadow.Race{Addr: p, Prev: a.w, PrevWrite: true}, true
		}
		switch {
		case a.rs == nil && shadow.HB(a.r, g.t.VC):
			a.r = e
		case a.rs == nil:
			n := int(max(tid, a.r.TID())) + 1
			a.rs = ownheap.Make[uint64](n, n)
			a.rs[a.r.TID()] = a.r.Clock()
			a.rs[tid] = clk
		default:
			a.rs = lengthen(a.rs, int(tid)+1)
			a.rs[tid] = clk
		}
		return found
	}
	if a.w == e {
		return false // write in the same epoch
	}
	if !shadow.HB(a.w, g.t.VC) { // write-write race
		*r, found = shadow.Race{Addr: p, Write: true, Prev: a.w, PrevWrite: true}, true
	}
	if a.rs == nil {
		if !found && !shadow.HB(a.r, g.t.VC) { // read-write race
			*r, found = shadow.Race{Addr: p, Write: true, Prev: a.r}, true
		}
	} else {
		for t, c := range a.rs {
			if e := shadow.MakeEpoch(uint32(t), c); c != 0 && !found && !shadow.HB(e, g.t.VC) {
				*r, found = shadow.Race{Addr: p, Write: true, Prev: e}, true
			}
		}
		a.rs, a.r = nil, 0
	}
	a.w = e
	return found
}

// readOrdered records a send's read of the channel if it is the common
// case, a channel never closed whose sends are ordered, where the read
// conflicts with nothing and becomes the last one, and reports whether it
// was; otherwise the caller checks it (check). It inlines into sendLocked
// (TestChanAccessModel makes its reads the same way).
func (a *chanAccess) readOrdered(g *G) bool {
	if a.w == 0 && a.rs == nil && g.t.Disabled == 0 && shadow.HB(a.r, g.t.VC) {
		a.r = g.t.Epoch
		return true
	}
	return false
}

var chans shadow.Map[chanState]

// chanOf returns the state of the channel whose hchan is at p. Channels
// are heap objects; the weak pointer detects a dead channel whose memory
// now holds a new one, whose counts must start from zero.
func chanOf(p uintptr) *chanState {
	for {
		c := chans.Load(p)
		if c != nil && weakLive(c.wp) {
			return c
		}
		if c != nil && chans.CompareAndDelete(p, c) {
			c.release()
		}
		m := ownheap.Begin()
		wp := weak.Make((*byte)(shadow.PtrOf(p)))
		c, _ = chans.LoadOrStore(p, func() *chanState { return &chanState{wp: wp} })
		m.End()
		if weakLive(c.wp) {
			return c
		}
	}
}

// chanOf is chanOf with a two-entry cache per goroutine: every send and
// receive looks its channel up twice, before and after the operation,
// and a loop uses the same channels over and over; a pipeline stage
// alternates between two (with one entry, every hook of such a stage
// missed, and the table's lookup and chanOf were 4% of
// BenchmarkChanPipeline). The weak pointer tells, as in chanOf, whether
// the cached state is still the channel's.
func (g *G) chanOf(p uintptr) *chanState {
	for i := range g.chans {
		// Not "range g.chans": that copies the array to the stack and
		// reloads it from there.
		if c := g.chans[i]; c != nil && g.chanPs[i] == p && weakLive(c.wp) {
			return c
		}
	}
	c := chanOf(p)
	// A miss replaces the older entry.
	g.chanPs[g.chanNext], g.chans[g.chanNext] = p, c
	g.chanNext ^= 1
	return c
}

func chanPtr(ch any) uintptr {
	if ch == nil {
		return 0
	}
	return dataWord(ch)
}

// announceSend records a send of g about to start and returns its entry's id.
func (c *chanState) announceSend(g *G) uint64 {
	c.nextID++
	c.sends.push(c.sent-c.sendIF, c.nextID, g.serial, g.t.VC)
	c.sent++
	c.sendIF++
	return c.nextID
}

// announceRecv records a receive of g about to start and returns its entry's id.
func (c *chanState) announceRecv(g *G) uint64 {
	c.nextID++
	c.recvs.push(c.rcvd-c.recvIF, c.nextID, g.serial, g.t.VC)
	c.rcvd++
	c.recvIF++
	return c.nextID
}

// completeSend follows a send: by the capacity rule it acquires the
// receives that may be ordered before it.
func (c *chanState) completeSend(g *G, capacity int) {
	if c.sendIF > 0 {
		c.sendIF--
	}
	c.recvs.acquireBy(g, c.sent-int64(capacity))
}

// completeRecv follows a receive: it acquires the sends that may have
// matched it and, if the channel was closed and the receive may have
// observed the close (gotValue is false: it returned the zero value, or it
// is not known), the close. A receive that got a sent value does not
// observe the close (memory model: the close is synchronized before "a
// receive that returns a zero value because the channel is closed"; Go's
// race runtime acquires the close only when the buffer is empty), so a
// write made before the close is not ordered before it
// (TestRaceChanWrongClose).
func (c *chanState) completeRecv(g *G, gotValue bool) {
	if c.recvIF > 0 {
		c.recvIF--
	}
	c.sends.acquireBy(g, c.rcvd)
	if c.closed && !gotValue || c.ctx != nil {
		c.completeRecvClosed(g, gotValue)
	}
}

// completeRecvClosed is completeRecv's part for a closed channel or a
// context's Done channel, out of line so that the common case inlines.
func (c *chanState) completeRecvClosed(g *G, gotValue bool) {
	if c.closed && !gotValue {
		g.t.VC = join(g.t.VC, c.close)
	}
	if c.ctx != nil {
		// Nothing sends on a Done channel: the receive observed the
		// context's cancellation (see ctxState.acquire).
		g.t.VC = c.ctx.acquire(g.t.VC)
	}
}

// retract undoes an announcement of a select case that did not fire.
func (c *chanState) retract(id uint64, recv bool) {
	if recv {
		c.recvs.remove(id)
		if c.recvIF > 0 && c.rcvd > 0 {
			c.rcvd--
			c.recvIF--
		}
		return
	}
	c.sends.remove(id)
	if c.sendIF > 0 && c.sent > 0 {
		c.sent--
		c.sendIF--
	}
}

// Send announces a send of v on ch and returns v:
// ch <- __bf.Send(__bfg, ch, cap(ch), v).
func Send[T any](g *G, ch any, capacity int, v T) T {
	SendPre(g, ch, capacity)
	return v
}

// SendPre announces a send on ch; the sender's past happens before the
// receive that gets the value.
func SendPre(g *G, ch any, capacity int) {
	g.sendPre(chanPtr(ch))
}

// sendPre is SendPre of the channel at p; it returns the channel's state,
// which stays the channel's while the caller holds the channel (nil for a
// nil channel).
func (g *G) sendPre(p uintptr) *chanState {
	if p == 0 {
		g.cancelSelect()
		g.bubbleIdle()
		return nil
	}
	var r shadow.Race
	c, race := g.sendLocked(p, &r)
	c.mu.Unlock()
	if race || verifyChecks {
		g.chanReport(p, false, &r, race)
	}
	g.tick() // the announcement released g's clock
	return c
}

// sendLocked announces a send of g on the channel at p (not nil) and
// returns the channel's state, still locked, so that a send that does not
// block can complete under the same lock (Sender.Send). Like Go's race
// runtime, a send reads the channel and a close writes it, so that a close
// racing with a send is reported: race reports a conflict, set in *r, for
// the caller to report (chanReport) once it releases the lock; it then
// starts g's next epoch (tick), since the announcement released g's clock.
func (g *G) sendLocked(p uintptr, r *shadow.Race) (c *chanState, race bool) {
	g.cancelSelect()
	g.bubbleIdle()
	g.yield()
	g.countSync()
	c = g.chanOf(p)
	c.mu.Lock()
	if !c.hchan.readOrdered(g) {
		race = c.hchan.check(g, p, false, r)
	}
	c.announceSend(g) // its id is for select's retraction
	return c, race
}

// chanReport reports a conflict found by chanAccess.check, outside the
// channel's lock, and records the access for the verifier as g.check
// would. It is kept out of line, off the common path of its callers.
//
//go:noinline
func (g *G) chanReport(p uintptr, write bool, r *shadow.Race, race bool) {
	if verifyChecks {
		g.verifyRecord(shadow.PtrOf(p), 1, 0, 1, verifyKind(write)|vAccess|vCheck, 0)
	}
	if race {
		report(g, *r, 0)
	}
}

// SendPost follows a completed send: it acquires the receives that the
// capacity rule orders before it.
func SendPost(g *G, ch any, capacity int) {
	if p := chanPtr(ch); p != 0 {
		g.sendPost(g.chanOf(p), capacity)
	}
}

// sendPost is SendPost of the channel whose state is c.
func (g *G) sendPost(c *chanState, capacity int) {
	g.countSync()
	c.mu.Lock()
	c.completeSend(g, capacity)
	c.mu.Unlock()
}

// RecvPre announces a receive from ch and returns ch:
// <-__bf.RecvPre(__bfg, ch, cap(ch)).
func RecvPre[C any](g *G, ch C, capacity int) C {
	g.recvPre(*(*uintptr)(unsafe.Pointer(&ch)))
	return ch
}

// recvPre is RecvPre of the channel at p; it returns the channel's state
// as sendPre does.
func (g *G) recvPre(p uintptr) *chanState {
	if p == 0 {
		g.cancelSelect()
		g.bubbleIdle()
		return nil
	}
	c := g.recvLocked(p)
	c.mu.Unlock()
	g.tick()
	return c
}

// recvLocked announces a receive of g from the channel at p (not nil) and
// returns the channel's state, still locked, as sendLocked does. The
// caller starts g's next epoch (tick) once it releases the lock.
func (g *G) recvLocked(p uintptr) *chanState {
	g.cancelSelect()
	g.bubbleIdle()
	g.yield()
	g.countSync()
	c := g.chanOf(p)
	c.mu.Lock()
	c.announceRecv(g) // its id is for select's retraction
	return c
}

// RecvPost follows a completed receive of v and returns v: it acquires the
// sends that may have matched and, if ch was closed, the close.
func RecvPost[T any](g *G, ch any, capacity int, v T) T {
	RecvPostOK(g, ch, capacity)
	return v
}

// RecvPostOK follows a completed receive whose ok result is not known: it
// acquires the close too if ch was closed.
func RecvPostOK(g *G, ch any, capacity int) {
	recvPost(g, ch, false)
}

// RecvPostValue follows a completed receive v, ok := <-ch: a receive that
// got a sent value (ok) does not acquire the close.
func RecvPostValue(g *G, ch any, capacity int, ok bool) {
	recvPost(g, ch, ok)
}

func recvPost(g *G, ch any, gotValue bool) {
	if p := chanPtr(ch); p != 0 {
		g.recvPost(g.chanOf(p), gotValue)
	}
}

// recvPost is recvPost of the channel whose state is c.
func (g *G) recvPost(c *chanState, gotValue bool) {
	g.countSync()
	c.mu.Lock()
	c.completeRecv(g, gotValue)
	c.mu.Unlock()
}

// capacity returns the capacity of the channel ch, whose state c is,
// computing cap(ch) (a call into the runtime) once per channel.
func capacity[T any](c *chanState, ch chan<- T) int {
	n := c.capPlus1.Load()
	if n == 0 {
		n = int64(cap(ch)) + 1
		c.capPlus1.Store(n)
	}
	return int(n - 1)
}

// Close releases into ch's close clock and returns ch: close(__bf.Close(g, ch)).
func Close[C any](g *G, ch C) C {
	g.cancelSelect()
	p := *(*uintptr)(unsafe.Pointer(&ch))
	if p == 0 {
		return ch
	}
	g.yield()
	g.countSync()
	c := g.chanOf(p)
	c.mu.Lock()
	var r shadow.Race
	race := c.hchan.check(g, p, true, &r)
	c.closed = true
	c.close = join(c.close, g.t.VC)
	c.mu.Unlock()
	if race || verifyChecks {
		g.chanReport(p, true, &r, race)
	}
	g.tick()
	return ch
}

// A selectCase is a case a select in progress announced (SelectPre).
type selectCase struct {
	c    *chanState
	p    uintptr
	id   uint64
	recv bool
}

// SelectPre precedes a select: dirs has one byte per channel in chans,
// 'r' for a receive case and 's' for a send case; nil channels are
// ignored. Each case is announced as the operation it would perform, and
// a send case reads the channel as a send does (sendLocked): Go's select
// reads the channel of each send case it polls, before it sees whether
// the channel is closed, so a close racing with a select's send is
// reported (Go's TestRaceChanSendSelectClose). Go polls the cases in a
// random order and stops at the first that is ready, so a send case may
// go unread in one run; it is read in the runs that poll it first.
func SelectPre(g *G, dirs string, chans ...any) {
	g.yield()
	g.cancelSelect()
	g.bubbleIdle()
	announced := false
	for i, ch := range chans {
		p := chanPtr(ch)
		if p == 0 {
			continue
		}
		announced = true
		recv := i < len(dirs) && dirs[i] == 'r'
		c := g.chanOf(p)
		c.mu.Lock()
		var id uint64
		var r shadow.Race
		race := false
		if recv {
			id = c.announceRecv(g)
		} else {
			if !c.hchan.readOrdered(g) {
				race = c.hchan.check(g, p, false, &r)
			}
			id = c.announceSend(g)
		}
		c.mu.Unlock()
		if race || verifyChecks && !recv {
			g.chanReport(p, false, &r, race)
		}
		if g.selects == nil {
			g.selects = selectBufs.get()[:0]
		}
		g.selects = append(g.selects, selectCase{c, p, id, recv})
	}
	if announced {
		g.countSync()
		g.tick()
	}
}

// SelectPost is the first statement of the chosen case, which sent on ch
// (recv false) or received from it: it completes that operation as the
// plain send or receive would and retracts the select's other cases. At
// the default case, ch is nil: every case is retracted.
func SelectPost(g *G, ch any, capacity int, recv bool) {
	chosen := chanPtr(ch)
	done := false
	for _, sc := range g.selects {
		c := sc.c
		c.mu.Lock()
		if !done && sc.p == chosen && sc.recv == recv {
			if recv {
				c.completeRecv(g, false)
			} else {
				c.completeSend(g, capacity)
			}
			done = true
		} else {
			c.retract(sc.id, sc.recv)
		}
		c.mu.Unlock()
	}
	clear(g.selects)
	g.selects = g.selects[:0]
	if !done && chosen != 0 {
		// Not announced (e.g. SelectPre was not called): acquire anyway.
		c := g.chanOf(chosen)
		c.mu.Lock()
		if recv {
			c.completeRecv(g, false)
		} else {
			c.completeSend(g, capacity)
		}
		c.mu.Unlock()
	}
	g.countSync()
}

// selectBufs holds cleared arrays of select cases for the first select of
// new goroutines: a goroutine per request that selects on its context and
// a result channel grew its cases from nothing, two or three heap objects
// per goroutine (13% of the objects of bench/workloads/fanout). A select
// of more cases grows its own slice, which the goroutine drops at exit.
var selectBufs = newFreeList[[selectBuf]selectCase](1024)

const selectBuf = 4

// releaseSelects gives the goroutine's array of select cases, cleared
// (every select clears the cases it announced), to selectBufs; the
// goroutine ends.
func (g *G) releaseSelects() {
	if cap(g.selects) == selectBuf {
		selectBufs.put((*[selectBuf]selectCase)(g.selects[:selectBuf]))
	}
	g.selects = nil
}

// cancelSelect retracts the announcements of a select that took no
// channel case.
func (g *G) cancelSelect() {
	if len(g.selects) != 0 {
		g.retractSelect()
	}
}

// retractSelect is cancelSelect's work, out of line so that the check
// inlines into every channel hook.
func (g *G) retractSelect() {
	for _, sc := range g.selects {
		sc.c.mu.Lock()
		sc.c.retract(sc.id, sc.recv)
		sc.c.mu.Unlock()
	}
	clear(g.selects)
	g.selects = g.selects[:0]
}
