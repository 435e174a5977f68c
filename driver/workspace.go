package driver

import (
	"crypto/sha256"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/bigfoot-go/bigfoot"
	"golang.org/x/mod/modfile"
)

// ModulePath is the module path of the runtime the instrumented code imports.
const ModulePath = bigfoot.ModulePath

// runtimeGoVersion is the go line of the temporary runtime module. It has no
// requirements, so that it never changes the versions the user's build
// selects (docs/api.md).
const runtimeGoVersion = "1.24"

// runtimeDir returns a directory holding the runtime sources of rt as
// module ModulePath, writing it if needed.
//
// The directory is named by a hash of the sources and kept between runs in
// cache, because the go command hashes a package's directory into its
// build-cache key: a fresh directory per run would recompile the runtime and
// every instrumented package each time. If cache is "", the runtime goes
// into tmp.
func runtimeDir(rt fs.FS, cache, tmp string) (string, error) {
	files, err := runtimeFiles(rt)
	if err != nil {
		return "", err
	}
	h := sha256.New()
	for _, f := range files {
		fmt.Fprintf(h, "%s %d\n", f.name, len(f.data))
		h.Write(f.data)
	}
	sum := fmt.Sprintf("%x", h.Sum(nil))[:20]

	if cache == "" {
		dir := filepath.Join(tmp, "rt")
		return dir, writeRuntime(files, dir)
	}
	dir := filepath.Join(cache, "rt-"+sum)
	if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
		return dir, nil
	}
	// Write a fresh copy and rename it into place, so that a concurrent
	// bigfoot never sees a partial runtime.
	if err := os.MkdirAll(filepath.Dir(dir), 0o777); err != nil {
		return "", fmt.Errorf("writing the runtime sources: %w", err)
	}
	part, err := os.MkdirTemp(filepath.Dir(dir), "rt-partial-")
	if err != nil {
		return "", fmt.Errorf("writing the runtime sources: %w", err)
	}
	defer os.RemoveAll(part)
	if err := writeRuntime(files, part); err != nil {
		return "", err
	}
	if err := os.Rename(part, dir); err != nil {
		if _, serr := os.Stat(filepath.Join(dir, "go.mod")); serr != nil {
			return "", fmt.Errorf("writing the runtime sources: %w", err)
		}
		// Another bigfoot won the race; its copy is the same.
	}
	return dir, nil
}

// runtimeFile is a file of the runtime module.
type runtimeFile struct {
	name string // slash-separated path in the module
	data []byte
}

// runtimeFiles collects what the compiler needs from rt (a tree holding
// detector/, shadow/ and their subpackages): Go files other than tests,
// assembly and C headers; testdata directories are skipped. The list is
// sorted by name and ends with the module's go.mod.
func runtimeFiles(rt fs.FS) ([]runtimeFile, error) {
	var files []runtimeFile
	err := fs.WalkDir(rt, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if p != "." && (name == "testdata" || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_")) {
				return fs.SkipDir
			}
			return nil
		}
		if !compiled(name) {
			return nil
		}
		data, err := fs.ReadFile(rt, p)
		files = append(files, runtimeFile{p, data})
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("reading the embedded runtime sources: %w", err)
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("no runtime sources embedded")
	}
	gomod := fmt.Sprintf("module %s\n\ngo %s\n", ModulePath, runtimeGoVersion)
	return append(files, runtimeFile{"go.mod", []byte(gomod)}), nil
}

// writeRuntime writes files into dir.
func writeRuntime(files []runtimeFile, dir string) error {
	for _, f := range files {
		dst := filepath.Join(dir, filepath.FromSlash(f.name))
		if err := os.MkdirAll(filepath.Dir(dst), 0o777); err != nil {
			return fmt.Errorf("writing the runtime sources: %w", err)
		}
		if err := os.WriteFile(dst, f.data, 0o666); err != nil {
			return fmt.Errorf("writing the runtime sources: %w", err)
		}
	}
	return nil
}

// compiled reports whether a file of the runtime tree is compiled.
func compiled(name string) bool {
	switch path.Ext(name) {
	case ".go":
		return !strings.HasSuffix(name, "_test.go")
	case ".s", ".h":
		return true
	}
	return false
}

// writeWorkspace writes the temporary go.work: the user's modules, the
// runtime module at rtDir (none if rtDir is ""), the replacements of the
// user's own go.work, and then extra (instrumented dependency copies). It
// also copies the user's go.work.sum, if any, so that no checksum needs
// to be fetched again.
func writeWorkspace(file string, ws *workspace, rtDir, userWork string, extra []replace) error {
	var b strings.Builder
	fmt.Fprintf(&b, "go %s\n\n", ws.GoVersion)
	if len(ws.Godebug) > 0 {
		b.WriteString("godebug (\n")
		for _, g := range ws.Godebug {
			fmt.Fprintf(&b, "\t%s\n", g)
		}
		b.WriteString(")\n\n")
	}
	b.WriteString("use (\n")
	dirs := append([]string{}, ws.Use...)
	if rtDir != "" {
		dirs = append(dirs, rtDir)
	}
	for _, dir := range dirs {
		fmt.Fprintf(&b, "\t%s\n", quoteWorkPath(dir))
	}
	b.WriteString(")\n")
	for _, r := range append(append([]replace{}, ws.Replace...), extra...) {
		fmt.Fprintf(&b, "\nreplace %s => %s\n", modString(r.Old), modString(r.New))
	}
	if err := os.WriteFile(file, []byte(b.String()), 0o666); err != nil {
		return fmt.Errorf("writing go.work: %w", err)
	}
	if userWork != "" && userWork != "off" {
		sum, err := os.ReadFile(userWork + ".sum")
		if err == nil {
			err = os.WriteFile(file+".sum", sum, 0o666)
		}
		if err != nil && !os.IsNotExist(err) {
			return fmt.Errorf("copying go.work.sum: %w", err)
		}
	}
	return nil
}

// quoteWorkPath quotes a path for a go.work file when it needs it.
func quoteWorkPath(p string) string {
	if strings.ContainsAny(p, " \t\"'`()\\") {
		return "`" + p + "`"
	}
	return p
}

func modString(m modVersion) string {
	s := quoteWorkPath(m.Path)
	if m.Version != "" {
		s += " " + m.Version
	}
	return s
}

// usesModule reports whether one of the module directories dirs holds the
// module with the given path, according to its go.mod.
func usesModule(dirs []string, modPath string) bool {
	for _, dir := range dirs {
		data, err := os.ReadFile(filepath.Join(dir, "go.mod"))
		if err == nil && modfile.ModulePath(data) == modPath {
			return true
		}
	}
	return false
}
