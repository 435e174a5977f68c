// Copyright 2026 The bigfoot Authors. All rights reserved.

//go:build bigfoot_count

package detector

// countAccesses reports whether the accesses emitted code announces are
// counted (build tag bigfoot_count).
const countAccesses = true

// Count adds n to the goroutine's count of accesses, for accesses whose
// checks were elided or coalesced statically.
func (g *G) Count(n int) { g.accesses += uint64(n) }
