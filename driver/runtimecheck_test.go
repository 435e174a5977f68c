package driver

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// checkRun returns a run with its own cache and temporary directories,
// the go env of this toolchain, and the buffer its stderr goes to.
func checkRun(t *testing.T) (*run, *goEnv, *bytes.Buffer) {
	t.Helper()
	if testing.Short() {
		t.Skip("compiles package runtime")
	}
	ge, err := readGoEnv(context.Background(), "go", t.TempDir(), os.Environ())
	if err != nil {
		t.Fatal(err)
	}
	stderr := new(bytes.Buffer)
	d := &run{cfg: &Config{CacheDir: t.TempDir(), Env: os.Environ(), Stderr: stderr}, inv: &Invocation{}, tmp: t.TempDir()}
	return d, ge, stderr
}

// The installed toolchain is one the allocation versions were tested on,
// and its runtime compiles with every patch: the build gets them, and
// says nothing.
func TestRuntimePatchPlanTested(t *testing.T) {
	d, ge, stderr := checkRun(t)
	if err := allocVersionTested(ge.GOVERSION); err != nil {
		t.Fatalf("%v: check the patch on it (docs/build.md, \"A new Go release\") and list it in allocVersionGoVersions", err)
	}
	dir, versions := d.runtimePatchPlan(context.Background(), ge)
	if dir == "" || !versions {
		t.Fatalf("runtimePatchPlan = %q, %v; want the runtime's directory, with the allocation versions", dir, versions)
	}
	if stderr.Len() > 0 {
		t.Errorf("stderr: %q, want nothing", stderr)
	}
}

// A Go version not in the list gets the other patches (its runtime
// compiles with them) but not the allocation versions, and the first
// build says so in one line on stderr; the next one, which finds the
// outcome in the cache, says nothing, unless -bfv asks.
func TestRuntimePatchPlanUntested(t *testing.T) {
	d, ge, stderr := checkRun(t)
	ge.GOVERSION = "go1.99.0"
	for i, want := range []int{1, 0} {
		stderr.Reset()
		dir, versions := d.runtimePatchPlan(context.Background(), ge)
		if dir == "" || versions {
			t.Fatalf("build %d: runtimePatchPlan = %q, %v; want the runtime's directory, without the allocation versions", i, dir, versions)
		}
		lines := strings.Count(stderr.String(), "\n")
		if lines != want {
			t.Fatalf("build %d: stderr %q: %d lines, want %d", i, stderr, lines, want)
		}
		if want == 1 && !strings.Contains(stderr.String(), "go1.99.0 is not among the Go versions they were tested on") {
			t.Errorf("build %d: stderr %q does not say why", i, stderr)
		}
	}
	stderr.Reset()
	d.inv.Verbose = true
	d.runtimePatchPlan(context.Background(), ge)
	if !strings.Contains(stderr.String(), "allocation versions off") {
		t.Errorf("with -bfv: stderr %q does not say the versions are off", stderr)
	}
}

// A patch whose anchor matches but whose code does not compile leaves the
// allocation versions out, on a tested toolchain too, and the build keeps
// the patches that compile.
func TestRuntimePatchPlanDoesNotCompile(t *testing.T) {
	d, ge, stderr := checkRun(t)
	saved := allocVersionPatches
	defer func() { allocVersionPatches = saved }()
	allocVersionPatches = append(append([]allocVersionPatch{}, saved...), allocVersionPatch{
		file:   "mgcsweep.go",
		anchor: saved[1].anchor,
		text:   "\tbigfootNoSuchFunction(s)\n",
	})
	allocVersionGoVersions = append(allocVersionGoVersions, ge.GOVERSION)
	defer func() { allocVersionGoVersions = allocVersionGoVersions[:len(allocVersionGoVersions)-1] }()
	dir, versions := d.runtimePatchPlan(context.Background(), ge)
	if dir == "" || versions {
		t.Fatalf("runtimePatchPlan = %q, %v; want the runtime's directory, without the allocation versions", dir, versions)
	}
	if !strings.Contains(stderr.String(), "does not take them") || strings.Count(stderr.String(), "\n") != 1 {
		t.Errorf("stderr %q: want one line that says the runtime does not take the versions", stderr)
	}
	entries, err := os.ReadDir(filepath.Join(d.cfg.CacheDir, "runtime-check"))
	if err != nil || len(entries) != 2 {
		t.Errorf("cache: %d entries (%v), want the two checks' outcomes", len(entries), err)
	}
}

// The cache key changes with the toolchain and with any patched file.
func TestRuntimeCheckKey(t *testing.T) {
	ge := &goEnv{GOVERSION: "go1.26.8", GOROOT: "/go", GOOS: "linux", GOARCH: "amd64"}
	files := map[string][]byte{"/go/src/runtime/a.go": []byte("a")}
	base := runtimeCheckKey(ge, "", files, nil)
	other := *ge
	other.GOVERSION = "go1.26.9"
	for name, key := range map[string]string{
		"version":      runtimeCheckKey(&other, "", files, nil),
		"goexperiment": runtimeCheckKey(ge, "arenas", files, nil),
		"file":         runtimeCheckKey(ge, "", map[string][]byte{"/go/src/runtime/a.go": []byte("b")}, nil),
		"no files":     runtimeCheckKey(ge, "", nil, os.ErrNotExist),
	} {
		if key == base {
			t.Errorf("%s: same key", name)
		}
	}
	if runtimeCheckKey(ge, "", files, nil) != base {
		t.Error("the key is not a function of its inputs")
	}
}

// A whole build with a go command that reports a Go version not in the
// list (a wrapper of the real one that says go1.26.0, an earlier release,
// which the temporary go.work's go line then accepts): the program builds
// and runs, package
// runtime gets the other files but not the allocation versions, and the
// first build says so in one line on stderr, the second in none.
func TestRunUntestedGoVersion(t *testing.T) {
	requireGo(t)
	if testing.Short() || runtime.GOOS == "windows" {
		t.Skip("compiles package runtime; the wrapper is a shell script")
	}
	real, err := exec.LookPath("go")
	if err != nil {
		t.Fatal(err)
	}
	gocmd := filepath.Join(t.TempDir(), "go")
	script := "#!/bin/sh\nif [ \"$1\" = env ]; then\n\tout=$(\"" + real + "\" \"$@\") || exit $?\n" +
		"\tprintf '%s\\n' \"$out\" | sed 's/\"GOVERSION\": \"[^\"]*\"/\"GOVERSION\": \"go1.26.0\"/'\n\texit 0\nfi\nexec \"" + real + "\" \"$@\"\n"
	if err := os.WriteFile(gocmd, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"go.mod": "module example.com/u\n\ngo 1.22\n", "main.go": userMain})
	cache := t.TempDir()
	for i, wantLines := range []int{1, 0} {
		var req Request
		cfg, _, stderr := newConfig(t, rewrite(t, dir, &req))
		cfg.GoCmd, cfg.CacheDir = gocmd, cache
		inv, err := ParseArgs("run", []string{"-C", dir, "-mode", "fasttrack", "-deps=main", "-work", "."})
		if err != nil {
			t.Fatal(err)
		}
		code, err := Run(context.Background(), cfg, inv)
		if err != nil || code != 66 {
			t.Fatalf("build %d: Run = %d, %v; want 66\nstderr:\n%s", i, code, err, stderr)
		}
		notice := 0
		var work string
		for _, line := range strings.Split(stderr.String(), "\n") {
			if strings.HasPrefix(line, "bigfoot: allocation versions off") {
				notice++
				if !strings.Contains(line, "go1.26.0 is not among the Go versions they were tested on") {
					t.Errorf("build %d: %q does not say why", i, line)
				}
			}
			if w, ok := strings.CutPrefix(line, "BIGFOOT_WORK="); ok {
				work = w
			}
		}
		if notice != wantLines {
			t.Errorf("build %d: %d lines about the allocation versions, want %d:\n%s", i, notice, wantLines, stderr)
		}
		overlay, err := os.ReadFile(filepath.Join(work, "overlay.json"))
		os.RemoveAll(work)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Contains(overlay, []byte(gcCountFile)) || bytes.Contains(overlay, []byte(allocVersionFile)) {
			t.Errorf("build %d: the overlay has the GC count's file %v, the versions' %v; want the first only",
				i, bytes.Contains(overlay, []byte(gcCountFile)), bytes.Contains(overlay, []byte(allocVersionFile)))
		}
	}
}
