package driver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"golang.org/x/mod/modfile"
)

// errNoModule is reported outside module mode.
var errNoModule = errors.New("bigfoot works on modules; run it inside a module (no go.mod found)")

// goEnv is what the driver needs to know from go env about the user's setup.
type goEnv struct {
	GOMOD     string // the main module's go.mod, "" outside module mode
	GOWORK    string // the active go.work, "" or "off" when none
	GOVERSION string // the toolchain, e.g. "go1.26.8"
	GOFLAGS   string // effective GOFLAGS (environment and go env -w)

	GOMODCACHE string // the module cache: dependencies there are copied, not overlaid
	GOROOT     string // the standard library's root
	GOOS       string // target system and architecture: part of the
	GOARCH     string // key of the instrumented dependencies' cache
}

// readGoEnv runs go env -json in dir.
func readGoEnv(ctx context.Context, gocmd, dir string, env []string) (*goEnv, error) {
	out, err := runQuiet(ctx, gocmd, dir, env, "env", "-json", "GOMOD", "GOWORK", "GOVERSION", "GOFLAGS", "GOMODCACHE", "GOROOT", "GOOS", "GOARCH")
	if err != nil {
		return nil, err
	}
	var e goEnv
	if err := json.Unmarshal(out, &e); err != nil {
		return nil, fmt.Errorf("parsing go env output: %w", err)
	}
	return &e, nil
}

// A workspace describes the modules the temporary go.work must use.
type workspace struct {
	GoVersion string    // for the go line: the toolchain's version
	Use       []string  // absolute module directories, the user's first
	Replace   []replace // replace directives of the user's own go.work
	// Godebug are the godebug settings (key=value) of the temporary
	// go.work: those that make the go command compute the default GODEBUG
	// of a binary exactly as it does without bigfoot (godebugSettings).
	Godebug []string
}

// replace is one replace directive of a go.work file.
type replace struct {
	Old, New modVersion
}

type modVersion struct {
	Path    string
	Version string `json:",omitempty"`
}

// userWorkspace finds the user's main module(s): the module containing dir,
// and when a go.work is active, every module it uses and its replacements.
func userWorkspace(ctx context.Context, gocmd, dir string, env []string, ge *goEnv) (*workspace, error) {
	ws := &workspace{GoVersion: toolchainVersion(ge.GOVERSION)}
	active := ge.GOWORK != "" && ge.GOWORK != "off"
	if ge.GOMOD == "" || (ge.GOMOD == os.DevNull && !active) {
		return nil, errNoModule
	}
	if ge.GOMOD != os.DevNull {
		ws.Use = append(ws.Use, filepath.Dir(ge.GOMOD))
	}
	if active {
		out, err := runQuiet(ctx, gocmd, dir, env, "work", "edit", "-json", ge.GOWORK)
		if err != nil {
			return nil, fmt.Errorf("reading %s: %w", ge.GOWORK, err)
		}
		var wf struct {
			Go      string
			Use     []struct{ DiskPath string }
			Replace []replace
		}
		if err := json.Unmarshal(out, &wf); err != nil {
			return nil, fmt.Errorf("parsing go work edit -json output: %w", err)
		}
		base := filepath.Dir(ge.GOWORK)
		abs := func(p string) string {
			if filepath.IsAbs(p) {
				return filepath.Clean(p)
			}
			return filepath.Join(base, p)
		}
		for _, u := range wf.Use {
			ws.Use = appendUnique(ws.Use, abs(u.DiskPath))
		}
		for _, r := range wf.Replace {
			if r.New.Version == "" { // a directory
				r.New.Path = abs(r.New.Path)
			}
			ws.Replace = append(ws.Replace, r)
		}
		if ws.GoVersion == "" {
			ws.GoVersion = wf.Go
		}
		goLine := wf.Go
		if goLine == "" {
			goLine = defaultGoWorkVersion
		}
		gd, err := workGodebug(ge.GOWORK)
		if err != nil {
			return nil, err
		}
		ws.Godebug = append([]string{"default=go" + goLine}, gd...)
	} else {
		gd, err := modGodebug(ge.GOMOD)
		if err != nil {
			return nil, err
		}
		ws.Godebug = gd
	}
	if len(ws.Use) == 0 {
		return nil, errNoModule
	}
	if ws.GoVersion == "" {
		// A development toolchain: use the main module's go line.
		out, err := runQuiet(ctx, gocmd, dir, env, "list", "-m", "-f", "{{.GoVersion}}")
		if err != nil {
			return nil, err
		}
		ws.GoVersion = strings.TrimSpace(strings.SplitN(string(out), "\n", 2)[0])
	}
	return ws, nil
}

// The go lines the go command assumes where a go.mod or go.work has none
// (gover.DefaultGoModVersion and DefaultGoWorkVersion in cmd/go).
const (
	defaultGoModVersion  = "1.16"
	defaultGoWorkVersion = "1.18"
)

// modGodebug returns the godebug settings that give a build in the
// temporary workspace the default GODEBUG of a build of the module whose
// go.mod is gomod: the go command computes it from the main module's go
// line and godebug lines in module mode, but from the go.work's in
// workspace mode (cmd/go/internal/load/godebug.go, defaultGODEBUG), whose
// go line is the toolchain's. "default=go<the module's go line>" selects
// the module's defaults; the module's own godebug lines follow and win,
// as they do over its go line; //go:debug directives in the main package
// still win over both.
func modGodebug(gomod string) ([]string, error) {
	data, err := os.ReadFile(gomod)
	if err != nil {
		return nil, err
	}
	// The main module's go.mod, parsed strictly: a lax parse drops the
	// godebug lines, which only a main module has. A directive this
	// x/mod does not know leaves the lines out rather than the build.
	f, err := modfile.Parse(gomod, data, nil)
	if err != nil {
		if f, err = modfile.ParseLax(gomod, data, nil); err != nil {
			return nil, err
		}
	}
	goLine := defaultGoModVersion
	if f.Go != nil {
		goLine = f.Go.Version
	}
	gd := []string{"default=go" + goLine}
	for _, g := range f.Godebug {
		gd = append(gd, g.Key+"="+g.Value)
	}
	return gd, nil
}

// workGodebug returns the godebug settings of the go.work file, which go
// work edit -json does not report.
func workGodebug(file string) ([]string, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	f, err := modfile.ParseWork(file, data, nil)
	if err != nil {
		return nil, err
	}
	var gd []string
	for _, g := range f.Godebug {
		gd = append(gd, g.Key+"="+g.Value)
	}
	return gd, nil
}

// toolchainVersion turns "go1.26.8" into "1.26.8", and returns "" for
// versions that are not release versions ("devel ...").
func toolchainVersion(v string) string {
	v = strings.TrimPrefix(v, "go")
	if v == "" || v[0] < '0' || v[0] > '9' {
		return ""
	}
	if i := strings.IndexAny(v, " -+"); i >= 0 {
		v = v[:i]
	}
	return v
}

func appendUnique(list []string, s string) []string {
	for _, x := range list {
		if x == s {
			return list
		}
	}
	return append(list, s)
}

// runQuiet runs the go command with the given arguments and returns its
// standard output; on failure the error carries its standard error.
func runQuiet(ctx context.Context, gocmd, dir string, env []string, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, gocmd, args...)
	cmd.Dir = dir
	cmd.Env = env
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		msg := strings.TrimSpace(stderr.String())
		if msg == "" {
			msg = err.Error()
		}
		return nil, fmt.Errorf("go %s: %s", strings.Join(args, " "), msg)
	}
	return out, nil
}
