package driver

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// The cache directory (Config.CacheDir) holds entries that a run recreates
// when they are missing: the runtime module (rt-*), the instrumented
// standard library (std/*), instrumented dependency modules (mod/*), plans
// (plan/*), go env answers (goenv/*), runtime-patch checks
// (runtime-check/*) and executable hashes (exe/*). Most are keyed by the
// bigfoot binary, so every upgrade of bigfoot, mode and toolchain leaves a
// new set; left alone the directory grows by gigabytes. As Go's build cache
// does, a run marks the entries it uses (at most once per markInterval, so
// that a warm build does not write) and, at most once per trimInterval,
// removes the entries no run has used for trimAge.
const (
	markInterval = time.Hour
	trimInterval = 24 * time.Hour
	trimAge      = 5 * 24 * time.Hour
)

// cacheAreas are the cache directory's subdirectories whose children are
// entries; a child of the cache directory itself named rt-* is one too.
var cacheAreas = []string{"std", "mod", "plan", "goenv", "runtime-check", "exe"}

// trimStamp is the file, in the cache directory, that holds the Unix time
// of the last trim.
const trimStamp = "trim.txt"

// cacheUsed marks the cache entry that path (a file or directory under the
// cache directory) belongs to as used now. Failures are ignored: the mark
// only keeps an entry from being trimmed.
func (d *run) cacheUsed(path string) {
	if d.cfg.CacheDir == "" {
		return
	}
	entry := cacheEntry(d.cfg.CacheDir, path)
	if entry == "" {
		return
	}
	now := time.Now()
	if fi, err := os.Stat(entry); err == nil && now.Sub(fi.ModTime()) >= markInterval {
		os.Chtimes(entry, now, now)
	}
}

// cacheEntry returns the entry of cache that path lies in, "" if none.
func cacheEntry(cache, path string) string {
	rel, err := filepath.Rel(cache, path)
	if err != nil || !filepath.IsLocal(rel) {
		return ""
	}
	parts := strings.SplitN(filepath.ToSlash(rel), "/", 3)
	if strings.HasPrefix(parts[0], "rt-") {
		return filepath.Join(cache, parts[0])
	}
	if len(parts) < 2 {
		return ""
	}
	for _, a := range cacheAreas {
		if parts[0] == a {
			return filepath.Join(cache, parts[0], parts[1])
		}
	}
	return ""
}

// trimCache removes the entries of cache unused for trimAge, if the last
// trim was trimInterval or more before now. It returns how many it
// removed. An entry is renamed out of its area before it is deleted, so
// that a concurrent run sees it whole or not at all.
func trimCache(cache string, now time.Time) int {
	stamp := filepath.Join(cache, trimStamp)
	if data, err := os.ReadFile(stamp); err == nil {
		if t, err := strconv.ParseInt(strings.TrimSpace(string(data)), 10, 64); err == nil && now.Sub(time.Unix(t, 0)) < trimInterval {
			return 0
		}
	} else if !os.IsNotExist(err) {
		return 0
	}
	if err := os.MkdirAll(cache, 0o777); err != nil {
		return 0
	}
	// Written first, so that concurrent runs do not all trim.
	if err := writeFileAtomic(stamp, []byte(strconv.FormatInt(now.Unix(), 10)+"\n")); err != nil {
		return 0
	}
	var stale []string
	old := func(dir string, keep func(string) bool) {
		ents, err := os.ReadDir(dir)
		if err != nil {
			return
		}
		for _, e := range ents {
			if !keep(e.Name()) {
				continue
			}
			if fi, err := e.Info(); err == nil && now.Sub(fi.ModTime()) >= trimAge {
				stale = append(stale, filepath.Join(dir, e.Name()))
			}
		}
	}
	// trash-* is what a trim that was stopped left behind.
	old(cache, func(name string) bool { return strings.HasPrefix(name, "rt-") || strings.HasPrefix(name, "trash-") })
	for _, a := range cacheAreas {
		old(filepath.Join(cache, a), func(string) bool { return true })
	}
	if len(stale) == 0 {
		return 0
	}
	trash, err := os.MkdirTemp(cache, "trash-")
	if err != nil {
		return 0
	}
	defer os.RemoveAll(trash)
	n := 0
	for i, p := range stale {
		if os.Rename(p, filepath.Join(trash, strconv.Itoa(i))) == nil {
			n++
		}
	}
	return n
}
