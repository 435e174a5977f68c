// Copyright 2026 The bigfoot Authors. All rights reserved.

package detector

import (
	"sync/atomic"

	"github.com/bigfoot-go/bigfoot/internal/ownheap"
	"github.com/bigfoot-go/bigfoot/internal/spin"
	"github.com/bigfoot-go/bigfoot/shadow"
)

// A reserve hands out zeroed objects of type T made ahead, in chunks
// (docs/runtime.md, "Objects made ahead"): the first when the program
// starts, a fresh one after each GC cycle that found the current one half
// handed out, in the detector's AfterGC goroutine, twice as large (up to a
// bound) if the current one ran out. A program's goroutine that needs an
// object of the detector's (the sync object of a mutex it unlocks for the
// first time, a longer history ring) then allocates nothing itself: a
// test that counts the allocations of one call (runtime.ReadMemStats
// around it, testing.AllocsPerRun) sees the program's objects only, as
// under go -race, whose runtime keeps its state outside the Go heap.
// Once a chunk runs out before the next cycle, get makes the next one
// itself, twice as large, and tryGet returns nil. Chunks are allocated
// as the detector's (internal/ownheap): where the runtime takes that
// patch, a chunk made on the program's goroutine is not counted either,
// and the reserve saves an allocation per object.
//
// A chunk is one allocation: it stays as long as any of its objects is
// reachable. A reserve made by newObjectReserve where the detector's
// allocations are marked has no chunks: get allocates each object on its
// own (single).
type reserve[T any] struct {
	cur       atomic.Pointer[reserveChunk[T]]
	size, max atomic.Int64 // objects of the next chunk, and at most
	single    bool         // get allocates each object on its own
}

type reserveChunk[T any] struct {
	next atomic.Int64 // index of the next object to hand out
	objs []T
}

// refills are the refill methods of the reserves and slabs, run by one
// AfterGC hook (a hook is a goroutine per cycle).
var refills struct {
	mu spin.Mutex
	fs []func()
}

func init() {
	shadow.AfterGC(func() {
		refills.mu.Lock()
		fs := refills.fs
		refills.mu.Unlock()
		for _, f := range fs {
			f()
		}
	})
}

// addRefill has f run after every GC cycle.
func addRefill(f func()) {
	refills.mu.Lock()
	refills.fs = append(refills.fs, f)
	refills.mu.Unlock()
}

// newReserve returns a reserve whose chunks hold size objects, and up to
// max after they run out. Reserves are made by package variables'
// initialization, before init runs.
func newReserve[T any](size, max int) *reserve[T] {
	r := &reserve[T]{}
	r.size.Store(int64(size))
	r.max.Store(int64(max))
	r.cur.Store(r.chunk(0))
	addRefill(r.refill)
	return r
}

// newObjectReserve returns a reserve of objects that die one by one at
// the program's pace (sync objects die with their objects), of which any
// one would keep its whole chunk: in goleveldb's cache test, sync objects
// of the program's long-lived atomics and mutexes, made among those of
// nodes it frees by the thousand, kept 1.9 million objects' chunks (240
// MB) for 340,000 live ones. Where the detector's allocations are
// marked (ownheap.Marking), the runtime leaves an object allocated on
// its own out of the program's statistics as it does a chunk, so get
// allocates each object on its own and the collector frees it with its
// object's; elsewhere this is newReserve(size, max).
func newObjectReserve[T any](size, max int) *reserve[T] {
	if ownheap.Marking() {
		return &reserve[T]{single: true}
	}
	return newReserve[T](size, max)
}

// chunk returns a new chunk whose first taken objects are handed out.
func (r *reserve[T]) chunk(taken int64) *reserveChunk[T] {
	m := ownheap.Begin()
	c := &reserveChunk[T]{objs: make([]T, r.size.Load())}
	m.End()
	c.next.Store(taken)
	return c
}

// tryGet returns a zeroed object, or nil if the chunk ran out.
func (r *reserve[T]) tryGet() *T {
	c := r.cur.Load()
	if i := c.next.Add(1) - 1; i < int64(len(c.objs)) {
		return &c.objs[i]
	}
	return nil
}

// get returns a zeroed object, making a chunk if the reserve's ran out.
func (r *reserve[T]) get() *T {
	if r.single {
		return ownheap.New[T]()
	}
	for {
		if x := r.tryGet(); x != nil {
			return x
		}
		c := r.cur.Load()
		if c.next.Load() < int64(len(c.objs)) {
			continue // another goroutine replaced the chunk
		}
		r.size.Store(min(2*int64(len(c.objs)), r.max.Load()))
		if n := r.chunk(1); r.cur.CompareAndSwap(c, n) {
			return &n.objs[0]
		}
	}
}

// refill replaces a chunk half handed out by a fresh one, larger if the
// chunk ran out.
func (r *reserve[T]) refill() {
	c := r.cur.Load()
	taken := c.next.Load()
	if 2*taken < int64(len(c.objs)) || taken == 0 {
		return
	}
	if taken >= int64(len(c.objs)) {
		r.size.Store(min(2*int64(len(c.objs)), r.max.Load()))
	}
	r.cur.CompareAndSwap(c, r.chunk(0))
}

// A wordSlab carves frozen clocks (objclock.go) out of chunks of words
// made ahead, as a reserve makes its objects: a goroutine's first release
// after its clock changed copies the clock, and the copy is taken from
// the current chunk. A carved clock's capacity is its length, so that an
// append to it never reaches the next one; frozen clocks are never
// changed.
//
// One live carved clock keeps its whole chunk alive, so chunks are small
// and stay so, and clocks wider than maxCarved words get their own
// allocation. With thousands of goroutines live, each holding clocks as
// wide as their number (cockroachdb/apd's 4,000 t.Parallel subtests a
// file), chunks of a few live clocks each made most of a peak of 9 GB;
// with chunks grown to 2 MiB, the atomics of a concurrent map resized
// again and again (puzpuzpuz/xsync's DeleteMatching test: 1,000 maps,
// each resized by 16 goroutines), each object's last clock in another
// chunk, kept 3.6 GB of chunks live where the clocks took a few MB.
// Where the detector's allocations are marked (ownheap.Marking), every
// copy is its own allocation (single), as a reserve's objects are
// (newObjectReserve): goleveldb's cache test, whose long-lived atomics
// each keep a clock made among the clocks of nodes it frees by the
// thousand, kept 142 MB of 64 KiB chunks.
type wordSlab struct {
	cur    atomic.Pointer[wordChunk]
	size   int  // words per chunk
	single bool // copyOf allocates each copy on its own
}

// maxCarved is the widest clock a wordSlab carves (4 KiB): a wider one's
// own allocation costs little beside its copy.
const maxCarved = 512

type wordChunk struct {
	next  atomic.Int64 // words handed out
	words []uint64
}

// newWordSlab returns a slab of chunks of size words, or of none where
// the detector's allocations are marked.
func newWordSlab(size int) *wordSlab {
	if ownheap.Marking() {
		return &wordSlab{single: true}
	}
	s := &wordSlab{size: size}
	s.cur.Store(&wordChunk{words: make([]uint64, size)})
	addRefill(s.refill)
	return s
}

// copyOf returns a copy of vc carved from the slab.
func (s *wordSlab) copyOf(vc []uint64) []uint64 {
	n := int64(len(vc))
	if s.single {
		w := ownheap.Make[uint64](len(vc), len(vc))
		copy(w, vc)
		return w
	}
	for {
		c := s.cur.Load()
		if n > maxCarved || 4*n > int64(len(c.words)) {
			return ownheap.Append([]uint64(nil), vc...)
		}
		if end := c.next.Add(n); end <= int64(len(c.words)) {
			w := c.words[end-n : end : end]
			copy(w, vc)
			return w
		}
		s.cur.CompareAndSwap(c, s.chunk())
	}
}

// chunk returns a new chunk, allocated as the detector's
// (internal/ownheap).
func (s *wordSlab) chunk() *wordChunk {
	m := ownheap.Begin()
	c := &wordChunk{words: make([]uint64, s.size)}
	m.End()
	return c
}

// refill replaces a chunk half handed out by a fresh one.
func (s *wordSlab) refill() {
	c := s.cur.Load()
	if used := c.next.Load(); 2*used < int64(len(c.words)) || used == 0 {
		return
	}
	s.cur.CompareAndSwap(c, s.chunk())
}
