package corpus

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// TestDropForeignWork: a go.work that uses a directory the module does
// not hold is removed with its go.work.sum; one whose modules are all
// there stays.
func TestDropForeignWork(t *testing.T) {
	for _, tc := range []struct {
		name    string
		withSub bool
		kept    bool
	}{
		{"sub missing", false, false},
		{"sub present", true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			write := func(name, data string) {
				p := filepath.Join(dir, name)
				if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			write("go.mod", "module example.com/m\n\ngo 1.22\n")
			write("go.work", "go 1.22\n\nuse (\n\t.\n\t./providers/sub\n)\n")
			write("go.work.sum", "")
			if tc.withSub {
				write("providers/sub/go.mod", "module example.com/m/providers/sub\n\ngo 1.22\n")
			}
			if err := dropForeignWork(context.Background(), dir, os.Environ(), io.Discard); err != nil {
				t.Fatal(err)
			}
			for _, f := range []string{"go.work", "go.work.sum"} {
				_, err := os.Stat(filepath.Join(dir, f))
				if kept := err == nil; kept != tc.kept {
					t.Errorf("%s kept = %v, want %v", f, kept, tc.kept)
				}
			}
		})
	}
}
