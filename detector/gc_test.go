// Copyright 2026 The bigfoot Authors. All rights reserved.

package detector

import (
	"runtime"
	"testing"
	"unsafe"

	"github.com/bigfoot-go/bigfoot/shadow"
)

type gcObj struct {
	a, b int64
	c    [2]int32
}

// TestGCReuse allocates and drops millions of objects in phases separated
// only by runtime.GC, never by synchronization: each phase's goroutines
// write memory the previous phase's goroutines wrote and the GC freed.
// Stale shadow state would be reported as races.
func TestGCReuse(t *testing.T) {
	phases, workers, n := 4, 2, 250_000 // 2M objects
	if raceEnabled || testing.Short() {
		n = 25_000
	}
	first := map[uintptr]bool{}
	reused := make([]int, phases)
	peak := 0
	expect(t, false, func(g *G) {
		for phase := range phases {
			addrs := make([][]uintptr, workers)
			var ws []<-chan struct{}
			for w := range workers {
				ws = append(ws, spawn(g, func(g *G) {
					objs := make([]*gcObj, n)
					for i := range objs {
						o := new(gcObj)
						*W(g, &o.a, 0) = 1
						*W(g, &o.c[1], 0) = 2
						objs[i] = o
					}
					// A second goroutine (ordered by the fork) shares
					// every 8th object, so the shadow tracks those with
					// weak pointers; the others stay single-goroutine.
					<-spawn(g, func(h *G) {
						for i := 0; i < len(objs); i += 8 {
							_ = *R(h, &objs[i].a, 0)
							*W(h, &objs[i].b, 0) = 3
						}
					})
					as := make([]uintptr, len(objs))
					for i, o := range objs {
						as[i] = uintptr(unsafe.Pointer(o))
					}
					addrs[w] = as
				}))
			}
			for _, w := range ws {
				<-w
			}
			peak = max(peak, space.Len())
			for _, as := range addrs {
				for _, a := range as {
					if phase == 0 {
						first[a] = true
					} else if first[a] {
						reused[phase]++
					}
				}
			}
			runtime.GC()
			runtime.GC()
		}
	})
	for phase := 1; phase < phases; phase++ {
		if reused[phase] == 0 {
			t.Errorf("phase %d reused no memory of phase 0; the test tests nothing", phase)
		}
	}
	t.Logf("objects per phase %d, reused addresses per phase %v, peak shadow pages %d", workers*n, reused, peak)

	// Shadow memory of the dead objects is reclaimed. Two cycles: the
	// background sweeper's weak.Pointer.Value calls keep objects alive if
	// they run during a mark phase.
	for range 2 {
		shadow.Quiesce()
		runtime.GC()
	}
	shadow.Quiesce()
	space.Sweep()
	if after := space.Len(); after > peak/10 {
		t.Errorf("shadow pages after sweep: %d, peak %d", after, peak)
	} else {
		t.Logf("shadow pages after sweep: %d", after)
	}
}
