// Copyright 2026 The bigfoot Authors. All rights reserved.

//go:build !(amd64 || arm64) || bigfoot_portable

package ownheap

import "unsafe"

const haveG = false

func getg() unsafe.Pointer { return nil }
