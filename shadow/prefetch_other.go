// Copyright 2026 The bigfoot Authors. All rights reserved.

//go:build !amd64 || race

package shadow

// prefetch does nothing here (see prefetch_amd64.go).
func prefetch(addr uintptr) {}
