package driver

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/bigfoot-go/bigfoot/mode"
)

// These tests run the whole route (workspace, runtime module, overlay, the
// go command) with a fake runtime and a fake instrumenter, so they depend
// on neither detector/ nor instrument/.

// fakeRuntime stands for the embedded runtime sources.
var fakeRuntime = fstest.MapFS{
	"detector/detector.go":      {Data: []byte("package detector\n\nfunc Hello() string { return \"instrumented\" }\n")},
	"detector/sync.go":          {Data: []byte(fakeSyncHooks)},
	"detector/detector_test.go": {Data: []byte("package detector\n\nthis does not compile\n")},
	"detector/testdata/x.go":    {Data: []byte("this does not compile\n")},
	"detector/README.md":        {Data: []byte("not copied\n")},
	"shadow/shadow.go":          {Data: []byte("package shadow\n")},
}

// fakeSyncHooks are the runtime's side of the hooks every build adds to
// package sync (spliceSync), and a build that instruments the standard
// library to package syscall (spliceSyscall).
const fakeSyncHooks = `package detector

import (
	"sync"
	"unsafe"
)

//go:linkname stdSyncAcquire
func stdSyncAcquire(p any, off uintptr) {}

//go:linkname stdSyncRelease
func stdSyncRelease(p any, off uintptr) {}

//go:linkname stdPoolPut
func stdPoolPut(x any) bool { return false }

//go:linkname stdPoolGet
func stdPoolGet(x any) {}

//go:linkname stdSyncMapEnter
func stdSyncMapEnter(m *sync.Map) {}

//go:linkname stdSyncMapRead
func stdSyncMapRead(m *sync.Map, key any) {}

//go:linkname stdSyncMapWrite
func stdSyncMapWrite(m *sync.Map, key any) {}

//go:linkname stdSyncMapClear
func stdSyncMapClear(m *sync.Map) {}

//go:linkname stdSyncMapRangeEnd
func stdSyncMapRangeEnd(m *sync.Map) {}

//go:linkname stdIORead
func stdIORead() {}

//go:linkname stdIOWrite
func stdIOWrite() {}

//go:linkname stdIOReadBytes
func stdIOReadBytes(p unsafe.Pointer, n int) {}

//go:linkname stdIOWriteBytes
func stdIOWriteBytes(p unsafe.Pointer, n int) {}
`

// writeTree writes files (slash paths relative to dir) into dir.
func writeTree(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, data := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o777); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o666); err != nil {
			t.Fatal(err)
		}
	}
}

// snapshot returns the contents of every file under dir.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	files := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		files[p] = string(data)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

const userMain = `package main

import (
	"fmt"
	"os"
)

func main() {
	fmt.Println("plain", os.Args[1:])
	os.Exit(3)
}
`

// rewrite is a fake instrumenter that makes main.go print the runtime's
// greeting and adds a file to the package.
func rewrite(t *testing.T, dir string, got *Request) Instrumenter {
	return func(ctx context.Context, req Request) (*Files, error) {
		*got = req
		return &Files{
			Replace: map[string][]byte{filepath.Join(dir, "main.go"): []byte(`package main

import (
	"fmt"
	"os"

	"github.com/bigfoot-go/bigfoot/detector"
)

func main() {
	fmt.Println(detector.Hello(), extra, os.Args[1:])
	os.Exit(66)
}
`)},
			Add:   map[string][]byte{filepath.Join(dir, "zz_bigfoot.go"): []byte("package main\n\nconst extra = \"added\"\n")},
			Notes: []string{"note one", "note one", "note two"},
		}, nil
	}
}

func newConfig(t *testing.T, instr Instrumenter) (*Config, *bytes.Buffer, *bytes.Buffer) {
	var stdout, stderr bytes.Buffer
	env := append(os.Environ(), "GOWORK=", "GOFLAGS=-mod=mod")
	return &Config{Runtime: fakeRuntime, Instrument: instr, Env: env, CacheDir: cacheDir(t),
		Stdout: &stdout, Stderr: &stderr}, &stdout, &stderr
}

// cacheDir is the runtime cache shared by the tests of this package.
func cacheDir(t *testing.T) string {
	dir := filepath.Join(os.TempDir(), "bigfoot-driver-test-cache")
	if err := os.MkdirAll(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	return dir
}

func requireGo(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command")
	}
}

func TestRunRoute(t *testing.T) {
	requireGo(t)
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"go.mod": "module example.com/u\n\ngo 1.22\n", "main.go": userMain})
	before := snapshot(t, dir)

	var req Request
	cfg, stdout, stderr := newConfig(t, rewrite(t, dir, &req))
	inv, err := ParseArgs("run", []string{"-C", dir, "-mode", "fasttrack", "-deps=main", "-work", "-bfv", ".", "a", "-b"})
	if err != nil {
		t.Fatal(err)
	}
	code, err := Run(context.Background(), cfg, inv)
	if err != nil || code != 66 {
		t.Fatalf("Run = %d, %v; want 66\nstderr:\n%s", code, err, stderr)
	}
	if got, want := stdout.String(), "instrumented added [a -b]\n"; got != want {
		t.Errorf("stdout = %q, want %q", got, want)
	}
	if strings.Count(stderr.String(), "bigfoot: note one\n") != 1 || !strings.Contains(stderr.String(), "bigfoot: note two\n") {
		t.Errorf("notes not printed once each:\n%s", stderr)
	}
	if req.Dir != dir || req.Tests || req.Mode != mode.FastTrack || strings.Join(req.Patterns, " ") != "." {
		t.Errorf("request = %+v", req)
	}
	if lookupEnv(req.Env, "GOWORK") == "" || lookupEnv(req.Env, "GOFLAGS") != "" {
		t.Errorf("request env: GOWORK=%q GOFLAGS=%q", lookupEnv(req.Env, "GOWORK"), lookupEnv(req.Env, "GOFLAGS"))
	}

	// -work kept the temporary directory: check what the driver wrote.
	var work string
	for _, line := range strings.Split(stderr.String(), "\n") {
		if w, ok := strings.CutPrefix(line, "BIGFOOT_WORK="); ok {
			work = w
		}
	}
	if work == "" {
		t.Fatalf("no BIGFOOT_WORK line:\n%s", stderr)
	}
	defer os.RemoveAll(work)
	for _, name := range []string{"go.work", "overlay.json", filepath.Join("files", dir, "main.go"), filepath.Join("files", dir, "zz_bigfoot.go")} {
		if _, err := os.Stat(filepath.Join(work, name)); err != nil {
			t.Errorf("work dir: %v", err)
		}
	}
	rt := ""
	gowork, _ := os.ReadFile(filepath.Join(work, "go.work"))
	for _, line := range strings.Split(string(gowork), "\n") {
		if strings.Contains(line, "rt-") {
			rt = strings.TrimSpace(line)
		}
	}
	if !strings.HasPrefix(rt, cacheDir(t)) {
		t.Fatalf("go.work does not use a runtime in the cache:\n%s", gowork)
	}
	for _, name := range []string{"go.mod", "detector/detector.go", "shadow/shadow.go"} {
		if _, err := os.Stat(filepath.Join(rt, name)); err != nil {
			t.Errorf("runtime dir: %v", err)
		}
	}
	for _, name := range []string{"detector/detector_test.go", "detector/testdata", "detector/README.md"} {
		if _, err := os.Stat(filepath.Join(rt, name)); err == nil {
			t.Errorf("runtime dir has %s", name)
		}
	}
	gomod, _ := os.ReadFile(filepath.Join(rt, "go.mod"))
	if string(gomod) != "module github.com/bigfoot-go/bigfoot\n\ngo 1.24\n" {
		t.Errorf("runtime go.mod:\n%s", gomod)
	}

	// The user's tree is untouched.
	if after := snapshot(t, dir); len(after) != len(before) || after[filepath.Join(dir, "go.mod")] != before[filepath.Join(dir, "go.mod")] {
		t.Errorf("user tree changed: %d files before, %d after", len(before), len(after))
	}
}

func TestBuildAndTestVerbs(t *testing.T) {
	requireGo(t)
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{
		"go.mod":       "module example.com/u\n\ngo 1.22\n",
		"main.go":      userMain,
		"main_test.go": "package main\n\nimport \"testing\"\n\nfunc TestExtra(t *testing.T) { t.Log(extra) }\n",
	})
	var req Request
	out := filepath.Join(t.TempDir(), "prog")

	cfg, _, stderr := newConfig(t, rewrite(t, dir, &req))
	inv, err := ParseArgs("build", []string{"-C", dir, "-o", out, "."})
	if err != nil {
		t.Fatal(err)
	}
	if code, err := Run(context.Background(), cfg, inv); code != 0 || err != nil {
		t.Fatalf("build = %d, %v\n%s", code, err, stderr)
	}
	if req.Mode != mode.BigFoot || strings.Contains(stderr.String(), "not implemented") {
		t.Errorf("default mode: instrumented in mode %v (want bigfoot)\n%s", req.Mode, stderr)
	}
	if strings.Contains(stderr.String(), "note") {
		t.Errorf("notes printed without -bfv:\n%s", stderr)
	}
	got, _ := exec.Command(out, "x").Output()
	if string(got) != "instrumented added [x]\n" {
		t.Errorf("built program printed %q", got)
	}

	cfg, stdout, stderr := newConfig(t, rewrite(t, dir, &req))
	inv, err = ParseArgs("test", []string{"-C", dir, "-mode=fasttrack", "-count=1", "-v", "-run", "Extra", "."})
	if err != nil {
		t.Fatal(err)
	}
	if code, err := Run(context.Background(), cfg, inv); code != 0 || err != nil {
		t.Fatalf("test = %d, %v\n%s%s", code, err, stdout, stderr)
	}
	if !req.Tests || !strings.Contains(stdout.String(), "added") || !strings.Contains(stdout.String(), "--- PASS: TestExtra") {
		t.Errorf("tests = %v, stdout:\n%s", req.Tests, stdout)
	}
}

func TestLoadError(t *testing.T) {
	requireGo(t)
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{
		"go.mod":  "module example.com/u\n\ngo 1.22\n",
		"main.go": "package main\n\nfunc main() { undefinedThing() }\n",
	})
	fail := func(ctx context.Context, req Request) (*Files, error) {
		return nil, &LoadError{Errors: []string{"main.go:3:15: undefined: undefinedThing"}}
	}
	for _, verb := range []string{"build", "test", "run"} {
		cfg, _, stderr := newConfig(t, fail)
		inv, err := ParseArgs(verb, []string{"-C", dir, "-mode=fasttrack", "."})
		if err != nil {
			t.Fatal(err)
		}
		code, err := Run(context.Background(), cfg, inv)
		if code != 1 || err != nil || !strings.Contains(stderr.String(), "undefined: undefinedThing") {
			t.Errorf("%s: Run = %d, %v; want 1 and the compiler's error\n%s", verb, code, err, stderr)
		}
	}

	// Packages that build although the instrumenter failed: exit 2.
	writeTree(t, dir, map[string]string{"main.go": "package main\n\nfunc main() {}\n"})
	cfg, _, stderr := newConfig(t, fail)
	inv, _ := ParseArgs("build", []string{"-C", dir, "-mode=fasttrack", "."})
	code, err := Run(context.Background(), cfg, inv)
	if code != 2 || err == nil || !strings.Contains(stderr.String(), "undefined: undefinedThing") {
		t.Errorf("Run = %d, %v; want 2 and the load errors\n%s", code, err, stderr)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 2 {
		t.Errorf("user tree has %d entries, want 2", len(entries))
	}
}

func TestNoModule(t *testing.T) {
	requireGo(t)
	dir := t.TempDir()
	cfg, _, _ := newConfig(t, nil)
	inv, _ := ParseArgs("build", []string{"-C", dir, "."})
	_, err := Run(context.Background(), cfg, inv)
	if err == nil || !strings.Contains(err.Error(), "bigfoot works on modules; run it inside a module") {
		t.Errorf("Run outside a module: %v", err)
	}
}

func TestUserWorkspace(t *testing.T) {
	requireGo(t)
	root := t.TempDir()
	writeTree(t, root, map[string]string{
		"go.work":  "go 1.22\n\nuse (\n\t./a\n\t./b\n)\n",
		"a/go.mod": "module example.com/a\n\ngo 1.22\n\nrequire example.com/b v0.0.0\n",
		"a/main.go": `package main

import "example.com/b"

func main() { println(b.B) }
`,
		"b/go.mod": "module example.com/b\n\ngo 1.22\n",
		"b/b.go":   "package b\n\nconst B = 1\n",
	})
	var req Request
	cfg, _, stderr := newConfig(t, func(ctx context.Context, r Request) (*Files, error) { req = r; return &Files{}, nil })
	cfg.Env = append(os.Environ(), "GOFLAGS=")
	a := filepath.Join(root, "a")
	inv, _ := ParseArgs("build", []string{"-C", a, "-mode=fasttrack", "-o", os.DevNull, "."})
	if code, err := Run(context.Background(), cfg, inv); code != 0 || err != nil {
		t.Fatalf("Run = %d, %v\n%s", code, err, stderr)
	}
	work, err := os.ReadFile(lookupEnv(req.Env, "GOWORK"))
	if err == nil || !os.IsNotExist(err) {
		// The temporary directory is gone after Run; its go.work with it.
		t.Errorf("temporary go.work still exists (err %v):\n%s", err, work)
	}
}

func TestWriteWorkspace(t *testing.T) {
	dir := t.TempDir()
	ws := &workspace{
		GoVersion: "1.26.8",
		Use:       []string{"/u/m", "/u/with space"},
		Replace:   []replace{{Old: modVersion{Path: "example.com/x"}, New: modVersion{Path: "/u/x"}}},
	}
	file := filepath.Join(dir, "go.work")
	if err := writeWorkspace(file, ws, "/tmp/rt", "", nil); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(file)
	want := "go 1.26.8\n\nuse (\n\t/u/m\n\t`/u/with space`\n\t/tmp/rt\n)\n\nreplace example.com/x => /u/x\n"
	if string(got) != want {
		t.Errorf("go.work =\n%s\nwant\n%s", got, want)
	}
}
