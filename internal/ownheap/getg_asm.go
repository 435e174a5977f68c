// Copyright 2026 The bigfoot Authors. All rights reserved.

//go:build (amd64 || arm64) && !bigfoot_portable

package ownheap

import "unsafe"

const haveG = true

// getg returns the runtime's g of the calling goroutine (in assembly).
func getg() unsafe.Pointer
