// Copyright 2026 The bigfoot Authors. All rights reserved.

//go:build !bigfoot_count

package detector

// countAccesses reports whether the accesses emitted code announces are
// counted (build tag bigfoot_count). Counting costs time on every access,
// so timing runs are built without it.
const countAccesses = false

// Count adds n to the goroutine's count of accesses; a no-op without the
// bigfoot_count build tag.
func (g *G) Count(n int) {}
