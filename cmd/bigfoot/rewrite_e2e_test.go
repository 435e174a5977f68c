package main

import "testing"

// TestRewriteKernels runs the packages of testdata/rewrite, one per
// rewrite rule of issue 28 that used to break a build or drop a check
// (appends of assignable values, promoted methods through another
// package's unexported embedding, targets whose address has a call,
// generic code), as TestKernels runs its kernels: built with go test
// -race and bigfoot in each mode of modes, each TestRace* reported by bigfoot in
// as many runs as by go -race, no TestNoRace* ever.
func TestRewriteKernels(t *testing.T) {
	runKernels(t, "rewrite")
}
