// Copyright 2026 The bigfoot Authors. All rights reserved.

package detector

import (
	"sync/atomic"

	"github.com/bigfoot-go/bigfoot/internal/spin"
)

// Stacks of the history (history.go), hash-consed: each distinct stack
// is stored once and named by a small id, as ThreadSanitizer's stack
// depot does.

const (
	// maxStack is the most return addresses kept of a stack: a deeper
	// one keeps its innermost frames.
	maxStack = 32
	// depotMax bounds the return addresses the depot keeps (8 MiB on a
	// 64-bit machine): past it, a new stack is not stored, and an access
	// made with it has no stack to restore. A recursion that reaches
	// its accesses through ever new paths fills it; the stacks of a
	// program's loops and handlers are few.
	depotMax = 1 << 20

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
// A program that counts its allocations (testing.AllocsPerRun) must not
// see the depot's: go -race keeps its depot outside the Go heap. So the
// return addresses are copied into chunks of depotChunk words, and the
// table of stacks and the hash index are made once with room for
// depotStacks stacks: a new stack allocates nothing until a chunk fills
// or the depot outgrows that room, and then one object per chunk or per
// doubling.
var depot = struct {
	mu     spin.Mutex
	byHash map[uint64]uint32 // guarded by mu
	stacks [][]uintptr       // by id - 1, each within a chunk; guarded by mu
	chunk  []uintptr         // the chunk being filled; guarded by mu
	pcs    int               // return addresses stored
}{
	byHash: make(map[uint64]uint32, depotStacks),
	stacks: make([][]uintptr, 0, depotStacks),
}

const (
	depotChunk  = 8192 // words per chunk of return addresses (64 KiB)
	depotStacks = 4096 // stacks the depot holds before its tables grow
)

// intern returns the id of the stack pcs, storing a copy of it if it is
// new, or 0 if the depot is full. Stacks are told apart by their hash,
// a 64-bit FNV-1a of their return addresses: two stacks with one hash
// would share the first one's.
func intern(pcs []uintptr) uint32 {
	h := hashPCs(pcs)
	depot.mu.Lock()
	defer depot.mu.Unlock()
	if id, ok := depot.byHash[h]; ok {
		depotIndex[h&indexMask].Store(h&^idMask | uint64(id))
		return id
	}
	if depot.pcs+len(pcs) > depotMax {
		return 0
	}
	depot.pcs += len(pcs)
	if cap(depot.chunk)-len(depot.chunk) < len(pcs) {
		depot.chunk = make([]uintptr, 0, depotChunk)
	}
	n := len(depot.chunk)
	depot.chunk = append(depot.chunk, pcs...)
	depot.stacks = append(depot.stacks, depot.chunk[n:len(depot.chunk):len(depot.chunk)])
	id := uint32(len(depot.stacks))
	depot.byHash[h] = id
	depotIndex[h&indexMask].Store(h&^idMask | uint64(id))
	return id
}

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
	idBits    = 24        // ids are at most depotMax + 1
	idMask    = 1<<idBits - 1
)

// Every id fits in idBits: a stack has at least one return address.
const _ = uint(idMask - (depotMax + 1))

// depotLookup returns the id of the stack whose hash is h, if the index
// has it, or 0.
func depotLookup(h uint64) uint32 {
	if w := depotIndex[h&indexMask].Load(); w&^idMask == h&^idMask {
		return uint32(w & idMask)
	}
	return 0
}

// stackOf returns the return addresses of stack id, nil for 0.
func stackOf(id uint32) []uintptr {
	if id == 0 {
		return nil
	}
	depot.mu.Lock()
	defer depot.mu.Unlock()
	return depot.stacks[id-1]
}

// creatorStack returns the id of g's stack at a go statement, g being the
// calling goroutine, for the "created at" of the goroutine it creates:
// go -race shows the creator's whole stack there. 0 if the stack is not
// known or the depot is full.
func creatorStack(g *G) uint32 {
	var pcs [maxStack]uintptr
	n := stackPCs(g.t.GP, &pcs)
	if n == 0 {
		return 0
	}
	return intern(pcs[:n])
}
