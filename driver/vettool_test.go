package driver

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// TestOriginalFilesConfig: vet's configuration names the originals of the
// overlay's replacement files, keeps the files the overlay does not
// replace, drops the files the overlay adds, and keeps its other fields.
func TestOriginalFilesConfig(t *testing.T) {
	dir := t.TempDir()
	orig := filepath.Join(dir, "a.go")
	if err := os.WriteFile(orig, []byte("package a\n"), 0o666); err != nil {
		t.Fatal(err)
	}
	kept := filepath.Join(dir, "b.go")
	added := filepath.Join(dir, "zz_bigfoot.go")
	files := filepath.Join(dir, "files")
	overlay := filepath.Join(dir, "overlay.json")
	if err := writeOverlay(overlay, files, overlayFiles{replace: map[string][]byte{orig: []byte("package a // instrumented\n")}, add: map[string][]byte{added: []byte("package a\n")}}); err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(dir, "vet.cfg")
	in := map[string]any{
		"ImportPath": "example.com/a",
		"GoFiles":    []string{filepath.Join(files, orig), kept, filepath.Join(files, added)},
		"VetxOnly":   true,
	}
	data, _ := json.Marshal(in)
	if err := os.WriteFile(cfg, data, 0o666); err != nil {
		t.Fatal(err)
	}
	out, err := originalFilesConfig(cfg, overlay)
	if err != nil {
		t.Fatal(err)
	}
	defer os.Remove(out)
	data, err = os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal(data, &got); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"ImportPath": "example.com/a",
		"GoFiles":    []any{orig, kept},
		"VetxOnly":   true,
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("configuration:\n got %v\nwant %v", got, want)
	}
}

// TestMarkedToolID: the mark goes before a development toolchain's build
// ID, which the go command reads from the answer's last field.
func TestMarkedToolID(t *testing.T) {
	for in, want := range map[string]string{
		"vet version go1.26.8\n":                     "vet version go1.26.8 " + vetToolID,
		"vet version devel go1.27-abc buildID=xyz\n": "vet version devel go1.27-abc " + vetToolID + " buildID=xyz",
	} {
		if got := markedToolID(in); got != want {
			t.Errorf("markedToolID(%q) = %q, want %q", in, got, want)
		}
	}
}
