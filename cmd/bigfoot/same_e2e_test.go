package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// The end-to-end tests that run one program under both tools and compare
// what it prints share these helpers: the builds, and the function the
// programs use to print their own frames.

// buildBoth builds the main package pkg of the module in dir with go build
// -race and with bigfoot build, and returns the two binaries.
func buildBoth(t *testing.T, dir, pkg string) (goBin, bfBin string) {
	t.Helper()
	name := filepath.Base(dir)
	goBin, bfBin = filepath.Join(t.TempDir(), name), filepath.Join(t.TempDir(), name)
	if r := run(t, dir, nil, "go", "build", "-race", "-o", goBin, pkg); r.code != 0 {
		t.Fatalf("go build -race: %v", r)
	}
	if r := run(t, dir, nil, bigfootBin, "build", "-o", bfBin, pkg); r.code != 0 {
		t.Fatalf("bigfoot build: %v", r)
	}
	return goBin, bfBin
}

// testBoth runs go test -race and bigfoot test with args in dir: want is
// go test -race's result, got bigfoot's.
func testBoth(t *testing.T, dir string, args ...string) (want, got result) {
	t.Helper()
	want = run(t, dir, nil, "go", append([]string{"test", "-race"}, args...)...)
	got = run(t, dir, nil, bigfootBin, append([]string{"test"}, args...)...)
	return want, got
}

// framesFunc is the source of a function a test program declares to print
// the calling goroutine's stack, tagged: the functions runtime.Callers
// gives, then the functions of runtime.Stack's trace (which a panic's
// trace and debug.Stack print the same way), without arguments, files
// or offsets. It needs the imports fmt, runtime and strings.
const framesFunc = `
// frames prints the functions of the calling goroutine's stack as
// runtime.Callers and runtime.Stack give them.
func frames(tag string) {
	pc := make([]uintptr, 64)
	fs := runtime.CallersFrames(pc[:runtime.Callers(1, pc)])
	var names []string
	for {
		f, more := fs.Next()
		names = append(names, f.Function)
		if !more {
			break
		}
	}
	buf := make([]byte, 16384)
	var lines []string
	for _, l := range strings.Split(string(buf[:runtime.Stack(buf, false)]), "\n") {
		if l == "" || strings.HasPrefix(l, "\t") || strings.HasPrefix(l, "goroutine ") {
			continue
		}
		if i := strings.Index(l, " in goroutine"); i >= 0 {
			l = l[:i]
		} else if i := strings.LastIndex(l, "("); i >= 0 {
			l = l[:i]
		}
		lines = append(lines, l)
	}
	fmt.Printf("%s: %s | %s\n", tag, strings.Join(names, " "), strings.Join(lines, " | "))
}
`

// framesLines returns the lines frames printed (a benchmark's timings
// and go test's summary differ between the tools).
func framesLines(out string) string {
	var keep []string
	for _, l := range strings.Split(out, "\n") {
		if tag, _, ok := strings.Cut(l, ": "); ok && !strings.ContainsAny(tag, " \t") {
			keep = append(keep, l)
		}
	}
	return strings.Join(keep, "\n")
}
