package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAnalyze runs bigfoot analyze on the Go rendering of the thesis's
// Figure 3.1 (Point.move): fasttrack checks six accesses, bigfoot places
// one write check of the field group x, y, z before the return.
func TestAnalyze(t *testing.T) {
	const pkg = "../../placement/testdata/src/fig31"
	var out, errb bytes.Buffer
	if code := analyzeMain(context.Background(), []string{pkg}, &out, &errb); code != 0 {
		t.Fatalf("analyze exited %d: %s", code, errb.String())
	}
	for _, want := range []string{"6 accesses, bigfoot: 1 checks", "W p.x,p.y,p.z", "fasttrack=6 redcard=3 bigfoot=1"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("text output lacks %q:\n%s", want, out.String())
		}
	}

	out.Reset()
	dir := t.TempDir()
	if code := analyzeMain(context.Background(), []string{"-json", "-html", dir, pkg}, &out, &errb); code != 0 {
		t.Fatalf("analyze -json exited %d: %s", code, errb.String())
	}
	var rep jsonReport
	if err := json.Unmarshal(out.Bytes(), &rep); err != nil {
		t.Fatalf("bad JSON: %v\n%s", err, out.String())
	}
	if len(rep.Packages) != 1 || len(rep.Packages[0].Functions) != 1 {
		t.Fatalf("JSON has %d packages, want 1 with 1 function", len(rep.Packages))
	}
	fn := rep.Packages[0].Functions[0]
	if len(fn.Accesses) != 6 || len(fn.Checks) != 1 || fn.Checks[0].Check != "W p.x,p.y,p.z" || len(fn.Checks[0].Covers) != 6 {
		t.Errorf("JSON function = %+v, want 6 accesses and one check W p.x,p.y,p.z covering them", fn)
	}
	html, err := os.ReadFile(filepath.Join(dir, "index.html"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(html), "✓ W p.x,p.y,p.z") {
		t.Errorf("HTML view lacks the placed check")
	}
}

// TestAnalyzeBadPackage checks that a package that does not compile is
// reported as an error, not a panic.
func TestAnalyzeBadPackage(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module bad\n\ngo 1.24\n"), 0o666)
	os.WriteFile(filepath.Join(dir, "bad.go"), []byte("package bad\n\nfunc f() int { return x }\n"), 0o666)
	wd, _ := os.Getwd()
	defer os.Chdir(wd)
	if err := os.Chdir(dir); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	if code := analyzeMain(context.Background(), []string{"."}, &out, &errb); code != 1 {
		t.Errorf("exit status %d, want 1", code)
	}
	if !strings.Contains(errb.String(), "undefined: x") {
		t.Errorf("stderr lacks the compiler's error: %s", errb.String())
	}
}
