package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAtomicOrdersAsGoRace: testdata/edges/atomicorder's three races (a
// load releases nothing, a store acquires nothing, a failed
// CompareAndSwap releases nothing), and none on the atomic variable that
// goroutines nothing orders load, store and swap (atomics never race with
// each other). When every atomic operation acquired and released, bigfoot
// reported one of the three.
func TestAtomicOrdersAsGoRace(t *testing.T) {
	sameRacesAsGoRace(t, "atomicorder", 3)
}

// TestCondSignalAsGoRace: testdata/edges/condsignal's race, a write made
// without the lock before a Cond's Signal and the woken waiter's read
// (Signal orders nothing). When Signal released into the Cond's clock
// and Wait acquired it, bigfoot missed it whenever the waiter waited.
func TestCondSignalAsGoRace(t *testing.T) {
	sameRacesAsGoRace(t, "condsignal", 1)
}

// TestSyncMapKeysAsGoRace: testdata/edges/syncmapkeys's race, a write
// before a sync.Map's Store of one key and a read after a Load of
// another, which go -race's map (a hash trie of atomic slots) does not
// order; and none across two Stores of different keys, which the trie's
// node mutex orders. When a map was one clock that Stores released and
// Loads acquired, bigfoot missed the race and reported the other.
func TestSyncMapKeysAsGoRace(t *testing.T) {
	sameRacesAsGoRace(t, "syncmapkeys", 1)
}

// TestFileOpsAsGoRace: testdata/edges/fileops's race, across a file's
// creation, close and stat, which order nothing under go -race (only a
// read that sees a write does, a pipe's in the program's race-free
// part). When the call sites of os.Create, Close and os.Stat announced
// I/O, bigfoot ordered them and missed it (lumberjack.v2's tests).
func TestFileOpsAsGoRace(t *testing.T) {
	sameRacesAsGoRace(t, "fileops", 1)
}

// TestVendoredStdAsGoRace: testdata/edges/vendoredstd's race, a write
// of a certificate's DER bytes against x509.ParseCertificate's read of
// them in the standard library's vendored cryptobyte. When the
// vendor/golang.org/x packages were left uninstrumented, bigfoot missed
// it in every mode.
func TestVendoredStdAsGoRace(t *testing.T) {
	sameRacesAsGoRace(t, "vendoredstd", 1)
}

// TestReadIntoAsGoRace: testdata/edges/readinto's race, a file's read
// into a buffer another goroutine read, and none between readers into
// one buffer that the reader orders (math/rand's source, an io.Pipe, an
// *os.File, a reader whose Read locks, called through an interface), in
// every -deps scope. When calls of a Read method outside the main module
// checked the buffer after the call returned, past the method's unlock,
// bigfoot reported those in every scope (then, with the standard library
// instrumented, no call site checked them), and with -deps=main and
// -deps=modules still those of the pipe, the file and the locked reader.
func TestReadIntoAsGoRace(t *testing.T) {
	sameRacesAsGoRace(t, "readinto", 1, "main", "modules", "all")
}

// TestWriteFromAsGoRace: testdata/edges/writefrom's race, a goroutine's
// write of a buffer main then writes to a file, which syscall.Write reads
// under go -race. When package syscall's Write only released, bigfoot
// missed it in every mode.
func TestWriteFromAsGoRace(t *testing.T) {
	sameRacesAsGoRace(t, "writefrom", 1)
}

// sameRacesAsGoRace builds testdata/edges/<prog> by go build -race and by
// bigfoot in each mode of modes (in each -deps scope of deps, if any; else
// the default) and runs each once: every one must report exactly n races,
// exit with status 66, and name each line of main.go marked "// WRITE" or
// "// READ" (with or without a name after it).
func sameRacesAsGoRace(t *testing.T, prog string, n int, deps ...string) {
	t.Helper()
	if bigfootBin == "" {
		t.Skip("end-to-end test; skipped with -short")
	}
	root, _ := filepath.Abs("../../testdata/edges")
	src, err := os.ReadFile(filepath.Join(root, prog, "main.go"))
	if err != nil {
		t.Fatal(err)
	}
	lines := map[string]int{}
	for i, l := range strings.Split(string(src), "\n") {
		if _, mark, ok := strings.Cut(l, "// "); ok && (strings.HasPrefix(mark, "WRITE") || strings.HasPrefix(mark, "READ")) {
			lines[mark] = i + 1
		}
	}
	if len(lines) == 0 {
		t.Fatalf("%s: no line marked WRITE or READ", prog)
	}
	builds := [][]string{{"go", "build", "-race"}}
	for _, mode := range modes {
		if len(deps) == 0 {
			builds = append(builds, []string{bigfootBin, "build", "-mode=" + mode})
		}
		for _, d := range deps {
			builds = append(builds, []string{bigfootBin, "build", "-mode=" + mode, "-deps=" + d})
		}
	}
	for _, build := range builds {
		bin := filepath.Join(t.TempDir(), prog)
		if r := run(t, root, nil, build[0], append(build[1:], "-o", bin, "./"+prog)...); r.code != 0 {
			t.Fatalf("%s: %v", strings.Join(build, " "), r)
		}
		r := run(t, root, nil, bin)
		if want := fmt.Sprintf("Found %d data race(s)", n); r.code != 66 || !strings.Contains(r.stderr, want) {
			t.Errorf("%s: want %d races and exit status 66; got %v", strings.Join(build, " "), n, r)
			continue
		}
		for mark, line := range lines {
			if at := fmt.Sprintf("%s/main.go:%d", prog, line); !strings.Contains(r.stderr, at) {
				t.Errorf("%s: no report names %s (%s):\n%s", strings.Join(build, " "), at, mark, r.stderr)
			}
		}
	}
}
