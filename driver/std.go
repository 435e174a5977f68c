package driver

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
)

// The standard library (docs/build.md, "The standard library").
//
// The go command accepts -overlay replacements for files under GOROOT, so
// standard-library packages are instrumented like the main module, with
// two differences. A standard-library package cannot import the runtime
// module: the rewritten files' references to the runtime (__bf.X) become
// package-local names (__bf_X) that a file added to the package (stdShim)
// defines, reaching the detector through //go:linkname. And a package
// whose rewritten files need a hook the shim does not define is left as it
// is, so that its accesses are never checked without its synchronization
// being modelled. The rewritten files are cached per
// toolchain, mode and bigfoot binary, so the instrumenter runs once per
// package; the go command's build cache then reuses the compiled packages.

// stdExclusions are the standard-library packages (or, ending in "/",
// trees) never instrumented, with the reason; docs/build.md lists them.
var stdExclusions = []struct{ path, why string }{
	{"unsafe", "not Go code"},
	{"C", "not Go code"},
	{"runtime", "the runtime (not instrumented under -race either)"},
	{"runtime/race", "the race runtime (not instrumented under -race either)"},
	{"runtime/msan", "sanitizer glue (not instrumented under -race either)"},
	{"runtime/asan", "sanitizer glue (not instrumented under -race either)"},
	{"runtime/cgo", "cgo glue, in C and assembly"},
	{"runtime/internal/", "the runtime's own packages (not instrumented under -race either)"},
	{"internal/runtime/", runtimeOwn},
	{"internal/abi", runtimeOwn},
	{"internal/bytealg", runtimeOwn},
	{"internal/byteorder", runtimeOwn},
	{"internal/chacha8rand", runtimeOwn},
	{"internal/coverage/rtcov", runtimeOwn},
	{"internal/cpu", runtimeOwn},
	{"internal/goarch", runtimeOwn},
	{"internal/godebugs", runtimeOwn},
	{"internal/goexperiment", runtimeOwn},
	{"internal/goos", runtimeOwn},
	{"internal/profilerecord", runtimeOwn},
	{"internal/strconv", runtimeOwn},
	{"internal/stringslite", runtimeOwn},
	{"internal/race", "the race annotations themselves"},
	{"internal/msan", "sanitizer glue (not instrumented under -race either)"},
	{"internal/asan", "sanitizer glue (not instrumented under -race either)"},
	{"internal/synctest", "synctest bubbles, implemented by the runtime and modelled by the detector's hooks"},
	{"testing/synctest", "synctest.Test, modelled by the detector's hook at its calls (the runtime orders its bubble's root goroutine before synctest.Run returns, which the hook models at Test's return)"},
	{"internal/reflectlite", "reflection on the runtime's type layout, left out as reflect is"},
	{"sync", "synchronization, modelled by the detector's hooks (not instrumented under -race either)"},
	{"sync/", "synchronization, modelled by the detector's hooks (not instrumented under -race either)"},
	{"syscall", "system calls; written in part in assembly"},
	{"iter", "coroutine switches, modelled by the detector's hooks at the calls of Pull and Pull2"},
}

// runtimeOwn is why the runtime's own packages are left out: the
// compiler's runtimePkgs (cmd/internal/objabi/pkgspecial.go), which it
// does not instrument under -race either.
const runtimeOwn = "the runtime's own packages (not instrumented under -race either)"

// stdExcluded returns why the standard-library package p is not
// instrumented, or "" if it may be: the fixed list, and packages that
// import internal/race (they annotate synchronization the race detector
// cannot see, which bigfoot does not model).
func stdExcluded(p listedPackage) string {
	for _, e := range stdExclusions {
		if p.ImportPath == e.path || strings.HasSuffix(e.path, "/") && strings.HasPrefix(p.ImportPath, e.path) {
			return e.why
		}
	}
	for _, imp := range p.Imports {
		if imp == "internal/race" {
			return "annotates hidden synchronization for the race detector (internal/race)"
		}
	}
	return ""
}

// Instruments reports whether a build of scope s instruments a package:
// one of a main module (mainModule), of a dependency module (module), or
// of the standard library, named path and importing imports. bigfoot
// analyze uses it to look into the bodies the build sees through effect
// summaries. (A dependency module the build cannot copy or replace, which
// -bfv names, stays uninstrumented; Instruments does not know of those.)
func (s Scope) Instruments(path string, mainModule, module bool, imports []string) bool {
	switch {
	case mainModule:
		return true
	case module:
		return s == ScopeModules || s == ScopeAll
	default:
		return s == ScopeAll && stdExcluded(listedPackage{ImportPath: path, Imports: imports}) == ""
	}
}

// stdEntry is the cached instrumentation of one standard-library package.
//
// The cache keeps an entry as a small JSON file and, beside it, a
// directory of the package's instrumented files (stdFilesDir), which every
// plan's overlay names in place: a build reads the entries' JSON only, and
// a new plan's overlay copies none of the standard library's files (6 MB
// for a typical test binary, written anew for each edit of the user's
// code before this layout).
type stdEntry struct {
	Excluded string `json:",omitempty"` // why the package stays as it is
	// Files are the instrumented files by base name, the shim included,
	// while the entry is made (stdEntries); Names lists them in an entry
	// read from the cache, whose files are in stdFilesDir.
	Files map[string][]byte `json:"-"`
	Names []string          `json:",omitempty"`
	Facts []byte            `json:",omitempty"` // the package's facts (Files.Facts)
	// PointerChecksPass: every pointer check of the package's own code
	// provably passes (Files.PointerChecksPass).
	PointerChecksPass bool `json:",omitempty"`
}

// stdShimName is the file the shim is added as, in the package's directory.
const stdShimName = "zz_bigfoot_std.go"

// stdCache is the directory of the instrumented standard-library
// packages for this build, "" without a cache directory. Asking for it
// marks it used (trim.go).
func (d *run) stdCache(ge *goEnv) string {
	if d.cfg.CacheDir == "" {
		return ""
	}
	dir := filepath.Join(d.cfg.CacheDir, "std", d.depsKey(ge)+"-"+shortHash(ge.GOROOT))
	d.cacheUsed(dir)
	return dir
}

// instrumentStd instruments the standard-library packages among pkgs that
// are not yet in the cache and returns the instrumented ones, sync's
// directory if sync is to get its hooks (spliceSync), and the packages to
// compile without pointer checks (checkptrProved).
//
// known receives the facts of the build's standard-library packages.
func (d *run) instrumentStd(ctx context.Context, pkgs []listedPackage, ge *goEnv, known facts) ([]stdRef, string, []string, error) {
	cache := d.stdCache(ge)
	if cache == "" {
		// The plan refers to the rewritten packages by their cache.
		return nil, "", nil, errors.New("no cache directory")
	}
	entries := map[string]*stdEntry{}
	dirs := map[string]string{}
	var missing []string
	for _, p := range pkgs {
		if !p.Standard || p.ForTest != "" || p.Dir == "" {
			continue
		}
		if _, ok := entries[p.ImportPath]; ok {
			continue
		}
		dirs[p.ImportPath] = p.Dir
		if why := stdExcluded(p); why != "" {
			entries[p.ImportPath] = &stdEntry{Excluded: why}
			continue
		}
		if e := readStdEntry(cache, p.ImportPath); e != nil {
			entries[p.ImportPath] = e
			if len(e.Facts) > 0 {
				known[p.ImportPath] = e.Facts
			}
			continue
		}
		missing = append(missing, p.ImportPath)
	}
	if len(missing) > 0 {
		sort.Strings(missing)
		d.logf("instrumenting %d standard-library packages", len(missing))
		files, err := d.cfg.Instrument(ctx, Request{
			Dir:          d.dir,
			Patterns:     missing,
			BuildFlags:   d.inv.BuildFlags,
			Env:          d.env,
			Mode:         d.inv.Mode,
			Std:          true,
			Facts:        known.list(),
			RuntimeHooks: d.hooks,
			SyncOnce:     d.syncOnce,
			SyscallIO:    d.syscallIO,
		})
		if err != nil {
			return nil, "", nil, fmt.Errorf("instrumenting the standard library: %w", err)
		}
		if d.inv.Verbose {
			d.printNotes(files.Notes)
		}
		for path, e := range stdEntries(missing, dirs, files) {
			entries[path] = e
			if len(e.Facts) > 0 {
				known[path] = e.Facts
			}
			if err := writeStdEntry(cache, path, e); err != nil {
				return nil, "", nil, err
			}
		}
	}
	var refs []stdRef
	for path, e := range entries {
		if e.Excluded != "" {
			d.logf("std: %s: not instrumented: %s", path, e.Excluded)
			continue
		}
		refs = append(refs, stdRef{Path: path, Dir: dirs[path]})
	}
	sort.Slice(refs, func(i, j int) bool { return refs[i].Path < refs[j].Path })
	d.logf("std: %d packages instrumented", len(refs))
	syncDir := dirs["sync"]
	if syncDir != "" {
		if err := spliceSync(syncDir, map[string][]byte{}); err != nil {
			d.logf("std: sync not modelled inside the standard library: %v", err)
			syncDir = ""
		}
	}
	proved := checkptrProved(pkgs, entries)
	d.logf("std: %d packages without pointer checks, proved to pass", len(proved))
	return refs, syncDir, proved, nil
}

// A syncSplice extends one method of package sync in place: the line
// declaring it (decl, which must occur once in file) is replaced by with,
// on the same line, so that no line number of the file changes. Either
// with adds statements at the method's start, or it declares the method
// anew, calling the original body under a new name (the rest of the
// line opens it), and does its work after the call.
type syncSplice struct {
	file, decl, with string
}

// syncSplices are the hooks of a build that instruments the standard
// library (Mutex, RWMutex, WaitGroup, Once, Map, Pool). The uninstrumented packages synchronize through sync too (log
// serializes its writers with a Mutex, encoding/json and fmt pool their
// buffers), and objects of instrumented packages (the bytes.Buffer a
// log.Logger writes to) pass between goroutines that way: each operation
// is announced where it happens, with the edges the detector's own hooks
// give the user's calls (detector/sync.go). A user's call is thereby
// announced twice, at its call site and inside sync, which changes no
// clock: a second acquire of the same clock joins nothing new, a second
// release publishes the same accesses.
var syncSplices = []syncSplice{
	{"pool.go", "func (p *Pool) Put(x any) {", "func (p *Pool) Put(x any) { if __bf_poolPut(x) { return };"},
	{"pool.go", "func (p *Pool) Get() any {", "func (p *Pool) Get() any { x := p.__bf_Get(); __bf_poolGet(x); return x }; func (p *Pool) __bf_Get() any {"},

	// Pool's own allPoolsMu is left out: pinSlow unlocks it with its
	// processor pinned, where the runtime must not block or yield, and it
	// guards only Pool's list of pools.
	{"mutex.go", "func (m *Mutex) Lock() {", "func (m *Mutex) Lock() { m.__bf_Lock(); if m != &allPoolsMu { __bf_acquire(m, 0) } }; func (m *Mutex) __bf_Lock() {"},
	{"mutex.go", "func (m *Mutex) TryLock() bool {", "func (m *Mutex) TryLock() bool { ok := m.__bf_TryLock(); if ok && m != &allPoolsMu { __bf_acquire(m, 0) }; return ok }; func (m *Mutex) __bf_TryLock() bool {"},
	{"mutex.go", "func (m *Mutex) Unlock() {", "func (m *Mutex) Unlock() { if m != &allPoolsMu { __bf_release(m, 0) };"},

	// Writers release and acquire the clock at the RWMutex's address,
	// readers release theirs at address+1, which the next writer acquires.
	{"rwmutex.go", "func (rw *RWMutex) RLock() {", "func (rw *RWMutex) RLock() { rw.__bf_RLock(); __bf_acquire(rw, 0) }; func (rw *RWMutex) __bf_RLock() {"},
	{"rwmutex.go", "func (rw *RWMutex) TryRLock() bool {", "func (rw *RWMutex) TryRLock() bool { ok := rw.__bf_TryRLock(); if ok { __bf_acquire(rw, 0) }; return ok }; func (rw *RWMutex) __bf_TryRLock() bool {"},
	{"rwmutex.go", "func (rw *RWMutex) RUnlock() {", "func (rw *RWMutex) RUnlock() { __bf_release(rw, 1);"},
	{"rwmutex.go", "func (rw *RWMutex) Lock() {", "func (rw *RWMutex) Lock() { rw.__bf_Lock(); __bf_acquire(rw, 0); __bf_acquire(rw, 1) }; func (rw *RWMutex) __bf_Lock() {"},
	{"rwmutex.go", "func (rw *RWMutex) TryLock() bool {", "func (rw *RWMutex) TryLock() bool { ok := rw.__bf_TryLock(); if ok { __bf_acquire(rw, 0); __bf_acquire(rw, 1) }; return ok }; func (rw *RWMutex) __bf_TryLock() bool {"},
	{"rwmutex.go", "func (rw *RWMutex) Unlock() {", "func (rw *RWMutex) Unlock() { __bf_release(rw, 0);"},

	// Done is Add(-1): what a goroutine did before Done happens before
	// Wait returns.
	{"waitgroup.go", "func (wg *WaitGroup) Add(delta int) {", "func (wg *WaitGroup) Add(delta int) { if delta < 0 { __bf_release(wg, 0) };"},
	{"waitgroup.go", "func (wg *WaitGroup) Wait() {", "func (wg *WaitGroup) Wait() { wg.__bf_Wait(); __bf_acquire(wg, 0) }; func (wg *WaitGroup) __bf_Wait() {"},

	// Cond has no splice: Signal and Broadcast order nothing under go
	// -race, and the Locker's own hooks order a waiter after the
	// signaller's unlock (detector.CondWait).

	// A Map is modelled as under go -race (detector/syncmap.go): an
	// operation that may initialize the map releases into its root
	// clock, one that changes a key's entry releases into the key's
	// stripe and the node clock, one that finds a key or its absence
	// acquires them. LoadOrStore, LoadAndDelete, Delete, CompareAndSwap
	// and CompareAndDelete look the key up first and change nothing for
	// an absent key (a present one, for LoadOrStore), as the detector's
	// hooks of the user's calls do (which hide those calls from these).
	{"map.go", "func (m *Map) Load(key any) (value any, ok bool) {", "func (m *Map) Load(key any) (value any, ok bool) { __bf_mapEnter(m); value, ok = m.__bf_Load(key); __bf_mapRead(m, key); return }; func (m *Map) __bf_Load(key any) (value any, ok bool) {"},
	{"map.go", "func (m *Map) Store(key, value any) {", "func (m *Map) Store(key, value any) { __bf_mapWrite(m, key);"},
	{"map.go", "func (m *Map) Clear() {", "func (m *Map) Clear() { __bf_mapClear(m);"},
	{"map.go", "func (m *Map) LoadOrStore(key, value any) (actual any, loaded bool) {", "func (m *Map) LoadOrStore(key, value any) (actual any, loaded bool) { __bf_mapEnter(m); if actual, loaded = m.m.Load(key); !loaded { __bf_mapWrite(m, key); actual, loaded = m.__bf_LoadOrStore(key, value) }; __bf_mapRead(m, key); return }; func (m *Map) __bf_LoadOrStore(key, value any) (actual any, loaded bool) {"},
	{"map.go", "func (m *Map) LoadAndDelete(key any) (value any, loaded bool) {", "func (m *Map) LoadAndDelete(key any) (value any, loaded bool) { __bf_mapEnter(m); if value, loaded = m.m.Load(key); loaded { __bf_mapWrite(m, key); value, loaded = m.__bf_LoadAndDelete(key) }; __bf_mapRead(m, key); return }; func (m *Map) __bf_LoadAndDelete(key any) (value any, loaded bool) {"},
	{"map.go", "func (m *Map) Delete(key any) {", "func (m *Map) Delete(key any) { __bf_mapEnter(m); if _, ok := m.m.Load(key); !ok { __bf_mapRead(m, key); return }; __bf_mapWrite(m, key);"},
	{"map.go", "func (m *Map) Swap(key, value any) (previous any, loaded bool) {", "func (m *Map) Swap(key, value any) (previous any, loaded bool) { __bf_mapWrite(m, key); previous, loaded = m.__bf_Swap(key, value); __bf_mapRead(m, key); return }; func (m *Map) __bf_Swap(key, value any) (previous any, loaded bool) {"},
	{"map.go", "func (m *Map) CompareAndSwap(key, old, new any) (swapped bool) {", "func (m *Map) CompareAndSwap(key, old, new any) (swapped bool) { __bf_mapEnter(m); if _, ok := m.m.Load(key); ok { __bf_mapWrite(m, key); swapped = m.__bf_CompareAndSwap(key, old, new) }; __bf_mapRead(m, key); return }; func (m *Map) __bf_CompareAndSwap(key, old, new any) (swapped bool) {"},
	{"map.go", "func (m *Map) CompareAndDelete(key, old any) (deleted bool) {", "func (m *Map) CompareAndDelete(key, old any) (deleted bool) { __bf_mapEnter(m); if _, ok := m.m.Load(key); ok { __bf_mapWrite(m, key); deleted = m.__bf_CompareAndDelete(key, old) }; __bf_mapRead(m, key); return }; func (m *Map) __bf_CompareAndDelete(key, old any) (deleted bool) {"},
	{"map.go", "func (m *Map) Range(f func(key, value any) bool) {", "func (m *Map) Range(f func(key, value any) bool) { __bf_mapEnter(m); all := true; m.__bf_Range(func(k, v any) bool { __bf_mapRead(m, k); all = f(k, v); return all }); if all { __bf_mapRangeEnd(m) } }; func (m *Map) __bf_Range(f func(key, value any) bool) {"},

	// The end of f happens before any Do returns: doSlow releases after
	// f, before done is set, and Do acquires on both of its paths. No
	// wrapper of f, so that f's stack is go -race's (Request.SyncOnce).
	{"once.go", "\t\tdefer o.done.Store(true)\n", "\t\tdefer o.done.Store(true); defer __bf_release(o, 0)\n"},
	{"once.go", "\t\to.doSlow(f)\n\t}\n}\n", "\t\to.doSlow(f)\n\t}; __bf_acquire(o, 0)\n}\n"},
	// OnceFunc, OnceValue and OnceValues order their callers through
	// Once.Do. go -race's build never inlines them (its instrumentation
	// makes them too large), which names their closures after them in
	// the function's stack ("sync.OnceFunc.func1", not the caller's
	// "F.OnceFunc.func1"): the last line of each doc comment becomes
	// //go:noinline, keeping every line number.
	{"oncefunc.go", onceDocEnd + "func OnceFunc(", "//go:noinline\nfunc OnceFunc("},
	{"oncefunc.go", onceDocEnd + "func OnceValue[", "//go:noinline\nfunc OnceValue["},
	{"oncefunc.go", onceDocEnd + "func OnceValues[", "//go:noinline\nfunc OnceValues["},
}

// onceDocEnd is the last line of the doc comments of sync.OnceFunc,
// OnceValue and OnceValues.
const onceDocEnd = "// If f panics, the returned function will panic with the same value on every call.\n"

// onceSpliced reports whether package sync's Once of the toolchain ge
// names takes its splices and the detector's standard-library hooks
// work on its target (detector.stdHooksOn: where getg is), for
// Request.SyncOnce.
func onceSpliced(ge *goEnv) bool {
	if ge.GOROOT == "" || (ge.GOARCH != "amd64" && ge.GOARCH != "arm64") {
		return false
	}
	return spliceSync(filepath.Join(ge.GOROOT, "src", "sync"), map[string][]byte{}) == nil
}

// spliceSync adds to the overlay the files of package sync (in dir) with
// syncSplices applied, and the declarations of the hooks they call.
func spliceSync(dir string, overlay map[string][]byte) error {
	files, err := applySplices(dir, syncSplices, nil)
	if err != nil {
		return err
	}
	for path, data := range files {
		overlay[path] = data
	}
	overlay[filepath.Join(dir, syncHooksFile)] = []byte(syncHookDecls)
	return nil
}

// applySplices returns the files of the package in dir that splices
// change, with the splices applied, each file read from from[path] if
// it is there (an instrumented copy), else from path itself. Each
// declaration must occur once in its file.
func applySplices(dir string, splices []syncSplice, from map[string]string) (map[string][]byte, error) {
	texts := map[string]string{}
	for _, sp := range splices {
		path := filepath.Join(dir, sp.file)
		s, ok := texts[path]
		if !ok {
			src := path
			if f, ok := from[path]; ok {
				src = f
			}
			data, err := os.ReadFile(src)
			if err != nil {
				return nil, err
			}
			s = string(data)
		}
		if strings.Count(s, sp.decl) != 1 {
			return nil, fmt.Errorf("%s: %q not found once", path, sp.decl)
		}
		texts[path] = strings.Replace(s, sp.decl, sp.with, 1)
	}
	out := map[string][]byte{}
	for path, s := range texts {
		out[path] = []byte(s)
	}
	return out, nil
}

// syncHooksFile declares the hooks in package sync.
const syncHooksFile = "zz_bigfoot_sync.go"

const syncHookDecls = `// Code generated by bigfoot. DO NOT EDIT.

package sync

import _ "unsafe"

//go:linkname __bf_poolPut github.com/bigfoot-go/bigfoot/detector.stdPoolPut
func __bf_poolPut(x any) bool

//go:linkname __bf_poolGet github.com/bigfoot-go/bigfoot/detector.stdPoolGet
func __bf_poolGet(x any)

//go:linkname __bf_acquire github.com/bigfoot-go/bigfoot/detector.stdSyncAcquire
func __bf_acquire(p any, off uintptr)

//go:linkname __bf_release github.com/bigfoot-go/bigfoot/detector.stdSyncRelease
func __bf_release(p any, off uintptr)

//go:linkname __bf_mapEnter github.com/bigfoot-go/bigfoot/detector.stdSyncMapEnter
//go:noescape
func __bf_mapEnter(m *Map)

//go:linkname __bf_mapRead github.com/bigfoot-go/bigfoot/detector.stdSyncMapRead
//go:noescape
func __bf_mapRead(m *Map, key any)

//go:linkname __bf_mapWrite github.com/bigfoot-go/bigfoot/detector.stdSyncMapWrite
//go:noescape
func __bf_mapWrite(m *Map, key any)

//go:linkname __bf_mapClear github.com/bigfoot-go/bigfoot/detector.stdSyncMapClear
//go:noescape
func __bf_mapClear(m *Map)

//go:linkname __bf_mapRangeEnd github.com/bigfoot-go/bigfoot/detector.stdSyncMapRangeEnd
//go:noescape
func __bf_mapRangeEnd(m *Map)
`

// stdEntries turns the instrumenter's output for the packages pkgs (in
// directories dirs) into cache entries: rewritten files with the runtime's
// references made package-local, plus the shim; or the reason a package
// is left as it is.
func stdEntries(pkgs []string, dirs map[string]string, files *Files) map[string]*stdEntry {
	byDir := map[string]string{}
	out := map[string]*stdEntry{}
	used := map[string]map[string]bool{}
	for _, p := range pkgs {
		byDir[dirs[p]] = p
		out[p] = &stdEntry{Files: map[string][]byte{}}
	}
	for _, set := range []map[string][]byte{files.Replace, files.Add} {
		for file, data := range set {
			p, ok := byDir[filepath.Dir(file)]
			if !ok || out[p].Excluded != "" {
				continue
			}
			if used[p] == nil {
				used[p] = map[string]bool{}
			}
			src, why := stdRewrite(data, used[p])
			if why != "" {
				out[p] = &stdEntry{Excluded: why}
				continue
			}
			out[p].Files[filepath.Base(file)] = src
		}
	}
	for p, e := range out {
		if e.Excluded != "" {
			continue
		}
		if len(e.Files) == 0 {
			out[p] = &stdEntry{Excluded: "nothing to check, or left uninstrumented by the instrumenter (assembly, cgo)"}
			continue
		}
		name := ""
		for _, data := range e.Files {
			if m := packageRE.FindSubmatch(data); m != nil {
				name = string(m[1])
				break
			}
		}
		e.Files[stdShimName] = stdShimFor(p, name, used[p])
	}
	// Facts describe what the package's functions do, not how they are
	// instrumented: an excluded package's facts hold too.
	for p, e := range out {
		e.Facts = files.Facts[p]
	}
	for _, p := range files.PointerChecksPass {
		if e := out[p]; e != nil {
			e.PointerChecksPass = true
		}
	}
	return out
}

var (
	packageRE    = regexp.MustCompile(`(?m)^package (\w+)`)
	rtImportRE   = regexp.MustCompile(`;?[ \t]*import __bf "github.com/bigfoot-go/bigfoot/detector"`)
	rtRefRE      = regexp.MustCompile(`\b__bf\.(\w+)`)
	rtMethodRE   = regexp.MustCompile(`\b(__bf\w+)\.(\w+)`)
	rtRemainsRE  = regexp.MustCompile(`github.com/bigfoot-go/bigfoot`)
	stdBaseNames = map[string]bool{"__bf": true, "__bfu": true}
	tempRE       = regexp.MustCompile(`^__bft[0-9]+$`) // the instrumenter's temporaries, which hold the user's values

	// The instrumenter raises a file's language version to go1.21 when it
	// does not know it, as for standard-library files; those are at the
	// toolchain's version, which a go1.21 constraint would lower.
	upgradeHeadRE  = regexp.MustCompile(`\A//go:build go1\.21\n\n//line [^\n]*:1:1\n`)
	upgradeConstRE = regexp.MustCompile(`(?m)^//go:build \((.*)\) && go1\.21$`)
)

// stdRewrite makes one rewritten file's runtime references package-local
// and adds the names it uses to used. It returns why the file's package
// cannot be instrumented, if so: a hook the shim lacks (goroutines,
// channels, atomics), or a function declared without body (implemented by
// the runtime or in assembly, which may synchronize behind the detector's
// back).
func stdRewrite(src []byte, used map[string]bool) ([]byte, string) {
	src = upgradeConstRE.ReplaceAll(upgradeHeadRE.ReplaceAll(src, nil), []byte("//go:build $1"))
	for _, m := range rtMethodRE.FindAllSubmatch(src, -1) {
		if base := string(m[1]); !stdBaseNames[base] && !tempRE.MatchString(base) && !stdMethods[string(m[2])] {
			return nil, fmt.Sprintf("needs hook %s (goroutines, channels or atomics)", m[2])
		}
	}
	var bad string
	out := rtRefRE.ReplaceAllFunc(rtImportRE.ReplaceAll(src, nil), func(ref []byte) []byte {
		name := string(ref[len("__bf."):])
		if !stdHooks[name] && bad == "" {
			bad = name
		}
		used[name] = true
		return []byte("__bf_" + name)
	})
	if bad != "" {
		return nil, fmt.Sprintf("needs hook %s (goroutines, channels or atomics)", bad)
	}
	if rtRemainsRE.Match(out) {
		return nil, "refers to the runtime module in a way the driver cannot rewrite"
	}
	return out, ""
}

// shortHash is a short hex hash of s.
func shortHash(s string) string {
	h := sha256.Sum256([]byte(s))
	return fmt.Sprintf("%x", h[:6])
}

// readStdEntry returns the cached entry of package path, or nil if there
// is none or its files are gone.
func readStdEntry(cache, path string) *stdEntry {
	if cache == "" {
		return nil
	}
	data, err := os.ReadFile(stdEntryFile(cache, path))
	if err != nil {
		return nil
	}
	var e stdEntry
	if json.Unmarshal(data, &e) != nil || e.Excluded == "" && len(e.Names) == 0 {
		return nil
	}
	if e.Excluded == "" {
		if _, err := os.Stat(stdFilesDir(cache, path)); err != nil {
			return nil
		}
	}
	return &e
}

// stdEntryFile is the JSON file of package path's entry in cache.
func stdEntryFile(cache, path string) string {
	return filepath.Join(cache, url.PathEscape(path)+".json")
}

// stdFilesDir is the directory of package path's instrumented files in
// cache.
func stdFilesDir(cache, path string) string {
	return filepath.Join(cache, url.PathEscape(path)+".files")
}

// writeStdEntry caches the entry of package path: its files first, in a
// directory renamed into place whole, then the JSON file that refers to
// them, so that an entry that can be read has all its files.
func writeStdEntry(cache, path string, e *stdEntry) error {
	if cache == "" {
		return nil
	}
	e.Names = nil
	for name := range e.Files {
		e.Names = append(e.Names, name)
	}
	sort.Strings(e.Names)
	if len(e.Names) > 0 {
		if err := writeStdFiles(cache, path, e.Files); err != nil {
			return fmt.Errorf("caching the instrumented standard library: %w", err)
		}
	}
	data, err := json.Marshal(e)
	if err != nil {
		return err
	}
	if err := writeFileAtomic(stdEntryFile(cache, path), data); err != nil {
		return fmt.Errorf("caching the instrumented standard library: %w", err)
	}
	return nil
}

// writeStdFiles writes package path's instrumented files into its
// directory in cache, unless a run that made the same entry wrote them
// first (the cache's key covers everything they are made from).
func writeStdFiles(cache, path string, files map[string][]byte) error {
	dir := stdFilesDir(cache, path)
	if _, err := os.Stat(dir); err == nil {
		return nil
	}
	if err := os.MkdirAll(cache, 0o777); err != nil {
		return err
	}
	part, err := os.MkdirTemp(cache, ".partial-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(part) // after a successful rename, nothing is left
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(part, name), data, 0o666); err != nil {
			return err
		}
	}
	if err := os.Rename(part, dir); err != nil {
		if _, serr := os.Stat(dir); serr == nil {
			return nil // another run got there first
		}
		return err
	}
	return nil
}
