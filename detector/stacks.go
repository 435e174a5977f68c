// Copyright 2026 The bigfoot Authors. All rights reserved.

package detector

import (
	"sync/atomic"
	"unsafe"

	"github.com/bigfoot-go/bigfoot/internal/spin"
	"github.com/bigfoot-go/bigfoot/shadow"
)

// Stacks of the history (history.go), hash-consed: each distinct stack
// is stored once and named by a small id, as ThreadSanitizer's stack
// depot does.

const (
	// maxStack is the most return addresses kept of a stack: a deeper
	// one keeps its innermost frames.
	maxStack = 32
	// depotMax bounds the return addresses the depot keeps (8 MiB on a
	// 64-bit machine, in depotChunks chunks): past it, a new stack is
	// not stored, and an access made with it has no stack to restore. A
	// recursion that reaches its accesses through ever new paths fills
	// it; the stacks of a program's loops and handlers are few.
	depotMax    = depotChunks * depotChunk
	depotChunks = 128
	depotChunk  = 8192 // words per chunk of return addresses (64 KiB)

	stackChunk   = 4096    // stacks per chunk of the table of stacks
	depotBuckets = 1 << 14 // chains of the hash index

	hashSeed  = 14695981039346656037 // FNV-1a's offset basis
	hashPrime = 1099511628211        // FNV-1a's prime
)

// hashPCs returns the FNV-1a hash of return addresses, one word at a
// time, as the frame walk computes it (callers_fp.go). By hand: the
// standard library's hash packages may be instrumented, and their hooks
// must not run inside the detector.
func hashPCs(pcs []uintptr) uint64 {
	h := uint64(hashSeed)
	for _, pc := range pcs {
		h = (h ^ uint64(pc)) * hashPrime
	}
	return h
}

// depot holds the stacks. Id 0 is "no stack".
//
// It lives outside the Go heap (shadow.OffHeap), as go -race's does: a
// program that counts its allocations (testing.AllocsPerRun) sees none of
// it, and its size does not raise the collector's heap goal (a recursion
// down binary trees, whose stacks are as many as its paths, kept 16 MB
// of stacks on the heap, and the goal doubled that). Return addresses are
// copied into chunks of depotChunk words and stacks into chunks of
// stackChunk entries, each mapped when the one before fills; a stack is
// found by its hash through a chain per bucket.
var depot struct {
	mu     spin.Mutex
	heads  *[depotBuckets]uint32                          // first id of each bucket's chain
	stacks [depotMax / stackChunk]*[stackChunk]depotStack // entry id-1 at [(id-1)/stackChunk][(id-1)%stackChunk]
	chunks [depotChunks]*[depotChunk]uintptr              // return addresses
	n      uint32                                         // stacks stored
	used   int                                            // words of chunks[last] used
	last   int                                            // chunks mapped, minus 1 (-1: none)
}

// A depotStack is a stored stack: its n return addresses are words
// [off%depotChunk, +n) of chunks[off/depotChunk].
type depotStack struct {
	hash   uint64
	off, n uint32
	next   uint32 // the next id of the bucket's chain, 0 at its end
}

func init() { depot.last = -1 }

// stackEntry returns stack id's entry. depot.mu is held.
func stackEntry(id uint32) *depotStack {
	return &depot.stacks[(id-1)/stackChunk][(id-1)%stackChunk]
}

// intern returns the id of the stack pcs, storing a copy of it if it is
// new, or 0 if pcs is empty or the depot is full. Stacks are told apart by
// their hash, a 64-bit FNV-1a of their return addresses: two stacks with
// one hash would share the first one's.
func intern(pcs []uintptr) uint32 {
	if len(pcs) == 0 {
		return 0
	}
	h := hashPCs(pcs)
	depot.mu.Lock()
	defer depot.mu.Unlock()
	if depot.heads == nil {
		depot.heads = (*[depotBuckets]uint32)(shadow.OffHeap(unsafe.Sizeof(*depot.heads)))
	}
	head := &depot.heads[h%depotBuckets]
	for id := *head; id != 0; id = stackEntry(id).next {
		if stackEntry(id).hash == h {
			depotIndex[h&indexMask].Store(h&^idMask | uint64(id))
			return id
		}
	}
	if depot.last < 0 || depot.used+len(pcs) > depotChunk {
		if depot.last == depotChunks-1 {
			depotFull.Store(true)
			return 0
		}
		depot.last++
		depot.chunks[depot.last] = (*[depotChunk]uintptr)(shadow.OffHeap(unsafe.Sizeof(*depot.chunks[0])))
		depot.used = 0
	}
	id := depot.n + 1
	if (id-1)%stackChunk == 0 {
		depot.stacks[(id-1)/stackChunk] = (*[stackChunk]depotStack)(shadow.OffHeap(unsafe.Sizeof(*depot.stacks[0])))
	}
	copy(depot.chunks[depot.last][depot.used:], pcs)
	*stackEntry(id) = depotStack{hash: h, off: uint32(depot.last*depotChunk + depot.used), n: uint32(len(pcs)), next: *head}
	depot.used += len(pcs)
	depot.n = id
	*head = id
	depotIndex[h&indexMask].Store(h&^idMask | uint64(id))
	return id
}

// depotFull is set once the depot has turned a stack away: from then on
// the history looks up only the stacks the index holds (noteSlow), since
// most of the others would be turned away too, after a search.
var depotFull atomic.Bool

// depotIndex caches stacks' ids by hash, so that the history finds the
// id of a stack it has walked with one load, without the depot's lock
// or a second walk for the return addresses: word h&indexMask holds the
// id of a stack of hash h in its low bits and the rest of h above them,
// or 0. A stack whose word another stack took is looked up in the depot
// again (intern), which puts it back. One word is one atomic load: no
// reader sees an id with another stack's hash. Two stacks are told
// apart by 54 bits of their hash here (the word's index and its high
// bits), by all 64 in the depot.
var depotIndex [indexMask + 1]atomic.Uint64

const (
	indexMask = 1<<14 - 1 // 16,384 words: 128 KiB, touched as stacks arrive
	idBits    = 24        // ids are at most depotMax
	idMask    = 1<<idBits - 1
)

// Every id fits in idBits: a stack has at least one return address.
const _ = uint(idMask - depotMax)

// depotLookup returns the id of the stack whose hash is h, if the index
// has it, or 0.
func depotLookup(h uint64) uint32 {
	if w := depotIndex[h&indexMask].Load(); w&^idMask == h&^idMask {
		return uint32(w & idMask)
	}
	return 0
}

// stackOf returns the return addresses of stack id, nil for 0. Stored
// stacks never change.
func stackOf(id uint32) []uintptr {
	if id == 0 {
		return nil
	}
	depot.mu.Lock()
	defer depot.mu.Unlock()
	e := stackEntry(id)
	return depot.chunks[e.off/depotChunk][e.off%depotChunk:][:e.n:e.n]
}

// creatorStack returns the id of g's stack at a go statement, g being the
// calling goroutine, for the "created at" of the goroutine it creates:
// go -race shows the creator's whole stack there. 0 if the stack is not
// known or the depot is full.
func creatorStack(g *G) uint32 {
	var pcs [maxStack]uintptr
	return intern(pcs[:stackPCs(g.t.GP, &pcs)])
}
