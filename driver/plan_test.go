package driver

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestPlanCache: a second build of an unchanged module reuses the
// instrumented program without calling the instrumenter; a change to one
// of the module's files, or another mode, instruments again.
func TestPlanCache(t *testing.T) {
	requireGo(t)
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"go.mod": "module example.com/u\n\ngo 1.22\n", "main.go": userMain})
	var req Request
	calls := 0
	rw := rewrite(t, dir, &req)
	counting := func(ctx context.Context, r Request) (*Files, error) {
		calls++
		return rw(ctx, r)
	}
	cfg, _, stderr := newConfig(t, counting)
	cfg.CacheDir = t.TempDir()
	build := func(mode string) {
		t.Helper()
		inv, err := ParseArgs("build", []string{"-C", dir, "-mode", mode, "-deps=main", "-o", os.DevNull, "."})
		if err != nil {
			t.Fatal(err)
		}
		if code, err := Run(context.Background(), cfg, inv); code != 0 || err != nil {
			t.Fatalf("Run = %d, %v\n%s", code, err, stderr)
		}
	}
	for i, step := range []struct {
		change func()
		mode   string
		calls  int
	}{
		{nil, "fasttrack", 1},
		{nil, "fasttrack", 1},
		{nil, "bigfoot", 2},
		{func() {
			later := time.Now().Add(time.Minute)
			if err := os.Chtimes(filepath.Join(dir, "main.go"), later, later); err != nil {
				t.Fatal(err)
			}
		}, "fasttrack", 3},
		{nil, "fasttrack", 3},
	} {
		if step.change != nil {
			step.change()
		}
		build(step.mode)
		if calls != step.calls {
			t.Fatalf("step %d: the instrumenter ran %d times, want %d", i, calls, step.calls)
		}
	}
}

// TestPlanOverlayWrittenOnce: a cached plan's overlay is written beside it
// once; a second build of the unchanged program writes no file, and an
// overlay that lost a file (a pruned cache) is written again.
func TestPlanOverlayWrittenOnce(t *testing.T) {
	requireGo(t)
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"go.mod": "module example.com/u\n\ngo 1.22\n", "main.go": userMain})
	var req Request
	cfg, _, stderr := newConfig(t, rewrite(t, dir, &req))
	cfg.CacheDir = t.TempDir()
	build := func() {
		t.Helper()
		inv, err := ParseArgs("build", []string{"-C", dir, "-mode", "fasttrack", "-deps=main", "-o", os.DevNull, "."})
		if err != nil {
			t.Fatal(err)
		}
		if code, err := Run(context.Background(), cfg, inv); code != 0 || err != nil {
			t.Fatalf("Run = %d, %v\n%s", code, err, stderr)
		}
	}
	build()
	overlays, err := filepath.Glob(filepath.Join(cfg.CacheDir, "plan", "*.overlay", "overlay.json"))
	if err != nil || len(overlays) != 1 {
		t.Fatalf("cached overlays: %v, %v; want one", overlays, err)
	}
	main := filepath.Join(filepath.Dir(overlays[0]), "files", strings.ReplaceAll(filepath.Join(dir, "main.go"), ":", ""))
	first, err := os.Stat(main)
	if err != nil {
		t.Fatalf("the overlay's copy of main.go: %v", err)
	}
	old := first.ModTime().Add(-time.Hour)
	if err := os.Chtimes(main, old, old); err != nil {
		t.Fatal(err)
	}
	build()
	if fi, err := os.Stat(main); err != nil || !fi.ModTime().Equal(old) {
		t.Fatalf("second build rewrote the overlay (%v)", err)
	}
	if !overlayComplete(overlays[0]) {
		t.Fatal("overlayComplete = false for a complete overlay")
	}
	if err := os.Remove(main); err != nil {
		t.Fatal(err)
	}
	if overlayComplete(overlays[0]) {
		t.Fatal("overlayComplete = true after a file was removed")
	}
	build()
	if _, err := os.Stat(main); err != nil {
		t.Fatalf("the pruned overlay was not written again: %v", err)
	}
}
