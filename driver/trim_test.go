package driver

import (
	"os"
	"path/filepath"
	"sort"
	"testing"
	"time"
)

// TestTrimCache checks that a trim removes exactly the entries unused for
// trimAge, in every area, and that a second trim within trimInterval does
// nothing.
func TestTrimCache(t *testing.T) {
	cache := t.TempDir()
	now := time.Now()
	stale := now.Add(-trimAge - time.Hour)
	recent := now.Add(-trimAge + time.Hour)
	entries := map[string]time.Time{
		"rt-aaaa":              stale,
		"rt-bbbb":              recent,
		"std/k1-g":             stale,
		"std/k2-g":             recent,
		"mod/k1":               stale,
		"mod/src":              recent,
		"plan/p1.json":         stale,
		"plan/p2.json":         recent,
		"goenv/e1.json":        stale,
		"runtime-check/c.json": stale,
		"exe/x":                recent,
		"trash-123":            stale,
	}
	for name, mt := range entries {
		p := filepath.Join(cache, filepath.FromSlash(name))
		if filepath.Ext(p) == ".json" || filepath.Dir(name) == "exe" {
			mustWrite(t, p, "{}")
		} else {
			mustWrite(t, filepath.Join(p, "inner", "f"), "x")
		}
		if err := os.Chtimes(p, mt, mt); err != nil {
			t.Fatal(err)
		}
	}
	// Not entries: the stamp, and a file directly in an area's parent.
	mustWrite(t, filepath.Join(cache, "README"), "x")
	old := now.Add(-2 * trimAge)
	os.Chtimes(filepath.Join(cache, "README"), old, old)

	if n := trimCache(cache, now); n != 7 {
		t.Errorf("trimCache removed %d entries, want 7", n)
	}
	var left []string
	for name := range entries {
		if _, err := os.Stat(filepath.Join(cache, filepath.FromSlash(name))); err == nil {
			left = append(left, name)
		}
	}
	sort.Strings(left)
	want := []string{"exe/x", "mod/src", "plan/p2.json", "rt-bbbb", "std/k2-g"}
	if len(left) != len(want) {
		t.Fatalf("left %v, want %v", left, want)
	}
	for i := range want {
		if left[i] != want[i] {
			t.Fatalf("left %v, want %v", left, want)
		}
	}
	if _, err := os.Stat(filepath.Join(cache, "README")); err != nil {
		t.Errorf("trim removed a file that is not an entry: %v", err)
	}
	ents, _ := os.ReadDir(cache)
	for _, e := range ents {
		if len(e.Name()) > 6 && e.Name()[:6] == "trash-" {
			t.Errorf("trim left %s behind", e.Name())
		}
	}

	// Within trimInterval of the last trim nothing is looked at.
	for _, name := range want {
		p := filepath.Join(cache, filepath.FromSlash(name))
		os.Chtimes(p, old, old)
	}
	if n := trimCache(cache, now.Add(trimInterval/2)); n != 0 {
		t.Errorf("a second trim within trimInterval removed %d entries", n)
	}
	if n := trimCache(cache, now.Add(trimInterval)); n != len(want) {
		t.Errorf("a trim trimInterval later removed %d entries, want %d", n, len(want))
	}
}

// TestCacheUsed checks that using a file inside an entry refreshes the
// entry's time, once it is markInterval old, and nothing outside entries.
func TestCacheUsed(t *testing.T) {
	cache := t.TempDir()
	d := &run{cfg: &Config{CacheDir: cache}}
	old := time.Now().Add(-2 * markInterval)
	mod := filepath.Join(cache, "mod", "key")
	mustWrite(t, filepath.Join(mod, "example.com", "m@v1.0.0", "go.mod"), "module m\n")
	rt := filepath.Join(cache, "rt-1234")
	mustWrite(t, filepath.Join(rt, "go.mod"), "module rt\n")
	for _, p := range []string{mod, rt} {
		os.Chtimes(p, old, old)
	}

	d.cacheUsed(filepath.Join(mod, "example.com", "m@v1.0.0"))
	d.cacheUsed(rt)
	d.cacheUsed(filepath.Join(cache, "mod")) // an area, not an entry
	d.cacheUsed(filepath.Join(cache, "..", "elsewhere"))
	for _, p := range []string{mod, rt} {
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if time.Since(fi.ModTime()) > markInterval {
			t.Errorf("%s not marked used", p)
		}
	}
	if got := cacheEntry(cache, filepath.Join(cache, "mod")); got != "" {
		t.Errorf("cacheEntry(area) = %q, want none", got)
	}
}

func mustWrite(t *testing.T, path, data string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o777); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), 0o666); err != nil {
		t.Fatal(err)
	}
}
