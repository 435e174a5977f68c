// Copyright 2026 The bigfoot Authors. All rights reserved.

//go:build bigfoot_count

package detector

// countAccesses reports whether the accesses emitted code announces are
// counted (build tag bigfoot_count).
const countAccesses = true
