// Copyright 2026 The bigfoot Authors. All rights reserved.

//go:build race

package shadow

// raceEnabled: under -race every shadow operation is itself checked, ten
// times slower; the randomized tests run fewer traces.
const raceEnabled = true
