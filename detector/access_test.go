// Copyright 2026 The bigfoot Authors. All rights reserved.

package detector

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"unsafe"
)

func TestBytePrecision(t *testing.T) {
	type pair struct {
		a int32
		b int32
		c [6]byte
		d uint16
	}
	// Adjacent fields written by unordered goroutines do not race.
	expect(t, false, func(g *G) {
		p := new(pair)
		<-spawn(g, func(g *G) { *W(g, &p.a, 0) = 1; *W(g, &p.c[0], 0) = 1; *W(g, &p.c[2], 0) = 1 })
		<-spawn(g, func(g *G) { *W(g, &p.b, 0) = 1; *W(g, &p.c[1], 0) = 1; *W(g, &p.d, 0) = 1 })
		<-spawn(g, func(g *G) { _ = *R(g, &p.c[3], 0); g.Write(unsafe.Pointer(&p.c[4]), 2, 0) })
	})
	// Adjacent bytes of a []byte, including through range checks.
	expect(t, false, func(g *G) {
		b := make([]byte, 64)
		<-spawn(g, func(g *G) { g.WriteRange(unsafe.Pointer(&b[0]), 1, 0, 64, 2, 0) })
		<-spawn(g, func(g *G) { g.WriteRange(unsafe.Pointer(&b[0]), 1, 1, 64, 2, 0) })
	})
	// Overlapping ranges conflict: a whole-word write and a byte inside it.
	expect(t, true, func(g *G) {
		p := new(pair)
		<-spawn(g, func(g *G) { *W(g, (*int64)(unsafe.Pointer(&p.a)), 0) = 1 })
		<-spawn(g, func(g *G) { *W(g, &p.b, 0) = 2 })
	})
	expect(t, true, func(g *G) {
		b := make([]byte, 64)
		<-spawn(g, func(g *G) { _ = *W(g, &b[13], 0) })
		<-spawn(g, func(g *G) { g.ReadRange(unsafe.Pointer(&b[0]), 1, 10, 20, 1, 0) })
	})
	// An access that crosses granules, unaligned.
	expect(t, true, func(g *G) {
		b := make([]byte, 64)
		<-spawn(g, func(g *G) { g.Write(unsafe.Pointer(&b[5]), 6, 0) })
		<-spawn(g, func(g *G) { g.Read(unsafe.Pointer(&b[9]), 1, 0) })
	})
	expect(t, false, func(g *G) {
		b := make([]byte, 64)
		<-spawn(g, func(g *G) { g.Write(unsafe.Pointer(&b[5]), 6, 0) })
		<-spawn(g, func(g *G) { g.Read(unsafe.Pointer(&b[11]), 5, 0); g.Read(unsafe.Pointer(&b[0]), 5, 0) })
	})
}

// TestShortRange checks the short contiguous ranges of sub-word elements
// that checkRange and checkStrided check as one access of their bytes
// (checkBytes): adjacent unaligned pieces written by unordered goroutines
// do not race, a byte in common does, on both paths, and a range past
// shortSpan is decided the same way.
func TestShortRange(t *testing.T) {
	for _, n := range []int{20, shortSpan + 40} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			expect(t, false, func(g *G) {
				b := make([]byte, 2*n)
				<-spawn(g, func(g *G) { g.WriteRange(unsafe.Pointer(&b[0]), 1, 3, 3+n/2, 1, 0) })
				<-spawn(g, func(g *G) { g.WriteRange(unsafe.Pointer(&b[0]), 1, 3+n/2, 3+n, 1, 0) })
				<-spawn(g, func(g *G) { g.checkStrided(unsafe.Pointer(&b[3+n]), 1, 1, n/2, true, 0) })
			})
			expect(t, true, func(g *G) {
				b := make([]byte, 2*n)
				<-spawn(g, func(g *G) { g.WriteRange(unsafe.Pointer(&b[0]), 1, 3, 3+n/2, 1, 0) })
				<-spawn(g, func(g *G) { g.ReadRange(unsafe.Pointer(&b[0]), 1, 2+n/2, 4+n/2, 1, 0) })
			})
			expect(t, true, func(g *G) {
				b := make([]uint16, n)
				<-spawn(g, func(g *G) { g.checkStrided(unsafe.Pointer(&b[1]), 2, 2, n/4, true, 0) })
				<-spawn(g, func(g *G) { _ = *R(g, &b[n/4], 0) })
			})
			// A byte written through a range, then read through another
			// range by a goroutine ordered after it: no race.
			expect(t, false, func(g *G) {
				b := make([]byte, 2*n)
				mu := new(struct{ m [8]byte })
				<-spawn(g, func(g *G) {
					g.WriteRange(unsafe.Pointer(&b[0]), 1, 5, 5+n, 1, 0)
					RaceRelease(unsafe.Pointer(mu))
				})
				<-spawn(g, func(g *G) {
					RaceAcquire(unsafe.Pointer(mu))
					g.checkStrided(unsafe.Pointer(&b[1]), 1, 1, n, false, 0)
				})
			})
		})
	}
}

func TestRangeStride(t *testing.T) {
	both(t, func(g *G, synced bool) {
		s := make([]int64, 100)
		mu := new(struct{ m [8]byte })
		<-spawn(g, func(g *G) {
			g.WriteRange(unsafe.Pointer(&s[0]), 8, 0, 100, 3, 0)
			RaceRelease(unsafe.Pointer(mu))
		})
		<-spawn(g, func(g *G) {
			if synced {
				RaceAcquire(unsafe.Pointer(mu))
			}
			_ = *R(g, &s[99], 0) // 99 = 33*3
		})
	})
	expect(t, false, func(g *G) {
		s := make([]int64, 100)
		<-spawn(g, func(g *G) { g.WriteRange(unsafe.Pointer(&s[0]), 8, 0, 100, 3, 0) })
		<-spawn(g, func(g *G) { g.WriteRange(unsafe.Pointer(&s[0]), 8, 1, 100, 3, 0) })
	})
}

// TestGroups covers RG and WG, the field-group checks the instrumenter
// emits at a group's last access: the whole group [lo, hi) is checked,
// whichever field the anchor is, and nothing outside it.
func TestGroups(t *testing.T) {
	type s struct {
		a    int64
		x, y int32
		z    float64
		w    int64
	}
	var v s
	// A write group x..z anchored at z races with a read of x.
	expect(t, true, func(g *G) {
		p := new(s)
		<-spawn(g, func(g *G) {
			*WG(g, &p.z, unsafe.Offsetof(v.z), unsafe.Offsetof(v.x), unsafe.Offsetof(v.z)+unsafe.Sizeof(v.z), 0) = 1
		})
		<-spawn(g, func(g *G) { _ = *R(g, &p.x, 0) })
	})
	// ... and with a write of y, anchored at x (an anchor before the end).
	expect(t, true, func(g *G) {
		p := new(s)
		<-spawn(g, func(g *G) {
			*WG(g, &p.x, unsafe.Offsetof(v.x), unsafe.Offsetof(v.x), unsafe.Offsetof(v.z)+unsafe.Sizeof(v.z), 0) = 1
		})
		<-spawn(g, func(g *G) { *W(g, &p.y, 0) = 2 })
	})
	// Fields outside the group do not conflict with it.
	expect(t, false, func(g *G) {
		p := new(s)
		<-spawn(g, func(g *G) {
			*WG(g, &p.z, unsafe.Offsetof(v.z), unsafe.Offsetof(v.x), unsafe.Offsetof(v.z)+unsafe.Sizeof(v.z), 0) = 1
		})
		<-spawn(g, func(g *G) { *W(g, &p.a, 0) = 1; *W(g, &p.w, 0) = 1 })
	})
	// Read groups: concurrent reads are fine, a write races.
	expect(t, false, func(g *G) {
		p := new(s)
		<-spawn(g, func(g *G) { _ = *RG(g, &p.y, unsafe.Offsetof(v.y), unsafe.Offsetof(v.a), unsafe.Offsetof(v.y)+4, 0) })
		<-spawn(g, func(g *G) { _ = *RG(g, &p.x, unsafe.Offsetof(v.x), unsafe.Offsetof(v.a), unsafe.Offsetof(v.y)+4, 0) })
	})
	expect(t, true, func(g *G) {
		p := new(s)
		<-spawn(g, func(g *G) { _ = *RG(g, &p.y, unsafe.Offsetof(v.y), unsafe.Offsetof(v.a), unsafe.Offsetof(v.y)+4, 0) })
		<-spawn(g, func(g *G) { *W(g, &p.a, 0) = 3 })
	})
	// The wrappers return the anchor's address.
	expect(t, false, func(g *G) {
		p := new(s)
		if q := WG(g, &p.w, unsafe.Offsetof(v.w), unsafe.Offsetof(v.z), unsafe.Offsetof(v.w)+8, 0); q != &p.w {
			t.Errorf("WG returned %p, want %p", q, &p.w)
		}
	})
}

func TestMaps(t *testing.T) {
	both(t, func(g *G, synced bool) {
		m := map[int]int{}
		mu := new(int)
		<-spawn(g, func(g *G) {
			MapWrite(g, m, 0)[1] = 1
			RaceRelease(unsafe.Pointer(mu))
		})
		<-spawn(g, func(g *G) {
			if synced {
				RaceAcquire(unsafe.Pointer(mu))
			}
			_ = len(MapRead(g, m, 0))
		})
	})
	// Concurrent reads do not race; a nil map is not checked.
	expect(t, false, func(g *G) {
		m := map[int]int{1: 1}
		var nilm map[int]int
		<-spawn(g, func(g *G) { _ = MapRead(g, m, 0)[1]; MapWrite(g, nilm, 0) })
		<-spawn(g, func(g *G) { _ = MapRead(g, m, 0)[1]; MapWrite(g, nilm, 0) })
	})
}

func TestGlobals(t *testing.T) {
	both(t, func(g *G, synced bool) {
		// Order after earlier runs of this test (go test -count).
		RaceAcquire(unsafe.Pointer(&globalSync))
		p := &globalVar[0]
		if !synced {
			p = &globalVar[1]
		}
		<-spawn(g, func(g *G) { *W(g, p, 0) = 1; RaceRelease(unsafe.Pointer(&globalSync)) })
		<-spawn(g, func(g *G) {
			if synced {
				RaceAcquire(unsafe.Pointer(&globalSync))
			}
			*W(g, p, 0) = 2
			RaceRelease(unsafe.Pointer(&globalSync))
		})
	})
}

var (
	globalVar  [2]int64
	globalSync int
)

// Stack memory is goroutine-local and reused: never recorded.
func TestStackNotRecorded(t *testing.T) {
	if !haveG {
		t.Skip("stack memory is recognized only with getg")
	}
	expect(t, false, func(g *G) {
		for range 3 {
			<-spawn(g, func(g *G) {
				var local [16]int64
				for i := range local {
					*W(g, &local[i], 0) = int64(i)
				}
				recurse(g, 20)
				// A field group and a short byte range on the stack:
				// each check path decides the stack before the shadow.
				var s struct{ a, b, c int32 }
				*WG(g, &s.b, unsafe.Offsetof(s.b), 0, unsafe.Sizeof(s), 0) = 1
				_ = *RG(g, &s.c, unsafe.Offsetof(s.c), 0, unsafe.Sizeof(s), 0)
				var buf [32]byte
				g.WriteRange(unsafe.Pointer(&buf[0]), 1, 0, len(buf), 1, 0)
				g.ReadRange(unsafe.Pointer(&buf[0]), 1, 3, 19, 1, 0)
			})
		}
	})
}

// BenchmarkCheckStack is the cost of a check of an address on the
// goroutine's own stack, which the shadow never records: the inline
// path's page miss and the stack's bounds, no page-table lookup.
func BenchmarkCheckStack(b *testing.B) {
	g := Cur()
	var v [4]int64
	for i := 0; b.Loop(); i++ {
		*W(g, &v[i&3], 0) = int64(i)
	}
}

//go:noinline
func recurse(g *G, n int) int {
	var v [4]int64
	*W(g, &v[n%4], 0) = int64(n)
	if n == 0 {
		return int(v[0])
	}
	return recurse(g, n-1) + int(*R(g, &v[n%4], 0))
}

func TestRaceAPI(t *testing.T) {
	both(t, func(g *G, synced bool) {
		x, s := new([16]byte), new(int)
		<-spawn(g, func(g *G) {
			RaceWriteRange(unsafe.Pointer(&x[0]), 16)
			RaceReleaseMerge(unsafe.Pointer(s))
		})
		<-spawn(g, func(g *G) {
			if synced {
				RaceAcquire(unsafe.Pointer(s))
			}
			RaceRead(unsafe.Pointer(&x[15]))
		})
	})
	expect(t, true, func(g *G) {
		x := new([16]byte)
		<-spawn(g, func(g *G) { RaceReadRange(unsafe.Pointer(&x[0]), 16) })
		<-spawn(g, func(g *G) { RaceWrite(unsafe.Pointer(&x[3])) })
	})
	// RaceDisable turns checks off, nesting.
	expect(t, false, func(g *G) {
		x := new(int)
		<-spawn(g, func(g *G) { *W(g, x, 0) = 1 })
		<-spawn(g, func(g *G) {
			RaceDisable()
			RaceDisable()
			RaceEnable()
			*W(g, x, 0) = 2
			RaceEnable()
		})
	})
}

func TestGoidCalibrated(t *testing.T) {
	if !haveG {
		t.Skip("no getg on this architecture")
	}
	g := Cur()
	if goidOff == 0 {
		t.Fatal("goid offset not found in runtime.g")
	}
	if got, want := g.goid, uint64(stackGoid()); got != want {
		t.Errorf("goid = %d, want %d", got, want)
	}
	// Cur is stable and distinct per goroutine.
	if Cur() != g {
		t.Error("Cur changed")
	}
	done := make(chan *G)
	go func() { done <- Cur() }()
	if o := <-done; o == g || o.tid == g.tid {
		t.Error("two goroutines share a state")
	}
}

func TestReportFormat(t *testing.T) {
	base := RegisterSites("example.com/m/p", "p/file.go", "10:3:F\n14:9:F.func1\n9:2:F\n")
	text := expect(t, true, func(g *G) {
		x := new(int)
		<-spawnAt(g, base+2, func(g *G) { _ = *R(g, x, base+1) })
		<-spawnAt(g, base+2, func(g *G) { *W(g, x, base+0) = 1 })
	})
	pat := `(?s)^==================
WARNING: DATA RACE
Write at 0x[0-9a-f]{12} by goroutine \d+:
  github.com/bigfoot-go/bigfoot/detector\.TestReportFormat\.func1\.2\(\)
      .*/detector/access_test.go:\d+ \+0x[0-9a-f]+
.*
Previous read at 0x[0-9a-f]{12} by goroutine \d+:
  example.com/m/p\.F\.func1\(\)
      p/file.go:14
  github.com/bigfoot-go/bigfoot/detector\.TestReportFormat\.func1\.1\(\)
      .*/detector/access_test.go:\d+ \+0x[0-9a-f]+
.*

Goroutine \d+ \(running\) created at:
  example.com/m/p\.F\(\)
      p/file.go:9
  github.com/bigfoot-go/bigfoot/detector\.spawnAt\(\)
      .*/detector/helpers_test.go:\d+ \+0x[0-9a-f]+
.*
Goroutine \d+ \(finished\) created at:
  example.com/m/p\.F\(\)
      p/file.go:9
  github.com/bigfoot-go/bigfoot/detector\.spawnAt\(\)
      .*/detector/helpers_test.go:\d+ \+0x[0-9a-f]+
.*
==================
$`
	if !regexp.MustCompile(pat).MatchString(text) {
		t.Errorf("report does not match the expected format:\n%s", text)
	}
	if strings.Contains(text, "detector/access.go") || strings.Contains(text, "detector.W[") {
		t.Errorf("report shows detector frames:\n%s", text)
	}
	// Dedup: the same pair of sites is reported once; dedup=0 reports all.
	n, _ := run(t, func(g *G) {
		for range 3 {
			x := new(int)
			<-spawn(g, func(g *G) { *W(g, x, base) = 1 })
			<-spawn(g, func(g *G) { *W(g, x, base+1) = 1 })
		}
	})
	if n != 1 {
		t.Errorf("dedup: %d reports, want 1", n)
	}
	opts.dedup = false
	n, _ = run(t, func(g *G) {
		for range 3 {
			x := new(int)
			<-spawn(g, func(g *G) { *W(g, x, base) = 1 })
			<-spawn(g, func(g *G) { *W(g, x, base+1) = 1 })
		}
	})
	opts.dedup = true
	if n != 3 {
		t.Errorf("dedup=0: %d reports, want 3", n)
	}
}

// TestRaceWiped: the accesses of a race found never conflict again, as
// Go's race runtime forgets them (wiped), whatever dedup says; an access
// made since, by either goroutine, does.
func TestRaceWiped(t *testing.T) {
	opts.dedup = false
	defer func() { opts.dedup = true }()
	n, text := run(t, func(g *G) {
		x := new(int)
		<-spawn(g, func(g *G) { *W(g, x, 0) = 1 })
		<-spawn(g, func(g *G) {
			_ = *R(g, x, 0) // races with the first write
			*W(g, x, 0) = 2 // against the same write: wiped
		})
	})
	if n != 1 {
		t.Errorf("a read and a write racing with one write: %d reports, want 1\n%s", n, text)
	}
	n, text = run(t, func(g *G) {
		x := new(int)
		<-spawn(g, func(g *G) { *W(g, x, 0) = 1 })
		<-spawn(g, func(g *G) {
			_ = *R(g, x, 0) // races with the first write
			*W(g, x, 0) = 2 // made after the race
		})
		<-spawn(g, func(g *G) { *W(g, x, 0) = 3 }) // races with the second write
	})
	if n != 2 {
		t.Errorf("a third goroutine's write racing with a write made after a race: %d reports, want 2\n%s", n, text)
	}
}

// TestRaceReadAfterRace: after a race in a granule, a race a read there
// finds is not reported, as Go's race runtime neither checks nor records
// reads of it any more; a race a write finds is, with dedup=0 too.
func TestRaceReadAfterRace(t *testing.T) {
	base := RegisterSites("example.com/m/ro", "ro/file.go", "10:3:F\n11:3:F\n12:3:F\n13:3:F\n14:3:F\n")
	body := func(g *G) {
		x := new(int)
		<-spawn(g, func(g *G) { *W(g, x, base) = 1 })
		<-spawn(g, func(g *G) {
			*W(g, x, base+1) = 2 // races with the first write: reported
			*W(g, x, base+2) = 3 // made after the race
		})
		<-spawn(g, func(g *G) { _ = *R(g, x, base+3) }) // races with it, a read: not reported
		<-spawn(g, func(g *G) { *W(g, x, base+4) = 4 }) // races with it, a write: reported
	}
	if n, text := run(t, body); n != 2 {
		t.Errorf("accesses after a race: %d reports, want 2\n%s", n, text)
	}
	opts.dedup = false
	defer func() { opts.dedup = true }()
	if n, text := run(t, body); n != 2 {
		t.Errorf("dedup=0, accesses after a race: %d reports, want 2\n%s", n, text)
	}
}

// racyBody races.
func racyBody() {
	g := Cur()
	x := new(int)
	<-spawn(g, func(g *G) { *W(g, x, 0) = 1 })
	<-spawn(g, func(g *G) { *W(g, x, 0) = 2 })
	fmt.Println("after race")
}

// racyProgram runs in a child process (see TestExit): a race, then Exit.
func racyProgram() {
	racyBody()
	Exit(0)
}

func TestExit(t *testing.T) {
	if os.Getenv("BIGFOOT_TEST_CHILD") == "racy" {
		racyProgram()
		return
	}
	switch os.Getenv("BIGFOOT_TEST_CHILD") {
	case "clean":
		Main(func() {})
		return
	case "testmain":
		goTestMain(&fakeM{code: 3})
		return
	case "testmain-user":
		goTestMain(&fakeM{})
		return
	case "testmain-racy":
		goTestMain(&fakeM{run: racyBody})
		return
	case "racy-stderr":
		// As pflag's tests do: os.Stderr is /dev/null from here on.
		devnull, err := os.Open(os.DevNull)
		if err != nil {
			panic(err)
		}
		os.Stderr = devnull
		Main(racyBody)
		return
	}
	child := func(kind, options string) (int, string, string) {
		cmd := exec.Command(os.Args[0], "-test.run=^TestExit$")
		cmd.Env = append(os.Environ(), "BIGFOOT_TEST_CHILD="+kind, "BIGFOOT_OPTIONS="+options)
		var stdout, stderr strings.Builder
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		return code, stdout.String(), stderr.String()
	}
	code, _, stderr := child("racy", "")
	if code != 66 {
		t.Errorf("exit status %d, want 66; stderr:\n%s", code, stderr)
	}
	contains(t, stderr, "WARNING: DATA RACE")
	// Reports go to the standard error the program started with, as go
	// -race's do, whatever it assigns to os.Stderr.
	code, _, stderr = child("racy-stderr", "stats=1")
	if code != 66 {
		t.Errorf("racy-stderr: exit status %d, want 66; stderr:\n%s", code, stderr)
	}
	contains(t, stderr, "WARNING: DATA RACE", "bigfoot stats: ")
	if code, _, _ := child("racy", "exitcode=3"); code != 3 {
		t.Errorf("exitcode=3: exit status %d", code)
	}
	if code, _, stderr := child("clean", "stats=1"); code != 0 || !regexp.MustCompile(
		`(?m)^bigfoot stats: .*shadow_ops=\d+ ranges=\d+ footprint_commits=\d+ footprints=\d+ syncs=\d+ goroutines=\d+ races=0`).MatchString(stderr) {
		t.Errorf("clean: exit status %d, stderr:\n%s", code, stderr)
	}
	if _, _, stderr := child("racy", "stats=1"); countAccesses != regexp.MustCompile(`(?m)^bigfoot stats: accesses=`).MatchString(stderr) {
		t.Errorf("stats with bigfoot_count=%v:\n%s", countAccesses, stderr)
	}
	code, stdout, stderr := child("racy", "halt_on_error=1 stats=1")
	if code != 66 || strings.Contains(stdout, "after race") {
		t.Errorf("halt_on_error: exit status %d, stdout %q", code, stdout)
	}
	contains(t, stderr, "races=1")
	dir := t.TempDir()
	code, _, stderr = child("racy", "log_path="+dir+"/log")
	if code != 66 || strings.Contains(stderr, "DATA RACE") {
		t.Errorf("log_path: exit status %d, stderr:\n%s", code, stderr)
	}
	for kind, want := range map[string]int{"testmain": 3, "testmain-user": 4, "testmain-racy": 66} {
		if code, _, stderr := child(kind, ""); code != want {
			t.Errorf("%s: exit status %d, want %d; stderr:\n%s", kind, code, want, stderr)
		}
	}
	matches, _ := filepath.Glob(dir + "/log.*")
	if len(matches) != 1 {
		t.Fatalf("log files: %v", matches)
	}
	b, _ := os.ReadFile(matches[0])
	contains(t, string(b), "WARNING: DATA RACE", "Previous write at")
	_ = runtime.GOOS
}

// goTestMain runs m as the go test driver runs a TestMain instrumented by
// bigfoot, and exits with the status m recorded.
func goTestMain(m *fakeM) {
	func() {
		g := Cur()
		TestMainStart(g)
		defer TestMainEnd(m)
		m.exitCode = MRunEnd(g, MRunStart(g, m).Run())
	}()
	os.Exit(m.exitCode)
}

// fakeM stands for *testing.M: Run returns code, and a user TestMain
// records its status in exitCode as the testing package does.
type fakeM struct {
	code     int
	exitCode int
	run      func()
}

func (m *fakeM) Run() int {
	if m.run != nil {
		m.run()
	}
	if m.code == 0 && m.run == nil {
		return 4
	}
	return m.code
}

type fakeTB struct {
	cleanups []func()
	errors   []string
}

func (f *fakeTB) Cleanup(c func()) { f.cleanups = append(f.cleanups, c) }
func (f *fakeTB) Errorf(format string, args ...any) {
	f.errors = append(f.errors, fmt.Sprintf(format, args...))
}

func TestTestStart(t *testing.T) {
	for _, racy := range []bool{false, true} {
		tb := new(fakeTB)
		run(t, func(g *G) {
			TestStart(g, tb)
			x := new(int)
			<-spawn(g, func(g *G) { *W(g, x, 0) = 1 })
			if racy {
				*W(g, x, 0) = 2
			}
			for _, c := range tb.cleanups {
				c()
			}
		})
		if got := len(tb.errors) > 0; got != racy {
			t.Errorf("racy=%v: errors %q", racy, tb.errors)
		}
		if racy && tb.errors[0] != "race detected during execution of test" {
			t.Errorf("message %q", tb.errors[0])
		}
	}
}

func TestRunSubtest(t *testing.T) {
	expect(t, false, func(g *G) {
		x := new(int)
		*W(g, x, 0) = 1
		Run(g, t.Run, "sub", func(t *testing.T) {
			*W(Cur(), x, 0) = 2 // ordered by the handoff clock
		})
		_ = *R(g, x, 0)
	})
}

func TestUserFuncName(t *testing.T) {
	for in, want := range map[string]string{
		"main.__bfMain":       "main.main",
		"main.__bfMain.func1": "main.main.func1",
		"example.com/p.F":     "example.com/p.F",
		// The instrumenter's specialized copies (cover.go, unpublished.go).
		"main.intersect__bfnc":                      "main.intersect",
		"main.(*splitmix).normal__bfup0":            "main.(*splitmix).normal",
		"example.com/p.(*csr).rowSum__bfup12.func2": "example.com/p.(*csr).rowSum.func2",
		"main.f__bfup0__bfnc":                       "main.f",
	} {
		if got := userFuncName(in); got != want {
			t.Errorf("userFuncName(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestReportFrames: reports name goroutine 1 "main goroutine" and leave
// out the frames Go's race detector leaves out, and the main function
// bigfoot wraps around the user's.
func TestReportFrames(t *testing.T) {
	if got := goroutineName("1"); got != "main goroutine" {
		t.Errorf("goroutineName(1) = %q", got)
	}
	if got := goroutineName("7"); got != "goroutine 7" {
		t.Errorf("goroutineName(7) = %q", got)
	}
	for _, c := range []struct {
		fn, callee string
		want       bool
	}{
		{"main.__bfMain", "", true},
		{"main.main", "main.__bfMain", false}, // the wrapper
		{"main.main", "", true},               // a main.main of the user's own (tests)
		{"main.f", "main.__bfMain", true},
		{"runtime.main", "main.main", false},
		{"runtime.goexit", "main.f", false},
	} {
		if got := showFrame(runtime.Frame{Function: c.fn}, c.callee); got != c.want {
			t.Errorf("showFrame(%s below %s) = %v, want %v", c.fn, c.callee, got, c.want)
		}
	}
}
