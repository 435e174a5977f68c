// Package corpus runs the test suites of real modules under go test -race
// and under bigfoot test and compares them package by package.
//
// The corpus (modules.txt) is a list of widely used modules at pinned
// versions. For each, Run downloads the module from the module proxy into
// a temporary directory, resolves its dependencies, and runs its whole
// suite with `go test -race -count=1 -json ./...` and `bigfoot test
// -count=1 -json ./...`, interleaved when there is more than one run. It
// records per package whether it built, whether it passed, and which tests
// printed a race report, and per run the wall time, the CPU time and the
// peak resident set of the process tree.
//
// Compare turns those records into the drop-in's acceptance conditions:
// every package go -race builds, bigfoot builds; every package's ok/FAIL
// is go -race's; no race is reported by bigfoot alone; no suite takes more
// than MaxWallRatio times go -race's wall time. With the bigfoot_verify
// build tag, the precise-checks verifier's counts are summed per module.
//
// RunEachTest runs each top-level test of a module in a process of its
// own under bigfoot (and under go -race where bigfoot's run fails or hits
// its bound), so that the verifier gives a verdict on every test that ends
// even when the whole suite does not end within one bound.
//
// The command corpus/cmd/corpus is `make corpus`; `bigfoot bench -suites`
// measures a subset (BenchSuites) through the same Run.
package corpus
