// Copyright 2026 The bigfoot Authors. All rights reserved.

//go:build race

package shadow

// recycleGranules is false when the shadow itself is compiled with Go's
// race detector (its own tests under go test -race): a fast path or the
// sweeper may read the bounds of a granule without its lock while the
// block is recycled for another (by design: offheap.go), which that
// detector reports. Freed granules are then simply not reused.
const recycleGranules = false
