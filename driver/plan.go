package driver

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/bigfoot-go/bigfoot"
	"golang.org/x/mod/modfile"
)

// A plan is what instrumenting produced for one build: the go.work
// replacements by instrumented copies, the overlay of the main module(s)
// and of local dependencies, and the instrumented standard-library
// packages (whose files are read back from their cache).
//
// Plans are cached (docs/build.md, "Build cost"): a second build of an
// unchanged program reuses the plan instead of running the instrumenter,
// so that it costs about what a second go build -race costs.
type plan struct {
	Replace []replace
	Files   map[string][]byte // overlay: absolute path -> content (existing files)
	Add     map[string][]byte // overlay: new files
	Notes   []string
	Broken  []string // errors of the packages left to the go command (Files.Broken)
	Std     []stdRef
	SyncDir string // sync's directory, if sync.Pool gets its hooks
	// SyscallDir is syscall's directory, if it announces I/O
	// (spliceSyscall, Request.SyscallIO).
	SyscallDir string `json:",omitempty"`
	// RuntimeDir is the runtime's directory, if it gets gcCountFile.
	RuntimeDir string
	// AllocVersions says the runtime in RuntimeDir also gets the
	// allocation versions (allocver.go, runtimecheck.go).
	AllocVersions bool
	// RaceCountRoot is the GOROOT whose internal/race reports the
	// detector's count of races to package testing (racecount.go), if
	// its norace.go takes the patch.
	RaceCountRoot string
	// TestingEdgesRoot is the GOROOT whose package testing gets the
	// detector's edges at its channels and go statements
	// (testingedges.go), if its files take them.
	TestingEdgesRoot string
	// CheckptrProved are the standard-library packages compiled without
	// pointer checks (checkptrProved).
	CheckptrProved []string `json:",omitempty"`
	// SitePlan is the main modules' run's Files.Plan (Analyze).
	SitePlan []byte
}

// A stdRef names an instrumented standard-library package.
type stdRef struct{ Path, Dir string }

// cachedPlan returns the plan of the build, from the cache when its inputs
// are unchanged; otherwise it instruments and caches the result. It also
// returns the plan's file in the cache ("" if plans are not cached). A
// *LoadError means the packages do not load.
func (d *run) cachedPlan(ctx context.Context, ws *workspace, rtDir string, ge *goEnv, patterns []string) (*plan, string, *LoadError, error) {
	file := ""
	if d.cfg.CacheDir != "" {
		if key, err := d.planKey(ws, ge, patterns); err == nil {
			file = filepath.Join(d.cfg.CacheDir, "plan", key+".json")
			d.cacheUsed(file)
			if pl := readPlan(file, d.stdCache(ge)); pl != nil {
				d.logf("reusing the instrumented program (inputs unchanged)")
				return pl, file, nil, nil
			}
		} else {
			d.logf("no plan cache: %v", err)
		}
	}
	pl, lerr, err := d.makePlan(ctx, ws, rtDir, ge, patterns)
	if lerr != nil || err != nil {
		return nil, "", lerr, err
	}
	if file != "" {
		data, err := json.Marshal(pl)
		if err == nil {
			err = writeFileAtomic(file, data)
		}
		if err != nil {
			d.logf("caching the plan: %v", err)
			file = ""
		}
	}
	return pl, file, nil, nil
}

// writePlanOverlay writes the overlay of pl and returns the overlay file
// for the go command's -overlay flag. A cached plan (planFile) keeps its
// overlay beside it, written once and renamed into place complete, so
// that a second build of an unchanged program writes nothing and reads
// nothing back but the overlay file (docs/build.md, "Build cost"). With
// -work, or without a plan cache, the overlay goes to the temporary
// directory, where the user can read it.
func (d *run) writePlanOverlay(pl *plan, planFile string, ge *goEnv) (string, error) {
	if planFile == "" || d.inv.Work {
		files, err := pl.overlay(d.stdCache(ge))
		if err != nil {
			return "", err
		}
		overlay := filepath.Join(d.tmp, "overlay.json")
		return overlay, writeOverlay(overlay, filepath.Join(d.tmp, "files"), files)
	}
	overlay := planOverlay(planFile)
	dir := filepath.Dir(overlay)
	d.cacheUsed(dir)
	// The overlay names the standard library's files in its cache, which
	// must stay as long as the plan is used.
	stdCache := d.stdCache(ge)
	if overlayComplete(overlay) {
		return overlay, nil
	}
	os.RemoveAll(dir) // incomplete: something pruned the cache
	files, err := pl.overlay(stdCache)
	if err != nil {
		return "", err
	}
	part, err := os.MkdirTemp(filepath.Dir(dir), ".partial-")
	if err != nil {
		return "", fmt.Errorf("writing overlay: %w", err)
	}
	defer os.RemoveAll(part) // after a successful rename, nothing is left
	if err := writeOverlayAs(filepath.Join(part, "overlay.json"), filepath.Join(part, "files"), filepath.Join(dir, "files"), files); err != nil {
		return "", err
	}
	if err := os.Rename(part, dir); err != nil {
		// Another build of the same plan got there first: its overlay
		// is the same.
		if _, serr := os.Stat(overlay); serr != nil {
			return "", fmt.Errorf("writing overlay: %w", err)
		}
	}
	return overlay, nil
}

// makePlan instruments the dependencies (as -deps says) and the main
// module(s).
func (d *run) makePlan(ctx context.Context, ws *workspace, rtDir string, ge *goEnv, patterns []string) (*plan, *LoadError, error) {
	pl := &plan{}
	localDeps := map[string][]byte{}
	known := facts{} // of the packages instrumented so far, for the later runs
	pkgs, err := d.listPackages(ctx, d.env, patterns)
	if err != nil {
		return nil, nil, err
	}
	if d.inv.Deps != ScopeMain && d.inv.Deps != "" {
		// The standard library first: the dependencies call into it.
		if d.inv.Deps == ScopeAll {
			std, syncDir, proved, err := d.instrumentStd(ctx, pkgs, ge, known)
			if err != nil {
				// The build goes on with the standard library as it is,
				// and with the I/O of the calls of instrumented code.
				d.logf("standard library left uninstrumented: %v", err)
				d.syscallIO = false
			}
			pl.Std, pl.SyncDir, pl.CheckptrProved = std, syncDir, proved
			if d.syscallIO {
				pl.SyscallDir = filepath.Join(ge.GOROOT, "src", "syscall")
			}
		}
		deps, err := d.instrumentDeps(ctx, ws, rtDir, ge, pkgs, known)
		if err != nil {
			return nil, nil, err
		}
		pl.Replace = deps.replace
		localDeps = deps.overlay
	}
	if pl.SyncDir == "" {
		pl.SyncDir = d.syncDir(ge)
	}
	if _, err := raceCountFiles(ge.GOROOT); err != nil {
		d.logf("races reported to package testing by the detector's own check: %v", err)
	} else {
		pl.RaceCountRoot = ge.GOROOT
	}
	if _, err := testingEdgeFiles(ge.GOROOT); err != nil {
		d.logf("package testing's goroutines and channels ordered by the handoff clock only: %v", err)
	} else {
		pl.TestingEdgesRoot = ge.GOROOT
	}
	if dir := d.runtimePkgDir; dir != "" {
		pl.RuntimeDir, pl.AllocVersions = dir, d.allocVersions
		if _, err := userEnvFiles(dir); err != nil {
			d.logf("test binaries see bigfoot's GOWORK: %v", err)
		}
		if _, err := runtimeHookFiles(dir); err != nil {
			d.logf("main.main wrapped, a TestMain added and goroutines wrapped for the runtime's hooks: %v", err)
		}
		if _, err := cleanupHookFiles(dir); err != nil {
			d.logf("the cleanups of a batch ordered, each finalizer and cleanup ordered after every goroutine: %v", err)
		}
	}
	d.logf("instrumenting %s (mode %s)", strings.Join(patterns, " "), d.inv.Mode)
	files, err := d.cfg.Instrument(ctx, Request{
		Dir:          d.dir,
		Patterns:     patterns,
		Tests:        d.inv.Verb == "test",
		BuildFlags:   d.loadFlags,
		Env:          d.env,
		Mode:         d.inv.Mode,
		Facts:        known.list(),
		RuntimeHooks: d.hooks,
		SyncOnce:     d.syncOnce,
		SyscallIO:    d.syscallIO,
		Graph:        graphOf(pkgs),
	})
	var lerr *LoadError
	if errors.As(err, &lerr) {
		return nil, lerr, nil
	}
	if err != nil {
		return nil, nil, fmt.Errorf("instrumenting: %w", err)
	}
	d.logf("instrumented %d files, added %d", len(files.Replace), len(files.Add))
	pl.Files, pl.Add, pl.Notes, pl.Broken, pl.SitePlan = files.Replace, files.Add, files.Notes, files.Broken, files.Plan
	if pl.Files == nil {
		pl.Files = map[string][]byte{}
	}
	for path, data := range localDeps {
		pl.Files[path] = data
	}
	if err := raceTagFiles(raceTagDirs(pkgs, pl.Replace, ge.GOMODCACHE), pl.Files); err != nil {
		return nil, nil, fmt.Errorf("the race build tag: %w", err)
	}
	return pl, nil, nil
}

// raceTagDirs returns the directories the go command reads the build's
// packages from that the overlay may replace files in: those of the main
// modules and local dependencies, and for a dependency in the module
// cache its instrumented copy (replace). The standard library's and the
// module cache's are left out (racetag.go).
func raceTagDirs(pkgs []listedPackage, replace []replace, modcache string) []string {
	copies := map[string]string{}
	for _, r := range replace {
		copies[r.Old.Path+"@"+r.Old.Version] = r.New.Path
	}
	seen := map[string]bool{}
	var dirs []string
	for _, p := range pkgs {
		if p.Standard || p.Dir == "" || p.Module == nil || isRuntimeDir(p) {
			continue // the race runtime is compiled as in a build without -race
		}
		dir := p.Dir
		if c, ok := copies[p.Module.Path+"@"+p.Module.Version]; ok {
			rel, err := filepath.Rel(p.Module.Dir, p.Dir)
			if err != nil {
				continue
			}
			dir = filepath.Join(c, rel)
		} else if modcache != "" && inDir(dir, modcache) {
			continue
		}
		if !seen[dir] {
			seen[dir] = true
			dirs = append(dirs, dir)
		}
	}
	return dirs
}

// isRuntimeDir reports whether p, a package, a test variant of one ("p
// [p.test]", "p_test [p.test]") or its test main ("p.test"), is in a
// directory of the race runtime's packages.
func isRuntimeDir(p listedPackage) bool {
	path, _, _ := strings.Cut(p.ImportPath, " ")
	path = strings.TrimSuffix(strings.TrimSuffix(path, ".test"), "_test")
	return bigfoot.IsRuntimePackage(path)
}

// syncDir returns the directory of package sync, whose hooks every build
// gets whatever -deps says (spliceSync): the locks of uninstrumented code
// (log's, the standard library's, a dependency left uninstrumented) order
// the instrumented code they call, such as a user's io.Writer that a
// log.Logger writes to from two goroutines. It returns "" if the hooks
// cannot be applied to this toolchain's sync, and says so with -bfv.
func (d *run) syncDir(ge *goEnv) string {
	if ge.GOROOT == "" {
		return ""
	}
	dir := filepath.Join(ge.GOROOT, "src", "sync")
	if err := spliceSync(dir, map[string][]byte{}); err != nil {
		d.logf("sync not modelled inside uninstrumented code: %v", err)
		return ""
	}
	return dir
}

// overlay returns the plan's overlay files: those it holds, and (linked)
// the standard-library packages' instrumented files in stdCache, by the
// original file they replace or add.
func (pl *plan) overlay(stdCache string) (overlayFiles, error) {
	files := overlayFiles{replace: map[string][]byte{}, add: pl.Add, linked: map[string]string{}}
	for path, data := range pl.Files {
		files.replace[path] = data
	}
	linked := files.linked
	for _, ref := range pl.Std {
		e := readStdEntry(stdCache, ref.Path)
		if e == nil || e.Excluded != "" {
			return overlayFiles{}, fmt.Errorf("the instrumented standard library's cache lost %s", ref.Path)
		}
		for _, name := range e.Names {
			linked[filepath.Join(ref.Dir, name)] = filepath.Join(stdFilesDir(stdCache, ref.Path), name)
		}
	}
	if pl.SyncDir != "" {
		if err := spliceSync(pl.SyncDir, files.replace); err != nil {
			return overlayFiles{}, fmt.Errorf("sync hooks: %w", err)
		}
	}
	if pl.SyscallDir != "" {
		if err := spliceSyscall(pl.SyscallDir, files); err != nil {
			return overlayFiles{}, fmt.Errorf("syscall hooks: %w", err)
		}
	}
	if pl.RaceCountRoot != "" {
		rc, err := raceCountFiles(pl.RaceCountRoot)
		if err != nil {
			return overlayFiles{}, err
		}
		for path, data := range rc {
			files.replace[path] = data
		}
	}
	if pl.TestingEdgesRoot != "" {
		te, err := testingEdgeFiles(pl.TestingEdgesRoot)
		if err != nil {
			return overlayFiles{}, err
		}
		for path, data := range te {
			if _, ok := linked[path]; ok {
				// Instrumented with the standard library: its
				// channels and go statements have their hooks.
				continue
			}
			files.replace[path] = data
		}
	}
	if pl.RuntimeDir != "" {
		rt, err := runtimePatches(pl.RuntimeDir, pl.AllocVersions)
		if err != nil {
			return overlayFiles{}, err
		}
		for path, data := range rt {
			files.replace[path] = data
		}
	}
	return files, nil
}

// planOverlay returns the overlay file of the plan cached in planFile.
func planOverlay(planFile string) string {
	return filepath.Join(strings.TrimSuffix(planFile, ".json")+".overlay", "overlay.json")
}

// overlayComplete reports whether the overlay file exists and every file it
// names does.
func overlayComplete(overlay string) bool {
	data, err := os.ReadFile(overlay)
	if err != nil {
		return false
	}
	var ov struct{ Replace map[string]string }
	if json.Unmarshal(data, &ov) != nil {
		return false
	}
	for _, f := range ov.Replace {
		if _, err := os.Stat(f); err != nil {
			return false
		}
	}
	return true
}

// readPlan returns the plan cached in file if everything it refers to is
// still cached, or nil. The standard library's cache matters only while
// the plan's overlay is not written.
func readPlan(file, stdCache string) *plan {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil
	}
	var pl plan
	if json.Unmarshal(data, &pl) != nil {
		return nil
	}
	for _, r := range pl.Replace {
		if _, err := os.Stat(filepath.Join(r.New.Path, "go.mod")); err != nil {
			return nil
		}
	}
	if overlayComplete(planOverlay(file)) {
		return &pl
	}
	for _, ref := range pl.Std {
		if e := readStdEntry(stdCache, ref.Path); e == nil || e.Excluded != "" {
			return nil
		}
	}
	return &pl
}

// volatileEnv are environment variables that never change what is built.
var volatileEnv = map[string]bool{"PWD": true, "OLDPWD": true, "SHLVL": true, "_": true}

// planKey hashes every input of the plan: the bigfoot binary, the command
// line's mode, scope, patterns, loading flags and verb, the environment,
// the go env, the user's workspace, and the name, size and modification
// time of every file in the main modules and in the directories they or
// the workspace replace modules by.
func (d *run) planKey(ws *workspace, ge *goEnv, patterns []string) (string, error) {
	h := sha256.New()
	fmt.Fprintf(h, "bigfoot %s\nmode %s\ndeps %s\ntests %v\ndir %s\n", d.cfg.version(), d.inv.Mode, d.inv.Deps, d.inv.Verb == "test", d.dir)
	fmt.Fprintf(h, "patterns %q\nflags %q\n", patterns, d.inv.BuildFlags)
	env := append([]string{}, d.cfg.Env...) // the user's: d.env names the temporary go.work
	sort.Strings(env)
	for _, kv := range env {
		if k, _, _ := strings.Cut(kv, "="); !volatileEnv[k] {
			fmt.Fprintf(h, "env %s\n", kv)
		}
	}
	gej, _ := json.Marshal(ge)
	fmt.Fprintf(h, "goenv %s\n", gej)
	wsj, _ := json.Marshal(ws)
	fmt.Fprintf(h, "workspace %s\n", wsj)
	dirs := append([]string{}, ws.Use...)
	for _, r := range ws.Replace {
		if r.New.Version == "" {
			dirs = append(dirs, r.New.Path)
		}
	}
	for _, dir := range ws.Use {
		dirs = append(dirs, replacedDirs(dir)...)
	}
	if ge.GOWORK != "" && ge.GOWORK != "off" {
		if err := hashFile(h, ge.GOWORK); err != nil {
			return "", err
		}
	}
	for _, dir := range dirs {
		if err := hashTree(h, dir); err != nil {
			return "", err
		}
	}
	return fmt.Sprintf("%x", h.Sum(nil))[:32], nil
}

// replacedDirs returns the directories the go.mod in dir replaces modules
// by, absolute.
func replacedDirs(dir string) []string {
	data, err := os.ReadFile(filepath.Join(dir, "go.mod"))
	if err != nil {
		return nil
	}
	f, err := modfile.ParseLax("go.mod", data, nil)
	if err != nil {
		return nil
	}
	var dirs []string
	for _, r := range f.Replace {
		if r.New.Version != "" {
			continue
		}
		p := r.New.Path
		if !filepath.IsAbs(p) {
			p = filepath.Join(dir, p)
		}
		dirs = append(dirs, filepath.Clean(p))
	}
	return dirs
}

// hashFile hashes the name, size and modification time of a file.
func hashFile(h interface{ Write([]byte) (int, error) }, file string) error {
	fi, err := os.Stat(file)
	if err != nil {
		return err
	}
	fmt.Fprintf(h, "file %s %d %d\n", file, fi.Size(), fi.ModTime().UnixNano())
	return nil
}

// hashTree hashes the name, size and modification time of every file
// under dir, except in directories the go command ignores (starting with
// "." or "_", and testdata).
func hashTree(h interface{ Write([]byte) (int, error) }, dir string) error {
	return filepath.WalkDir(dir, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := e.Name()
		if e.IsDir() {
			if p != dir && (strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || name == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		fi, err := e.Info()
		if err != nil {
			return err
		}
		fmt.Fprintf(h, "file %s %d %d\n", p, fi.Size(), fi.ModTime().UnixNano())
		return nil
	})
}
