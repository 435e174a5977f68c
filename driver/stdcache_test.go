package driver

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestStdEntryFiles: the cache keeps an instrumented standard-library
// package as a small JSON entry and a directory of its files, which a
// plan's overlay names in place instead of copying them; an entry whose
// files are gone is no entry, and a plan that needs it cannot be
// overlaid.
func TestStdEntryFiles(t *testing.T) {
	cache := t.TempDir()
	const body = "package http // instrumented\n"
	e := &stdEntry{
		Files:             map[string][]byte{"server.go": []byte(body), stdShimName: []byte("package http\n")},
		Facts:             []byte("facts"),
		PointerChecksPass: true,
	}
	if err := writeStdEntry(cache, "net/http", e); err != nil {
		t.Fatal(err)
	}
	if err := writeStdEntry(cache, "unsafe", &stdEntry{Excluded: "not Go code"}); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(stdEntryFile(cache, "net/http"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(data), "instrumented") || strings.Contains(string(data), "package") {
		t.Errorf("the JSON entry holds the files' contents: %s", data)
	}
	got := readStdEntry(cache, "net/http")
	if got == nil {
		t.Fatal("readStdEntry = nil for an entry just written")
	}
	if want := []string{"server.go", stdShimName}; !reflect.DeepEqual(got.Names, want) || string(got.Facts) != "facts" || !got.PointerChecksPass || got.Files != nil {
		t.Errorf("read back %+v, want names %v, the facts and PointerChecksPass", got, want)
	}
	if x := readStdEntry(cache, "unsafe"); x == nil || x.Excluded != "not Go code" {
		t.Errorf("excluded entry read back as %+v", x)
	}

	// A plan's overlay names the cached files; a file of the plan's own
	// at the same path wins.
	root := filepath.Join(t.TempDir(), "goroot", "src", "net", "http")
	pl := &plan{Std: []stdRef{{Path: "net/http", Dir: root}}}
	files, err := pl.overlay(cache)
	if err != nil {
		t.Fatal(err)
	}
	server := filepath.Join(root, "server.go")
	if want := filepath.Join(stdFilesDir(cache, "net/http"), "server.go"); files.linked[server] != want {
		t.Fatalf("linked[%s] = %q, want %q", server, files.linked[server], want)
	}
	shim := filepath.Join(root, stdShimName)
	files.replace[shim] = []byte("package http // the plan's\n")
	dir := t.TempDir()
	overlay := filepath.Join(dir, "overlay.json")
	if err := writeOverlay(overlay, filepath.Join(dir, "files"), files); err != nil {
		t.Fatal(err)
	}
	var ov struct{ Replace map[string]string }
	if data, err := os.ReadFile(overlay); err != nil || json.Unmarshal(data, &ov) != nil {
		t.Fatalf("reading the overlay: %v", err)
	}
	if content, err := os.ReadFile(ov.Replace[server]); err != nil || string(content) != body {
		t.Errorf("the overlay's server.go is %q (%v), want the cached file", content, err)
	}
	if content, err := os.ReadFile(ov.Replace[shim]); err != nil || string(content) != "package http // the plan's\n" {
		t.Errorf("the overlay's shim is %q (%v), want the plan's own", content, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "files", strings.ReplaceAll(server, ":", ""))); err == nil {
		t.Error("the overlay copied a cached file")
	}

	// The same entry written again (another run) keeps the files; an
	// entry whose files were removed is gone.
	if err := writeStdEntry(cache, "net/http", &stdEntry{Files: map[string][]byte{"server.go": []byte(body)}}); err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(stdFilesDir(cache, "net/http")); err != nil {
		t.Fatal(err)
	}
	if x := readStdEntry(cache, "net/http"); x != nil {
		t.Errorf("readStdEntry = %+v for an entry without its files", x)
	}
	if _, err := pl.overlay(cache); err == nil || !strings.Contains(err.Error(), "lost net/http") {
		t.Errorf("overlay of a plan whose entry lost its files: %v", err)
	}
}
