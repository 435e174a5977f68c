package driver

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
)

// Runtime patches that cannot break a build.
//
// The files and patches bigfoot gives package runtime (the GC count, the
// allocation versions, the user's environment, the hooks at a program's
// exit and at a goroutine's start and end) use the
// runtime's internals, which change between Go releases without notice.
// A patch whose anchor text is missing is left out (each says so with
// -bfv); one whose anchor still matches but whose code no longer compiles
// would fail every build. So before a build gets them, the driver
// compiles package runtime with them once per toolchain, and caches the
// outcome (runtimeCheck):
//
//   - the allocation versions go in only for a Go version listed in
//     allocVersionGoVersions, which they were tested on, and only if the
//     runtime compiles with every patch;
//   - otherwise the runtime is compiled with the other patches alone, and
//     without the versions the shadow proves an object's identity by weak
//     pointers (shadow/ident.go), the portable path: the same verdicts,
//     more time in the shadow; the build says so in one line on stderr
//     the first time (runtimeNotice);
//   - if that does not compile either, package runtime is left as it is:
//     GC cycles are counted through runtime/metrics, and the instrumented
//     code does without the runtime's hooks (Request.RuntimeHooks): main.main
//     and go statements get wrappers instead.
//
// The decision is made before anything is instrumented, since the
// instrumented code depends on it (run.do).

// runtimeCheckVersion names the way runtimeCheck decides, in its cache
// key: a change to what is checked must not reuse old outcomes.
const runtimeCheckVersion = "1"

// runtimePatchPlan decides which of bigfoot's runtime patches the build
// gets: it returns the runtime's directory ("" for none) and whether the
// allocation versions are among them.
func (d *run) runtimePatchPlan(ctx context.Context, ge *goEnv) (dir string, versions bool) {
	dir, err := gcCountDir(ge.GOROOT)
	if err != nil {
		d.logf("GC cycles counted through runtime/metrics: %v", err)
		return "", false
	}
	why := allocVersionTested(ge.GOVERSION)
	told := false
	if why == nil {
		fresh, err := d.runtimeCheck(ctx, ge, dir, true)
		if err == nil {
			return dir, true
		}
		d.logf("allocation versions: %v", err)
		why = fmt.Errorf("the runtime of %s does not take them (bigfoot -bfv says why)", ge.GOVERSION)
		told = fresh
	}
	fresh, err := d.runtimeCheck(ctx, ge, dir, false)
	d.runtimeNotice(why, told || fresh)
	if err != nil {
		d.logf("package runtime left as it is: %v", err)
		return "", false
	}
	return dir, false
}

// runtimeNotice says that the build goes without the allocation versions,
// and why: with -bfv at every build, and without it on stderr the first
// time the toolchain is checked (fresh). go build -race prints nothing
// there, but a build slower than it could be, on a toolchain the patch
// was not tested on, should not be silent either; once is enough.
func (d *run) runtimeNotice(why error, fresh bool) {
	msg := fmt.Sprintf("allocation versions off, object identity proven by weak pointers (slower): %v", why)
	if d.inv.Verbose {
		d.logf("%s", msg)
	} else if fresh {
		fmt.Fprintf(d.cfg.Stderr, "bigfoot: %s; docs/build.md, \"Runtime patches\"\n", msg)
	}
}

// A runtimeCheckEntry is the cached outcome of compiling package runtime
// with one set of patches.
type runtimeCheckEntry struct {
	Err string // "" if it compiled
}

// runtimeCheck reports whether package runtime in dir compiles with
// bigfoot's patches (the allocation versions among them if versions is
// set): err is nil if it does. fresh says the outcome was not in the cache: the
// check ran in this build.
//
// The outcome is cached under a key of everything it depends on: the
// toolchain (version, GOROOT, target, GOEXPERIMENT) and the content of
// every patched file, so that a change of bigfoot's patches or of the
// toolchain's runtime sources checks again, and a new bigfoot binary with
// the same patches does not.
func (d *run) runtimeCheck(ctx context.Context, ge *goEnv, dir string, versions bool) (fresh bool, err error) {
	files, perr := runtimePatches(dir, versions)
	key := runtimeCheckKey(ge, getenv(d.cfg.Env, "GOEXPERIMENT"), files, perr)
	file := ""
	if d.cfg.CacheDir != "" {
		file = filepath.Join(d.cfg.CacheDir, "runtime-check", key+".json")
		d.cacheUsed(file)
		var e runtimeCheckEntry
		if data, err := os.ReadFile(file); err == nil && json.Unmarshal(data, &e) == nil {
			if e.Err != "" {
				return false, fmt.Errorf("%s", e.Err)
			}
			return false, nil
		}
	}
	err = perr
	if err == nil {
		d.logf("compiling package runtime with bigfoot's patches (once per toolchain)")
		err = compileRuntime(ctx, ge, d.cfg.Env, d.tmp, files)
	}
	if file != "" {
		e := runtimeCheckEntry{}
		if err != nil {
			e.Err = err.Error()
		}
		if data, jerr := json.Marshal(e); jerr == nil {
			writeFileAtomic(file, data) // a cache: failure costs a check next time
		}
	}
	return true, err
}

// runtimeCheckKey hashes the inputs of a runtime check: the toolchain,
// and the patched files (or the reason there are none).
func runtimeCheckKey(ge *goEnv, goexperiment string, files map[string][]byte, perr error) string {
	h := sha256.New()
	fmt.Fprintf(h, "check %s\ngo %s\ngoroot %s\ntarget %s/%s\ngoexperiment %s\n", runtimeCheckVersion, ge.GOVERSION, ge.GOROOT, ge.GOOS, ge.GOARCH, goexperiment)
	if perr != nil {
		fmt.Fprintf(h, "error %s\n", perr)
	}
	paths := make([]string, 0, len(files))
	for p := range files {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	for _, p := range paths {
		fmt.Fprintf(h, "file %s %x\n", p, sha256.Sum256(files[p]))
	}
	return fmt.Sprintf("%x", h.Sum(nil))[:32]
}

// compileRuntime compiles package runtime of the toolchain at ge.GOROOT
// for ge's target with files in an overlay, in a directory under tmp. It
// runs that toolchain's own go command, outside any module or workspace,
// so that neither the user's go.mod nor GOTOOLCHAIN picks another.
func compileRuntime(ctx context.Context, ge *goEnv, env []string, tmp string, files map[string][]byte) error {
	dir, err := os.MkdirTemp(tmp, "runtime-check-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	overlay := filepath.Join(dir, "overlay.json")
	if err := writeOverlay(overlay, filepath.Join(dir, "files"), overlayFiles{replace: files}); err != nil {
		return err
	}
	gocmd := filepath.Join(ge.GOROOT, "bin", "go")
	if runtime.GOOS == "windows" {
		gocmd += ".exe"
	}
	for k, v := range map[string]string{"GOWORK": "off", "GOFLAGS": "", "GOTOOLCHAIN": "local", "GOOS": ge.GOOS, "GOARCH": ge.GOARCH} {
		env = setEnv(env, k, v)
	}
	if _, err := runQuiet(ctx, gocmd, dir, env, "build", "-overlay", overlay, "runtime"); err != nil {
		return fmt.Errorf("package runtime does not compile with the patches: %s", strings.ReplaceAll(err.Error(), "\n", "; "))
	}
	return nil
}

// getenv returns the value of key in env (the last setting), or "".
func getenv(env []string, key string) string {
	for i := len(env) - 1; i >= 0; i-- {
		if v, ok := strings.CutPrefix(env[i], key+"="); ok {
			return v
		}
	}
	return ""
}
