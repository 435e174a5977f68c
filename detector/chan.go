// Copyright 2026 The bigfoot Authors. All rights reserved.

package detector

import (
	"sync"
	"unsafe"
	"weak"

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
// A select does not tell its hooks which cases send: SelectPre announces
// the goroutine on every listed channel both as a send and as a receive,
// and SelectPost retracts the announcements of the cases not chosen (their
// counts; their clocks may still be acquired, which is only more
// synchronization). A select that takes its default case is retracted at
// the goroutine's next channel hook or exit.

type chanEntry struct {
	lo int64
	vc []uint64
}

type chanQueue struct {
	base    []uint64
	entries []chanEntry
}

const maxChanEntries = 64

func (q *chanQueue) push(lo int64, vc []uint64) {
	if len(q.entries) >= maxChanEntries {
		q.base = join(q.base, q.entries[0].vc)
		q.entries = append(q.entries[:0], q.entries[1:]...)
	}
	q.entries = append(q.entries, chanEntry{lo, append([]uint64(nil), vc...)})
}

// acquire joins into vc the base and every entry with lo < bound, and
// folds those entries into the base.
func (q *chanQueue) acquire(vc []uint64, bound int64) []uint64 {
	vc = join(vc, q.base)
	kept := q.entries[:0]
	for _, e := range q.entries {
		if e.lo < bound {
			vc = join(vc, e.vc)
			q.base = join(q.base, e.vc)
		} else {
			kept = append(kept, e)
		}
	}
	clear(q.entries[len(kept):])
	q.entries = kept
	return vc
}

type chanState struct {
	mu     sync.Mutex
	wp     weak.Pointer[byte]
	sends  chanQueue
	recvs  chanQueue
	sent   int64 // sends started (announced, not retracted)
	sendIF int64 // sends in flight
	rcvd   int64 // receives started
	recvIF int64 // receives in flight
	closed bool
	close  []uint64
}

var chans shadow.Map[chanState]

// chanOf returns the state of the channel whose hchan is at p. Channels
// are heap objects; the weak pointer detects a dead channel whose memory
// now holds a new one, whose counts must start from zero.
func chanOf(p uintptr) *chanState {
	for {
		c := chans.Load(p)
		if c != nil && c.wp.Value() != nil {
			return c
		}
		if c != nil {
			chans.CompareAndDelete(p, c)
		}
		wp := weak.Make((*byte)(shadow.PtrOf(p)))
		c, _ = chans.LoadOrStore(p, func() *chanState { return &chanState{wp: wp} })
		if c.wp.Value() != nil {
			return c
		}
	}
}

func chanPtr(ch any) uintptr {
	if ch == nil {
		return 0
	}
	return dataWord(ch)
}

func (c *chanState) announceSend(vc []uint64) {
	c.sends.push(c.sent-c.sendIF, vc)
	c.sent++
	c.sendIF++
}

func (c *chanState) announceRecv(vc []uint64) {
	c.recvs.push(c.rcvd-c.recvIF, vc)
	c.rcvd++
	c.recvIF++
}

func (c *chanState) completeSend(g *G, capacity int) {
	if c.sendIF > 0 {
		c.sendIF--
	}
	g.t.VC = c.recvs.acquire(g.t.VC, c.sent-int64(capacity))
}

func (c *chanState) completeRecv(g *G) {
	if c.recvIF > 0 {
		c.recvIF--
	}
	g.t.VC = c.sends.acquire(g.t.VC, c.rcvd)
	if c.closed {
		g.t.VC = join(g.t.VC, c.close)
	}
	if c.rcvd > c.sent && !c.closed {
		// More receives than announced sends: a value (or a close) came
		// from uninstrumented code, such as a timer or a context's cancel
		// function. Order the receive after everything published.
		g.acquireWorld()
	}
}

func (c *chanState) retractSend() {
	if c.sendIF > 0 && c.sent > 0 {
		c.sent--
		c.sendIF--
	}
}

func (c *chanState) retractRecv() {
	if c.recvIF > 0 && c.rcvd > 0 {
		c.rcvd--
		c.recvIF--
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
	g.cancelSelect()
	p := chanPtr(ch)
	if p == 0 {
		return
	}
	g.countSync()
	// Like Go's race runtime, a send reads the channel and a close writes
	// it, so that a close racing with a send is reported.
	g.check((*[2]unsafe.Pointer)(unsafe.Pointer(&ch))[1], 1, false, 0)
	c := chanOf(p)
	c.mu.Lock()
	c.announceSend(g.t.VC)
	c.mu.Unlock()
	g.tick()
}

// SendPost follows a completed send: it acquires the receives that the
// capacity rule orders before it.
func SendPost(g *G, ch any, capacity int) {
	p := chanPtr(ch)
	if p == 0 {
		return
	}
	g.countSync()
	c := chanOf(p)
	c.mu.Lock()
	c.completeSend(g, capacity)
	c.mu.Unlock()
}

// RecvPre announces a receive from ch and returns ch:
// <-__bf.RecvPre(__bfg, ch, cap(ch)).
func RecvPre[C any](g *G, ch C, capacity int) C {
	g.cancelSelect()
	p := *(*uintptr)(unsafe.Pointer(&ch))
	if p == 0 {
		return ch
	}
	g.countSync()
	c := chanOf(p)
	c.mu.Lock()
	c.announceRecv(g.t.VC)
	c.mu.Unlock()
	g.tick()
	return ch
}

// RecvPost follows a completed receive of v and returns v: it acquires the
// sends that may have matched and, if ch was closed, the close.
func RecvPost[T any](g *G, ch any, capacity int, v T) T {
	RecvPostOK(g, ch, capacity)
	return v
}

// RecvPostOK follows a completed receive v, ok := <-ch.
func RecvPostOK(g *G, ch any, capacity int) {
	p := chanPtr(ch)
	if p == 0 {
		return
	}
	g.countSync()
	c := chanOf(p)
	c.mu.Lock()
	c.completeRecv(g)
	c.mu.Unlock()
}

// Close releases into ch's close clock and returns ch: close(__bf.Close(g, ch)).
func Close[C any](g *G, ch C) C {
	g.cancelSelect()
	p := *(*uintptr)(unsafe.Pointer(&ch))
	if p == 0 {
		return ch
	}
	g.countSync()
	g.check(*(*unsafe.Pointer)(unsafe.Pointer(&ch)), 1, true, 0)
	c := chanOf(p)
	c.mu.Lock()
	c.closed = true
	c.close = join(c.close, g.t.VC)
	c.mu.Unlock()
	g.tick()
	return ch
}

// SelectPre precedes a select whose cases use chans (nil entries, for nil
// channels or default, are ignored): it announces the goroutine as sender
// and receiver on each.
func SelectPre(g *G, chans ...any) {
	g.cancelSelect()
	announced := false
	for _, ch := range chans {
		p := chanPtr(ch)
		if p == 0 {
			continue
		}
		announced = true
		c := chanOf(p)
		c.mu.Lock()
		c.announceSend(g.t.VC)
		c.announceRecv(g.t.VC)
		c.mu.Unlock()
		g.selects = append(g.selects, ch)
	}
	if announced {
		g.countSync()
		g.tick()
	}
}

// SelectPost is the first statement of the chosen case, which sent on ch
// (recv false) or received from it: it completes that operation and
// retracts the select's other announcements.
func SelectPost(g *G, ch any, capacity int, recv bool) {
	chosen := chanPtr(ch)
	done := false
	for _, x := range g.selects {
		p := chanPtr(x)
		c := chanOf(p)
		c.mu.Lock()
		switch {
		case p == chosen && !done && recv:
			c.retractSend()
			c.completeRecv(g)
			done = true
		case p == chosen && !done:
			c.retractRecv()
			c.completeSend(g, capacity)
			done = true
		default:
			c.retractSend()
			c.retractRecv()
		}
		c.mu.Unlock()
	}
	clear(g.selects)
	g.selects = g.selects[:0]
	if !done && chosen != 0 {
		// Not announced (e.g. SelectPre was not called): acquire anyway.
		c := chanOf(chosen)
		c.mu.Lock()
		if recv {
			c.completeRecv(g)
		} else {
			c.completeSend(g, capacity)
		}
		c.mu.Unlock()
	}
	g.countSync()
}

// cancelSelect retracts the announcements of a select that took no
// channel case.
func (g *G) cancelSelect() {
	if len(g.selects) == 0 {
		return
	}
	for _, x := range g.selects {
		c := chanOf(chanPtr(x))
		c.mu.Lock()
		c.retractSend()
		c.retractRecv()
		c.mu.Unlock()
	}
	clear(g.selects)
	g.selects = g.selects[:0]
}
