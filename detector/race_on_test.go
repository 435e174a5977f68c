// Copyright 2026 The bigfoot Authors. All rights reserved.

//go:build race

package detector

// raceEnabled reports whether the tests run under Go's race detector,
// which makes them about ten times slower; big tests scale down.
const raceEnabled = true
