// Copyright 2026 The bigfoot Authors. All rights reserved.

//go:build !race

package shadow

// recycleGranules: see race_on.go.
const recycleGranules = true
