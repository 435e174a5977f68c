package driver

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestGoEnvKey: the key of go env's cached answer changes with each of its
// inputs: the environment, the directory, the nearest go.mod and go.work,
// and the configuration file of go env -w.
func TestGoEnvKey(t *testing.T) {
	requireGo(t)
	root := t.TempDir()
	home := filepath.Join(root, "home")
	mod := filepath.Join(root, "m")
	sub := filepath.Join(mod, "sub")
	writeTree(t, mod, map[string]string{"go.mod": "module example.com/m\n\ngo 1.22\n", "sub/x.go": "package sub\n"})
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home}
	key := func(dir string, env []string) string {
		t.Helper()
		k, ok := goEnvKey("go", dir, env)
		if !ok {
			t.Fatalf("goEnvKey(%s) found no key", dir)
		}
		return k
	}
	base := key(mod, env)
	if key(mod, env) != base {
		t.Fatal("the key is not deterministic")
	}
	touch := func(file string) {
		t.Helper()
		later := time.Now().Add(time.Minute)
		if err := os.Chtimes(file, later, later); err != nil {
			t.Fatal(err)
		}
	}
	seen := map[string]string{base: "base"}
	differs := func(what, k string) {
		t.Helper()
		if prev, ok := seen[k]; ok {
			t.Errorf("%s: same key as %s", what, prev)
		}
		seen[k] = what
	}
	differs("subdirectory", key(sub, env))
	differs("GOFLAGS set", key(mod, append(env, "GOFLAGS=-mod=mod")))
	touch(filepath.Join(mod, "go.mod"))
	differs("go.mod changed", key(mod, env))
	writeTree(t, root, map[string]string{"go.work": "go 1.22\n\nuse ./m\n"})
	differs("go.work added", key(mod, env))
	writeTree(t, home, map[string]string{".config/go/env": "GOFLAGS=-v\n"})
	differs("go env -w", key(mod, env))
	if _, ok := goEnvKey("no-such-go-command", mod, env); ok {
		t.Error("a go command not on PATH has a key")
	}
}

// TestCachedGoEnv: a cached answer of go env equals go env's own.
func TestCachedGoEnv(t *testing.T) {
	requireGo(t)
	dir := t.TempDir()
	writeTree(t, dir, map[string]string{"go.mod": "module example.com/u\n\ngo 1.22\n"})
	d := &run{cfg: &Config{GoCmd: "go", Env: os.Environ(), CacheDir: t.TempDir()}, dir: dir}
	want, err := readGoEnv(context.Background(), "go", dir, d.cfg.Env)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 2; i++ {
		got, err := d.cachedGoEnv(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if *got != *want {
			t.Fatalf("run %d: cached go env %+v, want %+v", i, *got, *want)
		}
	}
	if files, _ := filepath.Glob(filepath.Join(d.cfg.CacheDir, "goenv", "*.json")); len(files) != 1 {
		t.Fatalf("goenv cache holds %d entries, want 1", len(files))
	}
}
