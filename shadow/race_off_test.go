// Copyright 2026 The bigfoot Authors. All rights reserved.

//go:build !race

package shadow

const raceEnabled = false
