package driver

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestCtxHooks applies the edits to the toolchain's context.go: each
// applies once, no line number changes, and the package compiles with
// the overlay (the detector's symbols are variables, so nothing needs it).
func TestCtxHooks(t *testing.T) {
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(strings.TrimSpace(string(out)), "src", "context")
	overlay := map[string][]byte{}
	if err := ctxHooks(dir, overlay); err != nil {
		t.Fatal(err)
	}
	orig, err := os.ReadFile(filepath.Join(dir, "context.go"))
	if err != nil {
		t.Fatal(err)
	}
	hooked := overlay[filepath.Join(dir, "context.go")]
	if got, want := bytes.Count(hooked, []byte("\n")), bytes.Count(orig, []byte("\n")); got != want {
		t.Errorf("hooked context.go has %d lines, want %d", got, want)
	}
	if _, ok := overlay[filepath.Join(dir, "zz_bigfoot_context.go")]; !ok {
		t.Error("no file of hooks")
	}
	if testing.Short() {
		return
	}
	// Build a program using context with the overlay, without the detector.
	tmp := t.TempDir()
	files := t.TempDir()
	ov := `{"Replace":{`
	i := 0
	for path, data := range overlay {
		f := filepath.Join(files, filepath.Base(path))
		if err := os.WriteFile(f, data, 0o666); err != nil {
			t.Fatal(err)
		}
		if i > 0 {
			ov += ","
		}
		ov += `"` + path + `":"` + f + `"`
		i++
	}
	ov += "}}"
	write := func(name, s string) {
		if err := os.WriteFile(filepath.Join(tmp, name), []byte(s), 0o666); err != nil {
			t.Fatal(err)
		}
	}
	write("overlay.json", ov)
	write("go.mod", "module m\n\ngo 1.22\n")
	write("main.go", `package main

import (
	"context"
	"time"
)

func main() {
	ctx, cancel := context.WithTimeout(context.Background(), time.Millisecond)
	context.AfterFunc(ctx, func() {})
	<-ctx.Done()
	cancel()
	if ctx.Err() == nil {
		panic("not cancelled")
	}
}
`)
	cmd := exec.Command("go", "run", "-overlay", filepath.Join(tmp, "overlay.json"), ".")
	cmd.Dir = tmp
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go run with the hooked context: %v\n%s", err, out)
	}
}
