package main

import "testing"

// TestStdSync runs the programs of testdata/stdsync, whose races and
// synchronization are inside the standard library (net/http's connection
// and dial goroutines, context cancellation, io.Pipe, runtime/trace's
// subscribers, a time.AfterFunc callback running std code, math/rand's
// source, encoding/json through reflect, flag.Usage written after
// initialization while flag reads it, a read after hash/crc32's atomic
// load), 5 times each under go test
// -race and bigfoot in each mode of modes (-deps=all, the default): every
// TestRace* test is reported in every run by both, no TestNoRace* test
// ever. Before the standard library's goroutines, channels and atomics
// were modelled, the TestRace* tests of math/rand, AfterFunc and
// encoding/json were missed and TestNoRace* tests raced in context,
// which package testing's goroutines reach.
func TestStdSync(t *testing.T) {
	checkRaceTests(t, "../../testdata/stdsync", 5, nil)
}
