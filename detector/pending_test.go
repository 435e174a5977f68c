// Copyright 2026 The bigfoot Authors. All rights reserved.

package detector

import (
	"reflect"
	"regexp"
	"runtime"
	"strconv"
	"sync"
	"testing"
	"unsafe"
)

// TestFirstSites: each site of a table maps to the first site of its
// function, whatever the order of the lines.
func TestFirstSites(t *testing.T) {
	got := firstSites("3:1:main\n4:2:main\n9:1:f.func1\n5:3:main\n12:1:f\n13:2:f.func1")
	want := []uint32{0, 0, 2, 0, 4, 2}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("firstSites = %v, want %v", got, want)
	}
	base := RegisterSites("p", "f.go", "1:1:a\n2:1:b\n3:1:a\n")
	if a0, a2, b := funcOfSite(base), funcOfSite(base+2), funcOfSite(base+1); a0 != a2 || a0 == b || a0 == 0 {
		t.Errorf("funcOfSite: a %d and %d, b %d; want a's equal, b's different, none 0", a0, a2, b)
	}
}

// popRange runs a function whose loop writes a[lo:hi] through a
// footprint made at site, and returns: its range moves to the
// goroutine's pending checks.
func popRange(g *G, a []int64, lo, hi int, write bool, site uint32) {
	f := g.Footprint(site, write)
	for i := lo; i < hi; i++ {
		if write {
			*F(f, &a[i], site) = 1
		} else {
			_ = *F(f, &a[i], site)
		}
	}
	g.PopFootprints(f)
}

// TestPendingCoalesce: the ranges of calls over neighbouring parts of an
// array, of one function and kind, become one pending check; another
// kind, another function or a gap keeps its own.
func TestPendingCoalesce(t *testing.T) {
	base := RegisterSites("p", "pending.go", "1:1:leaf\n2:1:leaf\n3:1:merge\n")
	a := make([]int64, 256)
	expect(t, false, func(g *G) {
		popRange(g, a, 0, 16, true, base)
		popRange(g, a, 16, 32, true, base+1) // same function, another site
		popRange(g, a, 8, 24, true, base)    // overlapping
		popRange(g, a, 0, 32, false, base)   // reads
		popRange(g, a, 32, 48, true, base+2) // another function
		popRange(g, a, 64, 80, true, base)   // a gap
		p := &g.pend
		if p.n != 4 {
			t.Fatalf("%d pending checks, want 4: %+v", p.n, p.c[:p.n])
		}
		if c := p.c[0]; c.lo != uintptr(unsafe.Pointer(&a[0])) || c.hi != uintptr(unsafe.Pointer(&a[32])) || !c.write || c.merges != 2 {
			t.Errorf("first pending check: %+v, want the writes of a[0:32], 2 merges", c)
		}
		mu := new(sync.Mutex)
		Lock(g, mu)   // joins nothing: makes none (TestAcquireNothing)
		Unlock(g, mu) // releases: makes them
		if p.n != 0 {
			t.Errorf("%d pending checks after a synchronization, want 0", p.n)
		}
	})
}

// TestPendingRace: ranges moved past their functions' returns are
// checked before the goroutine's next synchronization: another
// goroutine's earlier write, unordered, races with them; ordered by the
// lock, it does not.
func TestPendingRace(t *testing.T) {
	both(t, func(g *G, synced bool) {
		a := make([]int64, 64)
		mu := new(sync.Mutex)
		<-spawn(g, func(g *G) {
			Lock(g, mu)
			*W(g, &a[40], 0) = 2
			Unlock(g, mu)
		})
		<-spawn(g, func(g *G) {
			if synced {
				Lock(g, mu)
			}
			popRange(g, a, 0, 32, true, 0)
			popRange(g, a, 32, 64, true, 0)
			if g.pend.n == 0 {
				t.Error("no pending check after the returns")
			}
			if synced {
				Unlock(g, mu) // makes them, then releases
			}
		})
	})
}

// TestPendingBeforeSleep: a goroutine that sleeps after its work has it
// checked before it sleeps, so that another goroutine's access while it
// sleeps finds it.
func TestPendingBeforeSleep(t *testing.T) {
	a := make([]int64, 64)
	expect(t, true, func(g *G) {
		slept, resume := make(chan struct{}), make(chan struct{})
		done := spawn(g, func(g *G) {
			popRange(g, a, 0, 64, true, 0)
			SleepPre(g, 0)
			close(slept)
			<-resume // stands for the sleep: the goroutine has not ended
		})
		<-slept
		before := races.Load()
		*W(g, &a[7], 0) = 2
		if races.Load() == before {
			t.Error("the write was not found racing with the sleeping goroutine's checked writes")
		}
		close(resume)
		<-done
	})
}

// TestPendingSites: a pending check that merged ranges of several sites
// names, in a race, the site whose range holds the racing element (two
// loops of one function over the halves of an array), for the access
// that found the race and as the earlier access.
func TestPendingSites(t *testing.T) {
	base := RegisterSites("p", "pendsites.go", "10:2:halves\n13:2:halves\n20:2:other\n")
	for _, tc := range []struct {
		name string
		f    func(g *G, a []int64)
		want string
	}{
		{"current", func(g *G, a []int64) {
			<-spawn(g, func(g *G) { *W(g, &a[3], base+2) = 1 })
			popRange(g, a, 8, 16, true, base+1)
			popRange(g, a, 0, 8, true, base)
			Lock(g, new(sync.Mutex))
		}, "Write at 0x[0-9a-f]+ by goroutine \\d+:\n  p.halves\\(\\)\n      pendsites.go:10\n"},
		{"earlier", func(g *G, a []int64) {
			<-spawn(g, func(g *G) {
				popRange(g, a, 0, 8, true, base)
				popRange(g, a, 8, 16, true, base+1)
			})
			*W(g, &a[12], base+2) = 1
		}, "Previous write at 0x[0-9a-f]+ by goroutine \\d+:\n  p.halves\\(\\)\n      pendsites.go:13\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := make([]int64, 16)
			text := expect(t, true, func(g *G) { tc.f(g, a) })
			if !regexp.MustCompile(tc.want).MatchString(text) {
				t.Errorf("report does not match %q:\n%s", tc.want, text)
			}
		})
	}
}

// TestPendingManySites: a function whose six loops write neighbouring
// parts of one array defers six ranges of six sites, more than a
// pending check tells apart: the check is made when the fifth site comes
// and another starts, so that a race on any part names the loop that
// wrote it, as the later access and as the earlier one. Ranges of one
// site on several grids (a recursion's calls over subslices) still merge
// into one check.
func TestPendingManySites(t *testing.T) {
	base := RegisterSites("p", "manysites.go", "10:2:six\n11:2:six\n12:2:six\n13:2:six\n14:2:six\n15:2:six\n20:2:other\n")
	six := func(g *G, a []int64) {
		for k := 0; k < 6; k++ {
			popRange(g, a, 8*k, 8*k+8, true, base+uint32(k))
		}
	}
	for k := 0; k < 6; k++ {
		line := strconv.Itoa(10 + k)
		t.Run("current"+line, func(t *testing.T) {
			a := make([]int64, 48)
			text := expect(t, true, func(g *G) {
				<-spawn(g, func(g *G) { *W(g, &a[8*k+3], base+6) = 1 })
				six(g, a)
				Lock(g, new(sync.Mutex))
			})
			want := "Write at 0x[0-9a-f]+ by goroutine \\d+:\n  p.six\\(\\)\n      manysites.go:" + line + "\n"
			if !regexp.MustCompile(want).MatchString(text) {
				t.Errorf("report does not match %q:\n%s", want, text)
			}
		})
		t.Run("earlier"+line, func(t *testing.T) {
			a := make([]int64, 48)
			text := expect(t, true, func(g *G) {
				<-spawn(g, func(g *G) { six(g, a) })
				*W(g, &a[8*k+3], base+6) = 1
			})
			want := "Previous write at 0x[0-9a-f]+ by goroutine \\d+:\n  p.six\\(\\)\n      manysites.go:" + line + "\n"
			if !regexp.MustCompile(want).MatchString(text) {
				t.Errorf("report does not match %q:\n%s", want, text)
			}
		})
	}
	a := make([]int64, 72)
	expect(t, false, func(g *G) {
		for k := 0; k < 8; k++ {
			// One site, each range from its own first element.
			popRange(g, a, 8*k+1, 8*k+9, true, base+6)
		}
		if p := &g.pend; p.n != 1 || p.c[0].merges != 7 {
			t.Errorf("%d pending checks, want 1 of 8 ranges: %+v", p.n, p.c[:p.n])
		}
	})
}

// TestPendingBefore: a footprint's check names an access of the same
// bytes that a pending check holds only if the pending check took them
// before the footprint was pushed (a caller's copy before the call whose
// footprint raced), not if it took any while the footprint was pushed.
func TestPendingBefore(t *testing.T) {
	base := RegisterSites("p", "before.go", "1:1:caller\n2:1:callee\n3:1:inner\n")
	a := make([]int64, 64)
	at := func(i int) uintptr { return uintptr(unsafe.Pointer(&a[i])) }
	expect(t, false, func(g *G) {
		popRange(g, a, 0, 8, false, base) // a caller's reads, moved at its return
		f := g.Footprint(base+1, true)    // the callee it calls next
		if h, ok := g.pendingBefore(at(3), f); !ok || h.site != base || h.write {
			t.Errorf("pendingBefore(a[3]) = %+v, %v; want the read at site %d", h, ok, base)
		}
		if _, ok := g.pendingBefore(at(9), f); ok {
			t.Errorf("pendingBefore(a[9]) found an access; no pending check holds a[9]")
		}
		popRange(g, a, 8, 16, false, base+2) // reads made while f is pushed
		if h, ok := g.pendingBefore(at(10), f); ok {
			t.Errorf("pendingBefore(a[10]) = %+v: taken while the footprint was pushed, want none", h)
		}
		f2 := g.Footprint(base+2, true) // a callee of f's function, called next
		if h, ok := g.pendingBefore(at(10), f2); !ok || h.site != base+2 {
			t.Errorf("pendingBefore(a[10]) = %+v, %v for a footprint pushed after; want the read at site %d", h, ok, base+2)
		}
		g.PopFootprints(f2)
		g.PopFootprints(f)
	})
}

// mergeAndCopy writes a[:4] through a footprint and a[4:8] by a copy,
// as a merge writes its destination: its loop, then its trailing copy.
func mergeAndCopy(g *G, a, b []int64, site uint32) {
	f := g.Footprint(site, true)
	for i := 0; i < 4; i++ {
		*F(f, &a[i], site) = 1
	}
	Copy(g, site+1, a[4:8], b[:4])
	g.PopFootprints(f)
}

// TestPendingStackAcrossPaths: ranges one function made with one stack
// keep it in their pending check, whichever way they came (a copy's, a
// footprint's at the return: the detector's frames differ) and at
// whichever line of the function; the same function called from
// another place makes it unknown.
func TestPendingStackAcrossPaths(t *testing.T) {
	base := RegisterSites("p", "paths.go", "1:1:mergeAndCopy\n2:1:mergeAndCopy\n")
	a, b := make([]int64, 16), make([]int64, 8)
	expect(t, false, func(g *G) {
		if g.hist == nil {
			t.Skip("the history is off")
		}
		mergeAndCopy(g, a, b, base)
		c := pendingWrite(t, g)
		if c.nsub != 2 || c.stack == unknownStack {
			t.Errorf("the write of a[:8]: %d subs, stack %#x; want 2 subs and a stack", c.nsub, c.stack)
		}
		mergeAndCopy(g, a[4:], b, base) // another call site: another stack
		if c := pendingWrite(t, g); c.stack != unknownStack {
			t.Errorf("the write of a[:12] from two call sites has stack %#x, want unknown", c.stack)
		}
	})
}

// pendingWrite returns g's one pending write check.
func pendingWrite(t *testing.T, g *G) *pendingCheck {
	t.Helper()
	var w *pendingCheck
	for i := 0; i < g.pend.n; i++ {
		if c := &g.pend.c[i]; c.write {
			if w != nil {
				t.Fatalf("two pending write checks: %+v", g.pend.c[:g.pend.n])
			}
			w = c
		}
	}
	if w == nil {
		t.Fatalf("no pending write check")
	}
	return w
}

// TestDetectorPC: a return address in a detector function is the
// detector's; one in a test's function, which calls the detector, is
// not, nor one after a detector function inlined into it.
func TestDetectorPC(t *testing.T) {
	pc, _, _, _ := runtime.Caller(0)
	if detectorPC(pc + 1) {
		t.Errorf("a pc of a test function is the detector's")
	}
	fn := reflect.ValueOf(hashPCs).Pointer()
	if !detectorPC(fn + 1) {
		t.Errorf("a pc of hashPCs is not the detector's")
	}
	if u := userPCs([]uintptr{fn + 1, fn + 1, pc + 1}); len(u) != 1 || u[0] != pc+1 {
		t.Errorf("userPCs = %v, want the test's pc alone", u)
	}
}

// TestPendingLarge: a range of pendLarge bytes or more is checked at its
// function's return, not moved to the pending checks: it is one operation
// over runs already, and the program's next accesses of it (a buffer
// filled, then read word by word) would otherwise make per-granule state
// before the pending write came. A smaller one is still moved.
func TestPendingLarge(t *testing.T) {
	n := int(pendLarge / 8)
	a := make([]int64, 2*n)
	expect(t, false, func(g *G) {
		popRange(g, a, 0, n, true, 0)
		if g.pend.n != 0 {
			t.Errorf("a range of %d bytes is pending: %+v", pendLarge, g.pend.c[:g.pend.n])
		}
		popRange(g, a, n, n+n/2, true, 0)
		if g.pend.n != 1 {
			t.Errorf("%d pending checks after a range of %d bytes, want 1", g.pend.n, pendLarge/2)
		}
	})
}
