package driver

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"golang.org/x/mod/modfile"
	"golang.org/x/mod/module"
)

// Dependencies (docs/build.md, "Dependencies and the standard library").
//
// The go command refuses -overlay replacements of files in the module
// cache, so a dependency module found there is instrumented in a copy: the
// module's files are hard-linked (or copied) into
// <cache>/mod/<key>/<module>@<version>/, the instrumented files replace
// their links there, and the temporary go.work replaces the module at that
// version by the copy. The key names the bigfoot binary, the mode, the
// target and the build tags, so a copy is instrumented once and reused by
// every later build, and the go command's build cache, which hashes each
// package's directory, keeps working. A dependency outside the module
// cache (a directory replacement) is instrumented through the overlay on
// every run, like the main module.
//
// The instrumenter rewrites only main-module packages; it is run on the
// dependencies in a second temporary workspace that uses the original
// dependency directories as modules, next to the user's modules (which
// keep the selected versions unchanged).

// A listedPackage is what go list -deps -json reports of one package.
type listedPackage struct {
	ImportPath string
	Name       string
	Dir        string
	Standard   bool
	ForTest    string
	Imports    []string
	Module     *listedModule
	DepOnly    bool // no pattern names it
}

// A listedModule is the module of a listed package.
type listedModule struct {
	Path      string
	Version   string
	Dir       string
	Main      bool
	GoVersion string
	Replace   *listedModule
}

// A depModule is a dependency module and the packages the build needs
// from it.
type depModule struct {
	Path, Version string // the module and its selected version
	srcVersion    string // the version of the files in Dir (a replacement's)
	Dir           string // where the go command reads it from
	local         bool   // Dir is outside the module cache: instrumented through the overlay
	copy          string // for a module in the module cache: its instrumented copy
	// synthesized says the module has no go.mod in the module cache: the
	// instrumenter loads it from src, a pristine copy with the go.mod the
	// go command assumes (a workspace module needs one), never from copy,
	// whose files are being replaced by their instrumented versions.
	synthesized bool
	src         string
	pkgs        []string
	missing     []string // packages not yet instrumented in copy
}

// depsResult is what instrumenting the dependencies adds to the build.
type depsResult struct {
	replace []replace         // module version => instrumented copy
	overlay map[string][]byte // instrumented files of dependencies outside the module cache
}

// listPackages runs go list -deps on the invocation's patterns in the
// workspace env and returns every package of the build.
func (d *run) listPackages(ctx context.Context, env []string, patterns []string) ([]listedPackage, error) {
	args := []string{"list", "-e", "-deps", "-json=ImportPath,Name,Dir,Standard,ForTest,Imports,Module,DepOnly"}
	if d.inv.Verb == "test" {
		args = append(args, "-test")
	}
	args = append(append(args, d.loadFlags...), patterns...)
	out, err := runQuiet(ctx, d.cfg.GoCmd, d.dir, env, args...)
	if err != nil {
		return nil, fmt.Errorf("listing the build's packages: %w", err)
	}
	var pkgs []listedPackage
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var p listedPackage
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			return nil, fmt.Errorf("parsing go list output: %w", err)
		}
		pkgs = append(pkgs, p)
	}
	return pkgs, nil
}

// dependencyModules groups the packages of non-main modules by module.
// Test variants and main packages are left out: dependencies are built as
// plain imported packages.
func dependencyModules(pkgs []listedPackage, modcache string) []*depModule {
	byPath := map[string]*depModule{}
	var mods []*depModule
	for _, p := range pkgs {
		m := p.Module
		if p.Standard || m == nil || m.Main || p.ForTest != "" || p.Name == "main" || m.Dir == "" {
			continue
		}
		dm := byPath[m.Path]
		if dm == nil {
			// Version is the selected version, which the copy replaces
			// (a replacement's own version may differ).
			dm = &depModule{Path: m.Path, Version: m.Version, srcVersion: m.Version, Dir: filepath.Clean(m.Dir)}
			if m.Replace != nil {
				dm.srcVersion = m.Replace.Version
			}
			dm.local = modcache == "" || !inDir(dm.Dir, modcache) || dm.srcVersion == ""
			byPath[m.Path] = dm
			mods = append(mods, dm)
		}
		dm.pkgs = append(dm.pkgs, p.ImportPath)
	}
	sort.Slice(mods, func(i, j int) bool { return mods[i].Path < mods[j].Path })
	return mods
}

// inDir reports whether path lies in dir.
func inDir(path, dir string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// instrumentDeps instruments the dependency modules among pkgs, the
// packages of the build. ws and rtDir describe the user's workspace and
// the runtime module. known holds the facts of the packages instrumented
// so far (the standard library's); instrumentDeps adds the dependencies'.
func (d *run) instrumentDeps(ctx context.Context, ws *workspace, rtDir string, ge *goEnv, pkgs []listedPackage, known facts) (*depsResult, error) {
	var err error
	res := &depsResult{overlay: map[string][]byte{}}
	mods := dependencyModules(pkgs, ge.GOMODCACHE)
	if len(mods) == 0 {
		return res, nil
	}
	key := d.depsKey(ge)
	var usable []*depModule
	workReplaced := map[string]bool{}
	for _, r := range ws.Replace {
		workReplaced[r.Old.Path] = true
	}
	for _, m := range mods {
		if !m.local && workReplaced[m.Path] {
			// A second replacement in go.work would conflict with the user's.
			d.depNote("%s: replaced by a module version in go.work: left uninstrumented", m.Path)
			continue
		}
		m.synthesized = !m.local && !hasGoMod(m.Dir)
		if !m.synthesized && !declaresModule(m.Dir, m.Path) {
			d.depNote("%s: its directory has no go.mod declaring it: left uninstrumented", m.Path)
			continue
		}
		if !m.local {
			if d.cfg.CacheDir == "" && !m.synthesized {
				m.local = true
			} else if d.cfg.CacheDir == "" {
				d.depNote("%s@%s: no go.mod and no cache for a copy that has one: left uninstrumented", m.Path, m.Version)
				continue
			} else if m.copy, err = d.moduleCopy(m, key); err != nil {
				d.depNote("%s@%s: %v: left uninstrumented", m.Path, m.Version, err)
				continue
			}
		}
		if m.local {
			m.missing = m.pkgs
		} else {
			m.missing = missingPackages(m.copy, m.pkgs)
		}
		usable = append(usable, m)
	}
	for _, m := range usable {
		if !m.local {
			m.readFacts(known)
		}
	}
	if err := d.instrumentModules(ctx, ws, rtDir, usable, res.overlay, known); err != nil {
		// The build goes on with the dependencies as they are.
		d.depNote("dependencies left uninstrumented: %v", err)
		return &depsResult{overlay: map[string][]byte{}}, nil
	}
	for _, m := range usable {
		if !m.local {
			res.replace = append(res.replace, replace{Old: modVersion{m.Path, m.Version}, New: modVersion{Path: m.copy}})
		}
	}
	d.logf("dependencies: %d modules instrumented", len(usable))
	return res, nil
}

// depNote prints a remark about the dependencies with -bfv.
func (d *run) depNote(format string, args ...any) {
	d.logf("deps: "+format, args...)
}

// loadDir is the directory the instrumenter loads m from: its own, or for
// a module without a go.mod its pristine copy, which has one.
func (m *depModule) loadDir() string {
	if m.synthesized {
		return m.src
	}
	return m.Dir
}

// hasGoMod reports whether dir has a go.mod file. A module published
// without one (before modules, or never converted) is one the go command
// gives a go.mod of its own: "module <path>", no go line, no requirements
// (cmd/go/internal/modfetch, the .mod file of such a version).
func hasGoMod(dir string) bool {
	_, err := os.Stat(filepath.Join(dir, "go.mod"))
	return err == nil
}

// synthesizedGoMod is the go.mod the go command assumes for the module
// path published without one.
func synthesizedGoMod(path string) []byte {
	return []byte("module " + modfile.AutoQuote(path) + "\n")
}

// declaresModule reports whether dir/go.mod declares module path.
func declaresModule(dir, path string) bool {
	data, err := os.ReadFile(filepath.Join(dir, "go.mod"))
	return err == nil && modfile.ModulePath(data) == path
}

// depsKey names the cache of instrumented dependencies for this build:
// the bigfoot binary, the mode, the toolchain, the target and the tags.
func (d *run) depsKey(ge *goEnv) string {
	h := sha256.New()
	fmt.Fprintf(h, "bigfoot %s\nmode %s\ngo %s\ntarget %s/%s\nruntime hooks %v\nsyscall io %v\n", d.cfg.version(), d.inv.Mode, ge.GOVERSION, ge.GOOS, ge.GOARCH, d.hooks, d.syscallIO)
	for _, f := range d.loadFlags {
		fmt.Fprintf(h, "flag %s\n", f)
	}
	return fmt.Sprintf("%x", h.Sum(nil))[:16]
}

// version identifies the instrumenter: Config.Version, or a hash of the
// bigfoot executable's content, so that two copies of one binary share
// their caches. The hash is remembered in the cache directory by the
// executable's path, size and modification time.
func (c *Config) version() string {
	if c.Version != "" {
		return c.Version
	}
	exe, err := os.Executable()
	if err != nil {
		return "unknown"
	}
	fi, err := os.Stat(exe)
	if err != nil {
		return exe
	}
	stamp := fmt.Sprintf("%s %d %d", exe, fi.Size(), fi.ModTime().UnixNano())
	memo := ""
	if c.CacheDir != "" {
		memo = filepath.Join(c.CacheDir, "exe", shortHash(stamp))
		if data, err := os.ReadFile(memo); err == nil && len(data) > 0 {
			return string(data)
		}
	}
	f, err := os.Open(exe)
	if err != nil {
		return stamp
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return stamp
	}
	sum := fmt.Sprintf("%x", h.Sum(nil))[:24]
	if memo != "" {
		writeFileAtomic(memo, []byte(sum)) // a cache: failure only costs a hash next time
	}
	return sum
}

// moduleCopy returns the directory of m's copy under key, creating it
// (hard links to the module cache's files) if needed.
func (d *run) moduleCopy(m *depModule, key string) (string, error) {
	ep, err := module.EscapePath(m.Path)
	if err != nil {
		return "", err
	}
	ev, err := module.EscapeVersion(m.srcVersion)
	if err != nil {
		return "", err
	}
	if m.synthesized {
		// The sources are the same for every key: one pristine copy.
		src := filepath.Join(d.cfg.CacheDir, "mod", "src", filepath.FromSlash(ep)+"@"+ev)
		d.cacheUsed(src)
		if err := copyModule(m, src); err != nil {
			return "", err
		}
		m.src = src
	}
	dir := filepath.Join(d.cfg.CacheDir, "mod", key, filepath.FromSlash(ep)+"@"+ev)
	d.cacheUsed(dir)
	return dir, copyModule(m, dir)
}

// copyModule makes dir a copy of m's tree, with the go.mod the go command
// assumes where m has none, unless dir exists. The copy is made beside dir
// and renamed into place, so that concurrent bigfoot processes see either
// none or all of it.
func copyModule(m *depModule, dir string) error {
	if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(dir), 0o777); err != nil {
		return fmt.Errorf("copying the module: %w", err)
	}
	part, err := os.MkdirTemp(filepath.Dir(dir), ".partial-")
	if err != nil {
		return fmt.Errorf("copying the module: %w", err)
	}
	defer os.RemoveAll(part)
	if err := linkTree(m.Dir, part); err != nil {
		return fmt.Errorf("copying the module: %w", err)
	}
	if m.synthesized {
		if err := os.WriteFile(filepath.Join(part, "go.mod"), synthesizedGoMod(m.Path), 0o666); err != nil {
			return fmt.Errorf("copying the module: %w", err)
		}
	}
	if err := os.Rename(part, dir); err != nil {
		if _, serr := os.Stat(filepath.Join(dir, "go.mod")); serr != nil {
			return fmt.Errorf("copying the module: %w", err)
		}
		// Another bigfoot made the same copy first.
	}
	return nil
}

// linkTree makes dst a copy of the tree src: files are hard-linked where
// the file system allows, copied otherwise; directories are writable.
func linkTree(src, dst string) error {
	return filepath.WalkDir(src, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		target := filepath.Join(dst, rel)
		switch {
		case e.IsDir():
			return os.MkdirAll(target, 0o777)
		case !e.Type().IsRegular():
			return nil // symbolic links and the like do not occur in the module cache
		}
		if os.Link(p, target) == nil {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(target, data, 0o666)
	})
}

// markerDir holds, in a module copy, one file per instrumented package,
// whose content is the package's facts (possibly none).
const markerDir = ".bigfoot"

func markerFile(copyDir, pkg string) string {
	return filepath.Join(copyDir, markerDir, url.PathEscape(pkg))
}

// readFacts adds to known the facts of m's packages already instrumented
// in its copy.
func (m *depModule) readFacts(known facts) {
	missing := map[string]bool{}
	for _, p := range m.missing {
		missing[p] = true
	}
	for _, p := range m.pkgs {
		if !missing[p] {
			if data, err := os.ReadFile(markerFile(m.copy, p)); err == nil && len(data) > 0 {
				known[p] = data
			}
		}
	}
}

// missingPackages returns the packages of pkgs not yet instrumented in the
// copy.
func missingPackages(copyDir string, pkgs []string) []string {
	var missing []string
	for _, p := range pkgs {
		if _, err := os.Stat(markerFile(copyDir, p)); err != nil {
			missing = append(missing, p)
		}
	}
	return missing
}

// instrumentModules runs the instrumenter on the packages of mods not yet
// instrumented, writes the results into the copies (or, for modules outside
// the module cache, into overlay) and marks the packages done.
func (d *run) instrumentModules(ctx context.Context, ws *workspace, rtDir string, mods []*depModule, overlay map[string][]byte, known facts) error {
	var patterns []string
	for _, m := range mods {
		patterns = append(patterns, m.missing...)
	}
	if len(patterns) == 0 {
		return nil
	}
	work := filepath.Join(d.tmp, "deps.work")
	if err := writeDepsWorkspace(work, ws, rtDir, d.userWork, mods); err != nil {
		return err
	}
	d.logf("instrumenting %d packages of %d dependency modules", len(patterns), len(mods))
	files, err := d.cfg.Instrument(ctx, Request{
		Dir:          d.dir,
		Patterns:     patterns,
		BuildFlags:   d.loadFlags,
		Env:          setEnv(d.env, "GOWORK", work),
		Mode:         d.inv.Mode,
		Facts:        known.list(),
		RuntimeHooks: d.hooks,
		SyncOnce:     d.syncOnce,
		SyscallIO:    d.syscallIO,
	})
	if err != nil {
		return err
	}
	if d.inv.Verbose {
		d.printNotes(files.Notes)
	}
	for p, f := range files.Facts {
		known[p] = f
	}
	for _, set := range []map[string][]byte{files.Replace, files.Add} {
		for path, data := range set {
			m := owner(mods, path)
			if m == nil {
				continue // a main-module file: instrumented by the main pass
			}
			if m.local {
				overlay[path] = data
				continue
			}
			rel, err := filepath.Rel(m.loadDir(), path)
			if err != nil {
				return err
			}
			if err := writeFileAtomic(filepath.Join(m.copy, rel), data); err != nil {
				return fmt.Errorf("writing the instrumented copy of %s: %w", m.Path, err)
			}
		}
	}
	for _, m := range mods {
		if m.local {
			continue
		}
		for _, p := range m.missing {
			f := markerFile(m.copy, p)
			if err := os.MkdirAll(filepath.Dir(f), 0o777); err != nil {
				return err
			}
			if err := writeFileAtomic(f, files.Facts[p]); err != nil {
				return err
			}
		}
	}
	return nil
}

// owner returns the module of mods whose directory holds path.
func owner(mods []*depModule, path string) *depModule {
	var best *depModule
	for _, m := range mods {
		if inDir(path, m.loadDir()) && (best == nil || len(m.loadDir()) > len(best.loadDir())) {
			best = m
		}
	}
	return best
}

// writeDepsWorkspace writes the workspace the instrumenter loads the
// dependencies in: the user's modules, the runtime and the dependency
// modules' own directories, so that their packages are main-module
// packages to the instrumenter. The user's replacements of those modules
// are left out (a workspace module may not also be replaced).
func writeDepsWorkspace(file string, ws *workspace, rtDir, userWork string, mods []*depModule) error {
	dw := &workspace{GoVersion: ws.GoVersion, Use: append([]string{}, ws.Use...)}
	used := map[string]bool{}
	for _, m := range mods {
		dw.Use = appendUnique(dw.Use, m.loadDir())
		used[m.Path] = true
	}
	for _, r := range ws.Replace {
		if !used[r.Old.Path] {
			dw.Replace = append(dw.Replace, r)
		}
	}
	return writeWorkspace(file, dw, rtDir, userWork, nil)
}

// writeFileAtomic writes data to path through a temporary file and a
// rename, so that a concurrent build never reads a partial file; it
// replaces a hard link without touching the file it pointed to.
func writeFileAtomic(path string, data []byte) error {
	if old, err := os.ReadFile(path); err == nil && bytes.Equal(old, data) {
		if fi, err := os.Stat(path); err == nil && fi.Mode().Perm()&0o200 != 0 {
			return nil // already written by us
		}
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o777); err != nil {
		return err
	}
	f, err := os.CreateTemp(filepath.Dir(path), ".bf-tmp-")
	if err != nil {
		return err
	}
	_, werr := f.Write(data)
	cerr := f.Close()
	if err := errors.Join(werr, cerr); err != nil {
		os.Remove(f.Name())
		return err
	}
	if err := os.Chmod(f.Name(), 0o666); err != nil {
		os.Remove(f.Name())
		return err
	}
	if err := os.Rename(f.Name(), path); err != nil {
		os.Remove(f.Name())
		return err
	}
	return nil
}
