// Copyright 2026 The bigfoot Authors. All rights reserved.

//go:build !bigfoot_verify

package detector

// verifyChecks reports whether the precise-checks verifier is on (build
// tag bigfoot_verify). Without the tag the hooks are compiled out: the
// accessors record nothing and A only returns its argument.
const verifyChecks = false
