package driver

import (
	"context"
	"os"
	"path/filepath"
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
