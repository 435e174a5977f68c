// Copyright 2026 The bigfoot Authors. All rights reserved.

//go:build !amd64 || bigfoot_portable

package detector

// joinWords sets d[i] to max(d[i], s[i]) for every i < len(s); len(d) is
// at least len(s).
func joinWords(d, s []uint64) { joinGo(d, s) }
