package driver

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// overlayFiles are the files an overlay maps: by content (replace and add,
// absolute paths of the user's tree to contents; add names files that do
// not exist there) and, linked, to a file the cache holds already
// (absolute path to that file), which the overlay names in place. A path
// in replace or add wins over the same path in linked.
type overlayFiles struct {
	replace, add map[string][]byte
	linked       map[string]string
}

// writeOverlay writes the files under filesDir, each at its original
// absolute path below filesDir (so that its base name, which carries
// build constraints and the _test suffix, is unchanged), and the overlay
// file the go command's -overlay flag reads. The user's tree is never
// written.
func writeOverlay(file, filesDir string, files overlayFiles) error {
	return writeOverlayAs(file, filesDir, filesDir, files)
}

// writeOverlayAs is writeOverlay for files that will be read from refDir
// rather than from filesDir, where they are written: the overlay file names
// them under refDir. It lets a complete overlay be renamed into place.
func writeOverlayAs(file, filesDir, refDir string, files overlayFiles) error {
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
	for _, m := range []map[string][]byte{files.replace, files.add} {
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
	for orig, cached := range files.linked {
		if _, ok := ov.Replace[orig]; !ok {
			ov.Replace[orig] = cached
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
