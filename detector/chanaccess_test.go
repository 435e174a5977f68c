// Copyright 2026 The bigfoot Authors. All rights reserved.

package detector

import (
	"math/rand/v2"
	"runtime"
	"runtime/debug"
	"testing"
	"unsafe"

	"github.com/bigfoot-go/bigfoot/shadow"
)

// TestChanAccessModel drives chanAccess, which keeps the FastTrack state
// of a channel's hchan byte (sends read it, closes write it), and the
// shadow with the same random accesses and synchronization of four
// threads, and checks that they report the same conflict at the same
// accesses, each with an earlier access not ordered before the current
// one.
func TestChanAccessModel(t *testing.T) {
	defer debug.SetGCPercent(debug.SetGCPercent(-1)) // the shadow drops unshared state at a GC
	const nthreads = 4
	races := 0
	for seed := uint64(1); seed <= 200; seed++ {
		rng := rand.New(rand.NewPCG(seed, 7))
		space := shadow.NewSpace()
		mem := new([8]byte)
		chanAccessSink = mem // on the heap, as an hchan is
		shadow.RefreshGen()  // the shadow stamps state with the generation it last saw
		p := unsafe.Pointer(&mem[0])
		var a chanAccess
		gs := make([]*G, nthreads+1) // thread ids 1..nthreads
		for i := 1; i <= nthreads; i++ {
			g := &G{tid: uint32(i)}
			g.t.VC = make([]uint64, nthreads+1)
			g.t.VC[i] = 1
			g.t.Epoch = shadow.MakeEpoch(uint32(i), 1)
			gs[i] = g
		}
		var accesses []shadow.Epoch // every access so far, with its kind
		var writes []bool
		for step := 0; step < 60; step++ {
			g := gs[1+rng.IntN(nthreads)]
			switch rng.IntN(4) {
			case 0: // g releases, another thread acquires
				h := gs[1+rng.IntN(nthreads)]
				h.t.VC = join(h.t.VC, g.t.VC)
				g.tick()
			case 1:
				g.tick()
			default:
				write := rng.IntN(5) == 0
				var r shadow.Race
				found := false
				if write || !a.readOrdered(g) { // a send's read: as sendLocked
					found = a.check(g, uintptr(p), write, &r)
				}
				want, wantFound := space.Access(&g.t, p, 1, write, 0)
				if found != wantFound || found && (r.Prev != want.Prev || r.PrevWrite != want.PrevWrite || r.Write != want.Write || r.Addr != uintptr(p)) {
					t.Fatalf("seed %d step %d: %s by thread %d: chanAccess found %v %+v, shadow %v %+v",
						seed, step, kindName(write), g.tid, found, r, wantFound, want)
				}
				if found {
					ok := false
					for i, e := range accesses {
						ok = ok || e == r.Prev && writes[i] == r.PrevWrite
					}
					if !ok || shadow.HB(r.Prev, g.t.VC) || !r.PrevWrite && !write {
						t.Fatalf("seed %d step %d: conflict %+v is with no earlier conflicting access", seed, step, r)
					}
					races++
				}
				accesses = append(accesses, g.t.Epoch)
				writes = append(writes, write)
			}
		}
		runtime.KeepAlive(mem)
		chanAccessSink = nil
	}
	if races == 0 {
		t.Fatal("no conflicts in 200 random runs: the test exercises nothing")
	}
	t.Logf("%d conflicts, all as the shadow reports them", races)
}

var chanAccessSink *[8]byte

func kindName(write bool) string {
	if write {
		return "write"
	}
	return "read"
}
