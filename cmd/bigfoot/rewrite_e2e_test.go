package main

import (
	"os"
	"path/filepath"
	"testing"
)

// TestRewriteKernels runs the packages of testdata/rewrite, one per
// rewrite rule of issue 28 that used to break a build or drop a check
// (appends of assignable values, promoted methods through another
// package's unexported embedding, targets whose address has a call,
// generic code), as TestKernels runs its kernels: built with go test
// -race and bigfoot in every mode, each TestRace* reported by bigfoot in
// as many runs as by go -race, no TestNoRace* ever.
func TestRewriteKernels(t *testing.T) {
	if bigfootBin == "" {
		t.Skip("end-to-end test; skipped with -short")
	}
	root, _ := filepath.Abs("../../testdata/rewrite")
	entries, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	bins := t.TempDir()
	for _, tool := range tools {
		buildKernels(t, root, tool, filepath.Join(bins, tool))
	}
	for _, e := range entries {
		if e.IsDir() {
			t.Run(e.Name(), func(t *testing.T) {
				t.Parallel()
				checkKernel(t, bins, e.Name())
			})
		}
	}
}
