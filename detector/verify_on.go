// Copyright 2026 The bigfoot Authors. All rights reserved.

//go:build bigfoot_verify

package detector

// verifyChecks reports whether the precise-checks verifier is on (build
// tag bigfoot_verify): every access and check of a span is recorded and the
// span is verified when it ends (verify.go).
const verifyChecks = true
