package driver

import (
	"go/ast"
	"go/build"
	"go/parser"
	"go/token"
	"go/types"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeMstats writes a fake GOROOT whose runtime/mstats.go is src.
func writeMstats(t *testing.T, src string) string {
	t.Helper()
	root := t.TempDir()
	dir := filepath.Join(root, "src", "runtime")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "mstats.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return root
}

// The file is added only to a runtime that declares numgc as a uint32.
func TestGCCountDir(t *testing.T) {
	root := writeMstats(t, "package runtime\n\ntype mstats struct {\n\tnumgc        uint32\n\tnumforcedgc  uint32\n}\n")
	if dir, err := gcCountDir(root); err != nil || dir != filepath.Join(root, "src", "runtime") {
		t.Errorf("runtime with numgc uint32: %q, %v", dir, err)
	}
	for _, src := range []string{
		"package runtime\n\ntype mstats struct {\n\tnumgc uint64\n}\n",
		"package runtime\n\ntype mstats struct {\n\tcycles uint32\n}\n",
	} {
		if dir, err := gcCountDir(writeMstats(t, src)); err == nil {
			t.Errorf("runtime without numgc uint32 (%q): got %q", src, dir)
		}
	}
	if _, err := gcCountDir(t.TempDir()); err == nil {
		t.Error("a GOROOT without the runtime's sources: no error")
	}
	if _, err := gcCountDir(build.Default.GOROOT); err != nil {
		t.Errorf("this toolchain's runtime: %v", err)
	}
}

// The variable the file sets exists in the shadow, with the type the file
// gives it (as cmd/compile's builtin table test checks the compiler's
// runtime calls): a renamed variable would leave the file setting a
// variable of its own, and the shadow reading runtime/metrics unnoticed.
func TestGCCountTarget(t *testing.T) {
	checkRuntimeTarget(t, gcCountTarget, gcCountSource, "bigfootNumGC", "*uint32")
}

// TestGoHookTargets checks the variables the goroutine hooks' file sets in
// the shadow (system goroutines) and in internal/spin (wake channels that
// belong to no synctest bubble).
func TestGoHookTargets(t *testing.T) {
	checkRuntimeTarget(t, ModulePath+"/shadow.runtimeGo", goHookSource, "bigfootSystemGo", "func(f func())")
	checkRuntimeTarget(t, ModulePath+"/internal/spin.runtimeMakeWake", goHookSource, "bigfootMakeWake", "func() chan struct{}")
}

// checkRuntimeTarget checks that target, a variable of the race-detection
// runtime that a file the driver adds to package runtime sets through a
// linkname (src, where the variable is named local), is declared in its
// package with type typ, and in the file with the same type.
func checkRuntimeTarget(t *testing.T, target, src, local, typ string) {
	t.Helper()
	i := strings.LastIndex(target, ".")
	pkg, name := target[:max(i, 0)], target[i+1:]
	rel, ok := strings.CutPrefix(pkg, ModulePath+"/")
	if !ok {
		t.Fatalf("target %q is not a variable of %s", target, ModulePath)
	}
	files, _ := filepath.Glob(filepath.Join("..", filepath.FromSlash(rel), "*.go"))
	fset := token.NewFileSet()
	found := ""
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		file, err := parser.ParseFile(fset, f, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(file, func(n ast.Node) bool {
			if vs, ok := n.(*ast.ValueSpec); ok && vs.Type != nil {
				for _, id := range vs.Names {
					if id.Name == name {
						found = types.ExprString(vs.Type)
					}
				}
			}
			return true
		})
	}
	if found != typ {
		t.Errorf("%s: type %q, want %s (the file's)", target, found, typ)
	}
	if decl := "var " + local + " " + typ; !strings.Contains(src, decl) {
		t.Errorf("the file does not declare %q", decl)
	}
	if !strings.Contains(src, "//go:linkname "+local+" "+target+"\n") {
		t.Errorf("the file does not linkname %s to %s", local, target)
	}
}

// RuntimeFiles gives what a build's overlay gives package runtime: the GC
// count's file, the versions' file and their patches (on a tested Go
// version), the file that restores the user's environment, the exit
// and goroutine hooks' files and proc.go's patch, and traceback.go's.
func TestRuntimeFiles(t *testing.T) {
	files, err := RuntimeFiles(build.Default.GOROOT, allocVersionGoVersions[0])
	if err != nil {
		t.Fatalf("this toolchain: %v", err)
	}
	dir := filepath.Join(build.Default.GOROOT, "src", "runtime")
	if string(files[filepath.Join(dir, gcCountFile)]) != gcCountSource {
		t.Errorf("no %s", gcCountFile)
	}
	if string(files[filepath.Join(dir, allocVersionFile)]) != allocVersionSource {
		t.Errorf("no %s", allocVersionFile)
	}
	if string(files[filepath.Join(dir, userEnvFile)]) != userEnvSource {
		t.Errorf("no %s", userEnvFile)
	}
	if string(files[filepath.Join(dir, exitHookFile)]) != exitHookSource {
		t.Errorf("no %s", exitHookFile)
	}
	if string(files[filepath.Join(dir, goHookFile)]) != goHookSource {
		t.Errorf("no %s", goHookFile)
	}
	proc := string(files[filepath.Join(dir, "proc.go")])
	for _, hooked := range []string{runExitHooksHooked, newprocRaceHooked, goexit1Hooked} {
		if !strings.Contains(proc, hooked) {
			t.Errorf("proc.go lacks %q", hooked)
		}
	}
	if tb := string(files[filepath.Join(dir, "traceback.go")]); !strings.Contains(tb, tracebackHooked) || !strings.HasSuffix(tb, tracebackFunc) {
		t.Errorf("traceback.go lacks %q or bigfootFrame", tracebackHooked)
	}
	if string(files[filepath.Join(dir, cleanupHookFile)]) != cleanupHookSource {
		t.Errorf("no %s", cleanupHookFile)
	}
	for _, p := range cleanupPatches {
		if !strings.Contains(string(files[filepath.Join(dir, p.file)]), p.hooked) {
			t.Errorf("%s lacks %q", p.file, p.hooked)
		}
	}
	if string(files[filepath.Join(dir, ownAllocFile)]) != ownAllocSource {
		t.Errorf("no %s", ownAllocFile)
	}
	if string(files[filepath.Join(dir, sweepHookFile)]) != sweepHookSource {
		t.Errorf("no %s", sweepHookFile)
	}
	// The GC count's, versions', environment's, exit hook's, goroutine
	// hooks', cleanup hooks', allocation statistics' and sweep hook's
	// files, the versions' patches, proc.go's, mfinal.go's,
	// mcleanup.go's, traceback.go's, malloc.go's, mstats.go's,
	// metrics.go's and mgcpacer.go's.
	if want := 16 + len(allocVersionPatches); len(files) != want {
		t.Errorf("%d files, want %d", len(files), want)
	}
	// Without the versions, the allocation statistics still patch the
	// files of the versions' patches (mheap.go, mgcsweep.go).
	untested, err := RuntimeFiles(build.Default.GOROOT, "go1.99.0")
	if err != nil || len(untested) != len(files)-1 || untested[filepath.Join(dir, allocVersionFile)] != nil {
		t.Errorf("an untested Go version: %d files (%v), want all but the versions' file", len(untested), err)
	}
	for _, p := range allocVersionPatches {
		if strings.Contains(string(untested[filepath.Join(dir, p.file)]), p.text) {
			t.Errorf("an untested Go version: %s has the versions' patch", p.file)
		}
	}
	if _, err := RuntimeFiles(t.TempDir(), allocVersionGoVersions[0]); err == nil {
		t.Error("a GOROOT without a runtime: no error")
	}
}
