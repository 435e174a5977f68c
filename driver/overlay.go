package driver

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// writeOverlay writes the instrumented files under filesDir, each at its
// original absolute path below filesDir (so that its base name, which
// carries build constraints and the _test suffix, is unchanged), and the
// overlay file the go command's -overlay flag reads.
//
// replace and add map absolute paths of the user's tree to contents; add
// names files that do not exist there. The user's tree is never written.
func writeOverlay(file, filesDir string, replace, add map[string][]byte) error {
	return writeOverlayAs(file, filesDir, filesDir, replace, add)
}

// writeOverlayAs is writeOverlay for files that will be read from refDir
// rather than from filesDir, where they are written: the overlay file names
// them under refDir. It lets a complete overlay be renamed into place.
func writeOverlayAs(file, filesDir, refDir string, replace, add map[string][]byte) error {
	ov := struct{ Replace map[string]string }{Replace: map[string]string{}}
	write := func(orig string, data []byte) error {
		if !filepath.IsAbs(orig) {
			return fmt.Errorf("writing overlay: instrumenter returned relative path %q", orig)
		}
		rel := strings.ReplaceAll(orig, ":", "")
		dst := filepath.Join(filesDir, rel)
		if err := os.MkdirAll(filepath.Dir(dst), 0o777); err != nil {
			return fmt.Errorf("writing overlay: %w", err)
		}
		if err := os.WriteFile(dst, data, 0o666); err != nil {
			return fmt.Errorf("writing overlay: %w", err)
		}
		ov.Replace[orig] = filepath.Join(refDir, rel)
		return nil
	}
	for _, m := range []map[string][]byte{replace, add} {
		paths := make([]string, 0, len(m))
		for p := range m {
			paths = append(paths, p)
		}
		sort.Strings(paths)
		for _, p := range paths {
			if err := write(p, m[p]); err != nil {
				return err
			}
		}
	}
	data, err := json.MarshalIndent(ov, "", "\t")
	if err != nil {
		return fmt.Errorf("writing overlay: %w", err)
	}
	if err := os.WriteFile(file, data, 0o666); err != nil {
		return fmt.Errorf("writing overlay: %w", err)
	}
	return nil
}
