package instrument

import (
	"context"
	"encoding/json"
	"fmt"
	"go/version"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/bigfoot-go/bigfoot"
	"github.com/bigfoot-go/bigfoot/mode"
	"golang.org/x/mod/modfile"
)

// copyTree copies the regular files of src into dst, skipping _test.go
// files when noTests is set.
func copyTree(t testing.TB, src, dst string, keep func(rel string) bool) {
	t.Helper()
	err := filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, path)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		if keep != nil && !keep(rel) {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

var (
	runtimeOnce sync.Once
	runtimeErr  error
)

// checkRuntime fails the test unless the runtime's packages build:
// instrumented code is always compiled and run against the real runtime.
func checkRuntime(t testing.TB) {
	t.Helper()
	runtimeOnce.Do(func() {
		cmd := exec.Command("go", "build", "./detector/...", "./shadow/...", "./internal/spin/")
		cmd.Dir = ".."
		if out, err := cmd.CombinedOutput(); err != nil {
			runtimeErr = fmt.Errorf("the runtime does not build: %v\n%s", err, out)
		}
	})
	if runtimeErr != nil {
		t.Fatal(runtimeErr)
	}
}

func tail(s string, n int) string {
	lines := strings.Split(s, "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// workspace is a temporary build setup: the user's module, the runtime
// module and a go.work using both, plus the overlay of an instrumentation.
type workspace struct {
	root    string
	mod     string // the user's module directory
	overlay string // overlay.json
	env     []string
	mode    string // instrumentation mode's name; "" is fasttrack
}

// newWorkspace copies the module in srcDir into a temporary directory.
func newWorkspace(t testing.TB, srcDir string) *workspace {
	t.Helper()
	root := t.TempDir()
	w := &workspace{root: root, mod: filepath.Join(root, "m")}
	copyTree(t, srcDir, w.mod, nil)
	if _, err := os.Stat(filepath.Join(w.mod, "go.mod")); err != nil {
		os.WriteFile(filepath.Join(w.mod, "go.mod"), []byte("module example.com/m\n\ngo 1.26.0\n"), 0o644)
	}
	checkRuntime(t)
	rt := filepath.Join(root, "rt")
	// The runtime's sources as the driver ships them (bigfoot.Runtime).
	err := fs.WalkDir(bigfoot.Runtime(), ".", func(rel string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || strings.Contains(rel, "testdata") ||
			!(strings.HasSuffix(rel, ".go") && !strings.HasSuffix(rel, "_test.go") || strings.HasSuffix(rel, ".s")) {
			return err
		}
		data, err := fs.ReadFile(bigfoot.Runtime(), rel)
		if err != nil {
			return err
		}
		dst := filepath.Join(rt, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(dst), 0o777); err != nil {
			return err
		}
		return os.WriteFile(dst, data, 0o644)
	})
	if err != nil {
		t.Fatalf("writing the runtime: %v", err)
	}
	os.WriteFile(filepath.Join(rt, "go.mod"), []byte("module github.com/bigfoot-go/bigfoot\n\ngo 1.24\n"), 0o644)
	os.WriteFile(filepath.Join(root, "go.work"), []byte("go "+workGo(t, w.mod)+"\n\nuse (\n\t./m\n\t./rt\n)\n"), 0o644)
	w.env = append(os.Environ(), "GOWORK="+filepath.Join(root, "go.work"), "GOFLAGS=", "GOPROXY=off", "GOMAXPROCS=2")
	return w
}

// workGo returns the go line of the workspace's go.work: go 1.26.0, or
// the module's own go line where that is newer (a module the go command
// gave a go line, with go mod init or go mod tidy, gets the toolchain's),
// since the go command refuses a go.work older than a module it uses.
func workGo(t testing.TB, mod string) string {
	t.Helper()
	const min = "1.26.0"
	data, err := os.ReadFile(filepath.Join(mod, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	f, err := modfile.ParseLax("go.mod", data, nil)
	if err != nil {
		t.Fatal(err)
	}
	if f.Go != nil && version.Compare("go"+f.Go.Version, "go"+min) > 0 {
		return f.Go.Version
	}
	return min
}

// instrument runs the instrumenter on the workspace's module and writes the
// overlay.
func (w *workspace) instrument(t testing.TB, tests bool, patterns ...string) *Result {
	t.Helper()
	if len(patterns) == 0 {
		patterns = []string{"./..."}
	}
	env := append(os.Environ(), "GOFLAGS=", "GOWORK=off", "GOPROXY=off")
	m := mode.FastTrack
	if w.mode != "" {
		var err error
		if m, err = mode.Parse(w.mode); err != nil {
			t.Fatal(err)
		}
	}
	res, err := Run(context.Background(), Config{Dir: w.mod, Patterns: patterns, Tests: tests, Env: env, Mode: m})
	if err != nil {
		t.Fatalf("instrument: %v", err)
	}
	ov := map[string]string{}
	out := filepath.Join(w.root, "overlay")
	os.MkdirAll(out, 0o755)
	n := 0
	write := func(m map[string][]byte) {
		for path, b := range m {
			n++
			// A directory per file keeps its name for the compiler's
			// messages; a name made of the path collided (a module's
			// v2_options.go and its package v2's options.go).
			dir := filepath.Join(out, strconv.Itoa(n))
			p := filepath.Join(dir, filepath.Base(path))
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, b, 0o644); err != nil {
				t.Fatal(err)
			}
			ov[path] = p
		}
	}
	write(res.Replace)
	write(res.Add)
	b, _ := json.Marshal(map[string]any{"Replace": ov})
	w.overlay = filepath.Join(w.root, "overlay.json")
	os.WriteFile(w.overlay, b, 0o644)
	return res
}

// goCmd runs the go command in the module with the overlay (if any).
func (w *workspace) goCmd(t testing.TB, overlay bool, args ...string) (string, error) {
	t.Helper()
	if overlay && len(args) > 0 {
		args = append([]string{args[0], "-overlay", w.overlay}, args[1:]...)
	}
	cmd := exec.Command("go", args...)
	cmd.Dir = w.mod
	cmd.Env = w.env
	out, err := cmd.CombinedOutput()
	return string(out), err
}
