// Copyright 2026 The bigfoot Authors. All rights reserved.

package bench

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
)

// The overlay puts every runtime file in place, with its content.
func TestWriteRuntimeOverlay(t *testing.T) {
	files := map[string][]byte{
		"/goroot/src/runtime/mheap.go":         []byte("package runtime // patched\n"),
		"/goroot/src/runtime/zz_bigfoot_gc.go": []byte("package runtime // added\n"),
	}
	overlay, err := writeRuntimeOverlay(t.TempDir(), files)
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(overlay)
	if err != nil {
		t.Fatal(err)
	}
	var ov struct{ Replace map[string]string }
	if err := json.Unmarshal(data, &ov); err != nil {
		t.Fatalf("overlay %s: %v", data, err)
	}
	if len(ov.Replace) != len(files) {
		t.Fatalf("overlay replaces %d files, want %d: %s", len(ov.Replace), len(files), data)
	}
	for path, want := range files {
		got, err := os.ReadFile(ov.Replace[path])
		if err != nil || string(got) != string(want) {
			t.Errorf("%s: got %q (%v), want %q", path, got, err, want)
		}
	}
}

// The table has a row per benchmark, and FreshObject's own cost is its
// time beyond its floor, the plain binary's FreshAlloc.
func TestWriteMicro(t *testing.T) {
	res := []MicroResult{
		{MicroBench: MicroBench{"FreshObject", 10, "FreshAlloc"}, Bigfoot: 60, Race: 90, Floor: 30},
		{MicroBench: MicroBench{"FreshAlloc", 10, ""}, Bigfoot: 32, Race: 55},
	}
	var b strings.Builder
	if err := WriteMicro(&b, res); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"| FreshObject | 10 | 90.0 | 60.0 | 0.67 |",
		"| FreshAlloc | 10 | 55.0 | 32.0 | 0.58 |",
		"FreshObject beyond the plain binary's FreshAlloc (30.0 ns, in the same rounds): bigfoot 30.0, go -race 60.0, ratio 0.50.",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in\n%s", want, out)
		}
	}
}
