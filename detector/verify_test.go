// Copyright 2026 The bigfoot Authors. All rights reserved.

//go:build bigfoot_verify

package detector

import (
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"unsafe"
)

// The precise-checks verifier: go test -tags bigfoot_verify ./detector/

// verifyRun runs f like run and returns the violations the verifier
// counted and the text it printed. f must not race.
func verifyRun(t *testing.T, f func(g *G)) (uncovered, illegitimate int, text string) {
	t.Helper()
	reportMu.Lock()
	clear(verifySeen)
	reportMu.Unlock()
	u, i := verifyStats.uncovered.Load(), verifyStats.illegitimate.Load()
	n, text := run(t, f)
	if n != 0 {
		t.Errorf("%d races reported:\n%s", n, text)
	}
	return int(verifyStats.uncovered.Load() - u), int(verifyStats.illegitimate.Load() - i), text
}

// verifyExpect runs f and checks the violations it counts.
func verifyExpect(t *testing.T, uncovered, illegitimate int, f func(g *G)) string {
	t.Helper()
	u, i, text := verifyRun(t, f)
	if u != uncovered || i != illegitimate {
		t.Errorf("uncovered=%d illegitimate=%d, want %d %d; output:\n%s", u, i, uncovered, illegitimate, text)
	}
	return text
}

var verifySites = RegisterSites("example.com/m/v", "v/file.go", "10:3:F\n11:5:F\n12:7:G.func1\n13:9:H\n")

// sink keeps the objects of the tests on the heap: the verifier does not
// record stack memory.
var sink any

func newHeap[T any]() *T {
	p := new(T)
	sink = p
	return p
}

// syncOp is a synchronization operation: it ends the span.
func syncOp(g *G) {
	var mu sync.Mutex
	Lock(g, &mu)
	Unlock(g, &mu)
}

func TestVerifyInPlaceChecks(t *testing.T) {
	s := verifySites
	text := verifyExpect(t, 0, 0, func(g *G) {
		x, a := newHeap[int64](), newHeap[[10]int32]()[:]
		*W(g, x, s) = 1
		_ = *R(g, x, s+1)
		g.Read(unsafe.Pointer(x), 8, s)
		g.WriteRange(unsafe.Pointer(&a[0]), 4, 0, 10, 3, s)
		_ = MapRead(g, map[int]int{}, s)
		syncOp(g)
		_ = *R(g, x, s)
	})
	if text != "" {
		t.Errorf("output:\n%s", text)
	}
}

// A records an access whose check was elided: a check of a covering kind
// in the same span, before or after, covers it.
func TestVerifyElidedCovered(t *testing.T) {
	s := verifySites
	verifyExpect(t, 0, 0, func(g *G) {
		x, y := newHeap[int64](), newHeap[[4]int64]()
		_ = *A(g, x, false, s) // covered by the later read check
		_ = *R(g, x, s+1)
		*W(g, &y[1], s+1) = 1 // covers the write and the read below
		*A(g, &y[1], true, s) = 2
		_ = *A(g, &y[1], false, s)
		g.ReadRange(unsafe.Pointer(y), 8, 0, 4, 1, s+2) // covers y's reads
		for i := range y {
			_ = *A(g, &y[i], false, s+3)
		}
	})
}

func TestVerifyUncovered(t *testing.T) {
	s := verifySites
	var x *int64
	text := verifyExpect(t, 1, 0, func(g *G) {
		x = newHeap[int64]()
		_ = *A(g, x, false, s+1)
		syncOp(g)
	})
	pat := `^bigfoot verify: uncovered read of 8 bytes at 0x([0-9a-f]{12}) \(site v/file.go:11:5 example.com/m/v.F\) in span of goroutine \d+ ending at synchronization in github.com/bigfoot-go/bigfoot/detector.syncOp at .*/detector/verify_test.go:\d+\n$`
	m := regexp.MustCompile(pat).FindStringSubmatch(text)
	if m == nil {
		t.Fatalf("output does not match %s:\n%s", pat, text)
	}
	if want := fmt.Sprintf("%012x", uintptr(unsafe.Pointer(x))); m[1] != want {
		t.Errorf("address 0x%s, want 0x%s", m[1], want)
	}

	// A read check does not cover a write; a check of part of the bytes
	// covers those bytes only.
	text = verifyExpect(t, 2, 0, func(g *G) {
		x, y := newHeap[int64](), newHeap[int64]()
		*A(g, x, true, s) = 1
		_ = *R(g, x, s)
		_ = *A(g, y, false, s+2)
		g.Read(unsafe.Pointer(y), 4, s)
	})
	contains(t, text, "uncovered write of 8 bytes", "(site v/file.go:10:3 ", "uncovered read of 4 bytes", "(site v/file.go:12:7 ")

	// An access in a loop whose range check misses elements: one
	// violation, the bytes of the elements missed.
	text = verifyExpect(t, 1, 0, func(g *G) {
		a := newHeap[[10]int64]()[:]
		for i := range a {
			_ = *A(g, &a[i], false, s+3)
		}
		g.ReadRange(unsafe.Pointer(&a[0]), 8, 0, 10, 2, s)
	})
	contains(t, text, "uncovered read of 40 bytes")
}

func TestVerifyIllegitimate(t *testing.T) {
	s := verifySites
	// A read check of bytes never accessed (checkOne is a footprint's
	// commit: a check only).
	text := verifyExpect(t, 0, 1, func(g *G) {
		g.checkOne(unsafe.Pointer(newHeap[int64]()), 8, false, s)
	})
	contains(t, text, "bigfoot verify: illegitimate read check of 8 bytes at 0x", "(site v/file.go:10:3 ", "ending at goroutine exit")
	// A write check of bytes only read: illegitimate (and it covers the
	// read).
	text = verifyExpect(t, 0, 1, func(g *G) {
		x := newHeap[int64]()
		_ = *A(g, x, false, s+1)
		g.checkOne(unsafe.Pointer(x), 8, true, s+1)
	})
	contains(t, text, "illegitimate write check of 8 bytes")
	// A read check is legitimate for a write access.
	verifyExpect(t, 0, 0, func(g *G) {
		x := newHeap[int64]()
		*W(g, x, s) = 1 // covers the write below
		*A(g, x, true, s) = 2
		g.checkOne(unsafe.Pointer(x), 8, false, s+1)
	})
	// A range check wider than what was accessed.
	text = verifyExpect(t, 0, 1, func(g *G) {
		a := newHeap[[10]int64]()[:]
		for i := 0; i < 9; i++ {
			_ = *A(g, &a[i], false, s)
		}
		g.checkStrided(unsafe.Pointer(&a[0]), 8, 8, 10, false, s+2)
	})
	contains(t, text, "illegitimate read check of 8 bytes")
}

// Footprints record accesses and commit checks at the next
// synchronization, return or exit: their checks are precise.
func TestVerifyFootprints(t *testing.T) {
	s := verifySites
	accesses, checks := verifyStats.accesses.Load(), verifyStats.checks.Load()
	defer func() {
		// 100 up, 100 down, 50 odd, 11 up again, 1 inner; checks: a range
		// each, and a[50] and a[7] (two elements 43 apart) as a range;
		// plus the mutex's reads by Lock and Unlock, in place.
		a, c := verifyStats.accesses.Load()-accesses, verifyStats.checks.Load()-checks
		if a != 262+2 || c != 5+2 {
			t.Errorf("recorded %d accesses and %d checks, want 264 and 7", a, c)
		}
	}()
	verifyExpect(t, 0, 0, func(g *G) {
		a := newHeap[[100]int64]()[:]
		up, down, odd := g.Footprint(s, true), g.Footprint(s+1, false), g.Footprint(s+2, false)
		for i := range a {
			*F(up, &a[i], 0) = 1
		}
		for i := 99; i >= 0; i-- {
			_ = *F(down, &a[i], 0)
		}
		syncOp(g) // commits up and down
		for i := 1; i < 100; i += 2 {
			_ = *F(odd, &a[i], 0)
		}
		*F(up, &a[50], 0) = 2 // breaks nothing: a new range
		for range 10 {
			*F(up, &a[7], 0) = 3 // repeats
		}
		g.PopFootprints(up)
		inner := g.Footprint(s+3, true)
		*F(inner, &a[3], 0) = 1 // committed at exit
	})
}

// A check covers only accesses of its own span.
func TestVerifySpans(t *testing.T) {
	s := verifySites
	text := verifyExpect(t, 1, 1, func(g *G) {
		x := newHeap[int64]()
		_ = *A(g, x, false, s)
		syncOp(g)
		g.checkOne(unsafe.Pointer(x), 8, false, s+1)
	})
	contains(t, text, "uncovered read", "illegitimate read check")
	// The in-place check of the next span is an access of its own, but
	// does not cover the earlier one.
	verifyExpect(t, 1, 0, func(g *G) {
		x := newHeap[int64]()
		_ = *A(g, x, false, s)
		syncOp(g)
		_ = *R(g, x, s)
	})
}

// Across an operation that only acquires (Lock) a check before it covers
// an access after it, and an access before it legitimizes a check after
// it; across one that only releases (Unlock, a go statement), a check
// after it covers an access before it, and an access after it legitimizes
// a check before it (Rhodes' thesis §3.2). The other directions are
// violations. zap's sinkRegistry.newSink reads u.Scheme, locks, and reads
// it again under the lock, where the static pass elides the check.
func TestVerifyAcquireRelease(t *testing.T) {
	s := verifySites
	for _, c := range []struct {
		name                    string
		uncovered, illegitimate int
		f                       func(g *G, x *int64, mu *sync.Mutex)
	}{
		{"check, acquire, access", 0, 0, func(g *G, x *int64, mu *sync.Mutex) {
			_ = *R(g, x, s)
			Lock(g, mu)
			_ = *A(g, x, false, s+1)
			Unlock(g, mu)
		}},
		{"check, acquire, acquire, access", 0, 0, func(g *G, x *int64, mu *sync.Mutex) {
			mu2 := newHeap[sync.Mutex]()
			_ = *R(g, x, s)
			Lock(g, mu)
			Lock(g, mu2)
			_ = *A(g, x, false, s+1)
			Unlock(g, mu2)
			Unlock(g, mu)
		}},
		{"check, release, access", 1, 0, func(g *G, x *int64, mu *sync.Mutex) {
			Lock(g, mu)
			_ = *R(g, x, s)
			Unlock(g, mu)
			_ = *A(g, x, false, s+1)
		}},
		{"access, release, check", 0, 0, func(g *G, x *int64, mu *sync.Mutex) {
			Lock(g, mu)
			*A(g, x, true, s+1) = 1
			Unlock(g, mu)
			*W(g, x, s) = 2
		}},
		{"access, release, release, check", 0, 0, func(g *G, x *int64, mu *sync.Mutex) {
			mu2 := newHeap[sync.Mutex]()
			Lock(g, mu)
			Lock(g, mu2)
			*A(g, x, true, s+1) = 1
			Unlock(g, mu2)
			Unlock(g, mu)
			*W(g, x, s) = 2
		}},
		{"access, go statement, check", 0, 0, func(g *G, x *int64, mu *sync.Mutex) {
			*A(g, x, true, s+1) = 1
			<-spawnAt(g, s+3, func(g *G) {})
			*W(g, x, s) = 2
		}},
		{"access, acquire, check", 1, 0, func(g *G, x *int64, mu *sync.Mutex) {
			_ = *A(g, x, false, s+1)
			Lock(g, mu)
			_ = *R(g, x, s)
			Unlock(g, mu)
		}},
		{"access, release, acquire, check", 1, 0, func(g *G, x *int64, mu *sync.Mutex) {
			Lock(g, mu)
			_ = *A(g, x, false, s+1)
			Unlock(g, mu)
			Lock(g, mu)
			_ = *R(g, x, s)
			Unlock(g, mu)
		}},
		{"check, release, access legitimizes", 0, 0, func(g *G, x *int64, mu *sync.Mutex) {
			Lock(g, mu)
			g.checkOne(unsafe.Pointer(x), 8, false, s+2)
			Unlock(g, mu)
			_ = *R(g, x, s)
		}},
		{"check, acquire, access does not legitimize", 0, 1, func(g *G, x *int64, mu *sync.Mutex) {
			g.checkOne(unsafe.Pointer(x), 8, false, s+2)
			Lock(g, mu)
			_ = *R(g, x, s)
			Unlock(g, mu)
		}},
		{"access, acquire, check legitimized", 0, 0, func(g *G, x *int64, mu *sync.Mutex) {
			_ = *R(g, x, s)
			Lock(g, mu)
			g.checkOne(unsafe.Pointer(x), 8, false, s+2)
			Unlock(g, mu)
		}},
		{"access, release, check not legitimized", 0, 1, func(g *G, x *int64, mu *sync.Mutex) {
			Lock(g, mu)
			_ = *R(g, x, s)
			Unlock(g, mu)
			g.checkOne(unsafe.Pointer(x), 8, false, s+2)
		}},
		{"check not legitimized across release and acquire", 0, 1, func(g *G, x *int64, mu *sync.Mutex) {
			Lock(g, mu)
			g.checkOne(unsafe.Pointer(x), 8, false, s+2)
			Unlock(g, mu)
			Lock(g, mu)
			_ = *R(g, x, s)
			Unlock(g, mu)
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			verifyExpect(t, c.uncovered, c.illegitimate, func(g *G) {
				c.f(g, newHeap[int64](), newHeap[sync.Mutex]())
			})
		})
	}
}

// Each (site, kind) is reported once; every violation is counted.
func TestVerifyDedup(t *testing.T) {
	s := verifySites
	text := verifyExpect(t, 3, 0, func(g *G) {
		for range 3 {
			_ = *A(g, newHeap[int64](), false, s)
			syncOp(g)
		}
	})
	if n := strings.Count(text, "bigfoot verify:"); n != 1 {
		t.Errorf("%d lines, want 1:\n%s", n, text)
	}
}

func TestVerifyStackNotRecorded(t *testing.T) {
	if !haveG {
		t.Skip("stack memory is recognized only with getg")
	}
	verifyExpect(t, 0, 0, func(g *G) {
		var local [4]int64
		_ = *A(g, &local[1], false, verifySites)
		g.checkOne(unsafe.Pointer(&local[2]), 8, true, verifySites)
	})
}

// A span too large to record is counted as unverified, not reported.
func TestVerifyOverflow(t *testing.T) {
	before := verifyStats.unverified.Load()
	verifyExpect(t, 0, 0, func(g *G) {
		a := newHeap[[4]int64]()[:]
		// A gapped range of verifyCap+1 elements (never touched:
		// recorded only).
		g.verifyRecord(unsafe.Pointer(&a[0]), 1, 2, verifyCap+1, vCheck, verifySites)
		_ = *A(g, &a[1], false, verifySites)
	})
	if n := verifyStats.unverified.Load() - before; n != 1 {
		t.Errorf("unverified spans: %d, want 1", n)
	}
}

// Prior spans too large to keep leave what they could have covered
// unverified, not reported.
func TestVerifyPriorOverflow(t *testing.T) {
	before := verifyStats.unverified.Load()
	verifyExpect(t, 0, 0, func(g *G) {
		a := newHeap[[4]int64]()[:]
		mu, mu2 := newHeap[sync.Mutex](), newHeap[sync.Mutex]()
		// Two spans since the last release, each with checks and
		// accesses of verifyCap/2+1 gapped elements.
		g.verifyRecord(unsafe.Pointer(&a[0]), 1, 2, verifyCap/2+1, vAccess|vCheck, verifySites)
		Lock(g, mu2)
		g.verifyRecord(unsafe.Add(unsafe.Pointer(&a[0]), 1), 1, 2, verifyCap/2+1, vAccess|vCheck, verifySites)
		Lock(g, mu)
		_ = *A(g, &a[1], false, verifySites)
		Unlock(g, mu)
	})
	if n := verifyStats.unverified.Load() - before; n != 1 {
		t.Errorf("unverified: %d, want 1", n)
	}
}

func TestVerifyUnion(t *testing.T) {
	var v intervalSets
	for _, iv := range []interval{{30, 40}, {0, 8}, {8, 10}, {20, 25}, {22, 24}} {
		v.add(&verifyRec{addr: iv.lo, size: iv.hi - iv.lo, n: 1, kind: vAccess})
	}
	v.union()
	u := v.accAll
	want := []interval{{0, 10}, {20, 25}, {30, 40}}
	if !slices.Equal(u, want) {
		t.Fatalf("union = %v, want %v", u, want)
	}
	for _, c := range []struct{ lo, hi, n, first uintptr }{
		{0, 10, 0, 0}, {2, 5, 0, 0}, {5, 12, 2, 10}, {10, 20, 10, 10},
		{18, 32, 7, 18}, {41, 45, 4, 41}, {0, 50, 25, 10}, {24, 25, 0, 0},
	} {
		var n, first uintptr
		gaps(u, c.lo, c.hi, func(lo, hi uintptr) {
			if n == 0 {
				first = lo
			}
			n += hi - lo
		})
		if n != c.n || (n > 0 && first != c.first) {
			t.Errorf("gaps(%d, %d): %d bytes from %d; want %d from %d", c.lo, c.hi, n, first, c.n, c.first)
		}
	}
}

// An uncovered access makes the program exit with status 67 and print the
// summary.
func TestVerifyExit(t *testing.T) {
	switch os.Getenv("BIGFOOT_VERIFY_CHILD") {
	case "uncovered":
		Main(func() {
			g := Cur()
			_ = *A(g, newHeap[int64](), false, verifySites)
		})
		return
	case "clean":
		Main(func() {
			g := Cur()
			_ = *R(g, newHeap[int64](), verifySites)
		})
		return
	}
	for _, c := range []struct {
		kind string
		code int
		want string
	}{
		{"uncovered", 67, `(?s)bigfoot verify: uncovered read of 8 bytes .* ending at program exit\n.*bigfoot verify: accesses=1 checks=0 uncovered=1 illegitimate=0 spans=1 unverified_spans=0\n`},
		{"clean", 0, `^bigfoot verify: accesses=1 checks=1 uncovered=0 illegitimate=0 spans=1 unverified_spans=0\n$`},
	} {
		cmd := exec.Command(os.Args[0], "-test.run=^TestVerifyExit$")
		cmd.Env = append(os.Environ(), "BIGFOOT_VERIFY_CHILD="+c.kind)
		var stderr strings.Builder
		cmd.Stderr = &stderr
		err := cmd.Run()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		if code != c.code || !regexp.MustCompile(c.want).MatchString(stderr.String()) {
			t.Errorf("%s: exit status %d (want %d), stderr:\n%s", c.kind, code, c.code, stderr.String())
		}
	}
}

// TestVerifySetsModel compares the four sets of intervalSets, built from
// random records in batches with a union after each, with a byte-precise
// model: at low addresses (sorted as packed integers) and at the top of
// the address space (sorted as structs).
func TestVerifySetsModel(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	kinds := []uint8{vAccess, vAccess | vWrite, vCheck, vCheck | vWrite, vAccess | vCheck, vAccess | vCheck | vWrite}
	for iter := range 4000 {
		base := uintptr(0)
		if iter%2 == 1 {
			base = ^uintptr(0) - 1023
		}
		var v intervalSets
		var model [4][256]bool // accW, accAll, chkW, chkAll
		for range 1 + rng.IntN(3) {
			for range rng.IntN(20) {
				r := verifyRec{addr: uintptr(rng.IntN(64)), size: uintptr(1 + rng.IntN(8)), n: 1 + rng.IntN(5), kind: kinds[rng.IntN(len(kinds))]}
				r.step = uintptr(rng.IntN(12))
				if rng.IntN(4) == 0 && r.n > 1 {
					r.addr += uintptr(r.n-1) * r.step
					r.step = -r.step
				}
				r.addr += base
				v.add(&r)
				r.addr -= base
				for e := range r.n {
					at := r.addr + uintptr(e)*r.step
					for b := at; b < at+r.size; b++ {
						if r.kind&vAccess != 0 {
							model[1][b] = true
							model[0][b] = model[0][b] || r.kind&vWrite != 0
						}
						if r.kind&vCheck != 0 {
							model[3][b] = true
							model[2][b] = model[2][b] || r.kind&vWrite != 0
						}
					}
				}
			}
			v.union()
			for i, set := range [][]interval{v.accW, v.accAll, v.chkW, v.chkAll} {
				var got [256]bool
				for j, iv := range set {
					if iv.lo >= iv.hi || (j > 0 && iv.lo <= set[j-1].hi) {
						t.Fatalf("case %d: set %d = %v: not a union", iter, i, set)
					}
					for b := iv.lo; b < iv.hi; b++ {
						got[b-base] = true
					}
				}
				if got != model[i] {
					t.Fatalf("case %d: set %d = %v, differs from the model", iter, i, set)
				}
			}
		}
	}
}
