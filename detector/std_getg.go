// Copyright 2026 The bigfoot Authors. All rights reserved.

//go:build (amd64 || arm64) && !bigfoot_portable

package detector

// stdHooksOn: the standard library's hooks work where curKey is getg.
const stdHooksOn = true
