package driver

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
)

// cachedGoEnv returns what go env says in dir, from the cache when none of
// its inputs changed: running go env costs about 20 ms, a fifth of a
// second build of an unchanged program (docs/build.md, "Build cost").
//
// go env's answer is a function of the go command (resolved on PATH,
// identified by size and modification time), the environment, the
// directory (which go.mod and go.work are found from it), the go env
// configuration file, the nearest go.mod and go.work (their toolchain
// lines can select another toolchain), and GOROOT's go.env. The key hashes
// all of them but the last, which names GOROOT and is checked when the
// entry is read. Where one of them cannot be found, go env runs.
func (d *run) cachedGoEnv(ctx context.Context) (*goEnv, error) {
	if d.cfg.CacheDir == "" {
		return readGoEnv(ctx, d.cfg.GoCmd, d.dir, d.cfg.Env)
	}
	key, ok := goEnvKey(d.cfg.GoCmd, d.dir, d.cfg.Env)
	if !ok {
		return readGoEnv(ctx, d.cfg.GoCmd, d.dir, d.cfg.Env)
	}
	file := filepath.Join(d.cfg.CacheDir, "goenv", key+".json")
	d.cacheUsed(file)
	var e goEnvEntry
	if data, err := os.ReadFile(file); err == nil && json.Unmarshal(data, &e) == nil && e.Env.GOROOT != "" {
		if stamp, err := fileStamp(filepath.Join(e.Env.GOROOT, "go.env")); err == nil && stamp == e.GorootEnv {
			return &e.Env, nil
		}
	}
	ge, err := readGoEnv(ctx, d.cfg.GoCmd, d.dir, d.cfg.Env)
	if err != nil {
		return nil, err
	}
	if stamp, err := fileStamp(filepath.Join(ge.GOROOT, "go.env")); err == nil {
		if data, err := json.Marshal(goEnvEntry{Env: *ge, GorootEnv: stamp}); err == nil {
			writeFileAtomic(file, data) // a cache: failure costs a go env next time
		}
	}
	return ge, nil
}

// A goEnvEntry is a cached answer of go env and the stamp of the go.env
// file of its GOROOT.
type goEnvEntry struct {
	Env       goEnv
	GorootEnv string
}

// goEnvKey hashes the inputs of go env's answer in dir but GOROOT's
// go.env. It reports false when one cannot be determined.
func goEnvKey(gocmd, dir string, env []string) (string, bool) {
	get := func(k string) string { return getenv(env, k) }
	h := sha256.New()
	exe, err := lookPath(gocmd, get("PATH"))
	if err != nil {
		return "", false
	}
	stamp, err := fileStamp(exe)
	if err != nil {
		return "", false
	}
	fmt.Fprintf(h, "go %s %s\ndir %s\n", exe, stamp, dir)
	vars := append([]string{}, env...)
	sort.Strings(vars)
	for _, kv := range vars {
		if k, _, _ := strings.Cut(kv, "="); !volatileEnv[k] {
			fmt.Fprintf(h, "env %s\n", kv)
		}
	}
	cfg, ok := goEnvFile(get)
	if !ok {
		return "", false
	}
	s, _ := fileStamp(cfg) // a missing file is a state too
	fmt.Fprintf(h, "config %s %s\n", cfg, s)
	for _, name := range []string{"go.mod", "go.work"} {
		if f := findUp(dir, name); f != "" {
			s, _ := fileStamp(f)
			fmt.Fprintf(h, "%s %s %s\n", name, f, s)
		}
	}
	return fmt.Sprintf("%x", h.Sum(nil))[:32], true
}

// goEnvFile returns the go command's configuration file (go env -w) as
// the environment env names it, following os.UserConfigDir.
func goEnvFile(getenv func(string) string) (string, bool) {
	if f := getenv("GOENV"); f != "" {
		return f, true
	}
	var dir string
	switch runtime.GOOS {
	case "windows", "plan9":
		return "", false
	case "darwin", "ios":
		dir = getenv("HOME")
		if dir == "" {
			return "", false
		}
		dir = filepath.Join(dir, "Library", "Application Support")
	default:
		dir = getenv("XDG_CONFIG_HOME")
		if dir == "" || !filepath.IsAbs(dir) {
			if dir = getenv("HOME"); dir == "" {
				return "", false
			}
			dir = filepath.Join(dir, ".config")
		}
	}
	return filepath.Join(dir, "go", "env"), true
}

// lookPath resolves the go command on path, as exec.Command would with
// that PATH.
func lookPath(cmd, path string) (string, error) {
	if strings.ContainsRune(cmd, filepath.Separator) {
		return filepath.Abs(cmd)
	}
	for _, dir := range filepath.SplitList(path) {
		if dir == "" || !filepath.IsAbs(dir) {
			continue // exec.LookPath refuses relative entries
		}
		f := filepath.Join(dir, cmd)
		if fi, err := os.Stat(f); err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0 {
			return f, nil
		}
	}
	return "", exec.ErrNotFound
}

// findUp returns the nearest file called name in dir or its parents, or "".
func findUp(dir, name string) string {
	for {
		f := filepath.Join(dir, name)
		if fi, err := os.Stat(f); err == nil && !fi.IsDir() {
			return f
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}

// fileStamp identifies the contents of a file by size and modification
// time, as the plan's key does (hashFile).
func fileStamp(file string) (string, error) {
	fi, err := os.Stat(file)
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("%d %d", fi.Size(), fi.ModTime().UnixNano()), nil
}
