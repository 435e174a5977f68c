package corpus

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
)

// Fetch downloads m from the module proxy (go mod download), copies it
// into a new writable directory under parent and resolves the
// dependencies of its packages and tests, so that both tools test the
// same tree with the same go.mod and go.sum. A module without a go.mod (a
// +incompatible or pre-modules version) gets one from go mod init and go
// mod tidy. Fetch returns the directory; log receives the go commands'
// output.
func Fetch(ctx context.Context, m Module, parent string, env []string, log io.Writer) (string, error) {
	out, err := goCmd(ctx, parent, env, log, "mod", "download", "-json", m.String())
	if err != nil {
		return "", fmt.Errorf("go mod download %s: %v", m, err)
	}
	var info struct{ Dir, Error string }
	if err := json.Unmarshal(out, &info); err != nil {
		return "", fmt.Errorf("go mod download %s: %v", m, err)
	}
	if info.Error != "" || info.Dir == "" {
		return "", fmt.Errorf("go mod download %s: %s", m, info.Error)
	}
	dir, err := os.MkdirTemp(parent, "mod-")
	if err != nil {
		return "", err
	}
	if err := copyTree(dir, info.Dir); err != nil {
		return "", fmt.Errorf("copying %s: %v", m, err)
	}
	if err := dropForeignWork(ctx, dir, env, log); err != nil {
		return "", fmt.Errorf("%s: %v", m, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "go.mod")); os.IsNotExist(err) {
		if _, err := goCmd(ctx, dir, env, log, "mod", "init", m.Path); err != nil {
			return "", fmt.Errorf("go mod init %s: %v", m.Path, err)
		}
		if _, err := goCmd(ctx, dir, env, log, "mod", "tidy"); err != nil {
			return "", fmt.Errorf("go mod tidy in %s: %v", m, err)
		}
	}
	if _, err := goCmd(ctx, dir, env, log, "mod", "download"); err != nil {
		return "", fmt.Errorf("go mod download in %s: %v", m, err)
	}
	// Record in go.sum what the packages and tests import; errors (a
	// package that does not build) are the suites' to report.
	goCmd(ctx, dir, env, log, "list", "-mod=mod", "-e", "-deps", "-test", "./...")
	return dir, nil
}

// dropForeignWork removes the go.work (and go.work.sum) of the module
// copy in dir if it uses a directory the copy does not hold as a module: a
// repository's workspace file shipped in the module's zip without the
// repository's other modules, which the go command refuses to load. A
// module fetched from the proxy is then built alone, as a user's go get
// builds it (GOWORK=off).
func dropForeignWork(ctx context.Context, dir string, env []string, log io.Writer) error {
	work := filepath.Join(dir, "go.work")
	if _, err := os.Stat(work); err != nil {
		return nil
	}
	out, err := goCmd(ctx, dir, env, log, "work", "edit", "-json", work)
	if err != nil {
		return fmt.Errorf("reading go.work: %v", err)
	}
	var w struct{ Use []struct{ DiskPath string } }
	if err := json.Unmarshal(out, &w); err != nil {
		return fmt.Errorf("reading go.work: %v", err)
	}
	for _, u := range w.Use {
		p := u.DiskPath
		if !filepath.IsAbs(p) {
			p = filepath.Join(dir, p)
		}
		if _, err := os.Stat(filepath.Join(p, "go.mod")); err == nil {
			continue
		}
		fmt.Fprintf(log, "go.work uses %s, which the module does not hold: removing go.work\n", u.DiskPath)
		os.Remove(work + ".sum")
		return os.Remove(work)
	}
	return nil
}

// goCmd runs the go command in dir and returns its standard output; its
// standard error goes to log.
func goCmd(ctx context.Context, dir string, env []string, log io.Writer, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = dir
	cmd.Env = env
	var out bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = log
	fmt.Fprintf(log, "$ go %v\n", args)
	err := cmd.Run()
	return out.Bytes(), err
}

// copyTree copies the regular files and directories of src into dst,
// writable by the owner (the module cache's are read-only).
func copyTree(dst, src string) error {
	return filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, path)
		if err != nil {
			return err
		}
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		if !d.Type().IsRegular() {
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		return os.WriteFile(target, data, info.Mode().Perm()|0o200)
	})
}

// moduleLogDir is the directory under outDir that holds m's logs.
func moduleLogDir(outDir string, m Module) string {
	return filepath.Join(outDir, filepath.Dir(runLog(m, "", 0)))
}

// setupModule fetches a copy of m under tmp (Fetch), writing the go
// commands' output to setup.log in m's log directory under outDir, or
// nowhere when outDir is empty. It returns the copy's directory, the set-up
// log, for later set-up steps, and done, which removes the copy and closes
// the log; the caller calls done when err is nil.
func setupModule(ctx context.Context, m Module, outDir, tmp string, env []string, progress io.Writer) (dir string, setupLog io.Writer, done func(), err error) {
	setupLog = io.Discard
	closeLog := func() {}
	if outDir != "" {
		logDir := moduleLogDir(outDir, m)
		if err := os.MkdirAll(logDir, 0o755); err != nil {
			return "", nil, nil, err
		}
		f, err := os.Create(filepath.Join(logDir, "setup.log"))
		if err != nil {
			return "", nil, nil, err
		}
		setupLog, closeLog = f, func() { f.Close() }
	}
	fmt.Fprintf(progress, "corpus: %s: fetching\n", m)
	dir, err = Fetch(ctx, m, tmp, env, setupLog)
	if err != nil {
		closeLog()
		return "", nil, nil, err
	}
	return dir, setupLog, func() { os.RemoveAll(dir); closeLog() }, nil
}
