// Copyright 2026 The bigfoot Authors. All rights reserved.

//go:build !race

package detector

const raceEnabled = false
