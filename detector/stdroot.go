// Copyright 2026 The bigfoot Authors. All rights reserved.

package detector

import (
	"runtime"

	"github.com/bigfoot-go/bigfoot/shadow"
)

// Goroutines that package testing starts (docs/runtime.md, "Goroutines
// started elsewhere"). Package testing is not instrumented, so its go
// statements give no fork edge, yet it prepares each test's objects on
// the goroutine that starts the test: t.Run creates the test's context
// (context.WithCancel, instrumented) and then starts tRunner, which
// cancels it at the end. Go's race runtime sees the go statement; bigfoot
// orders a goroutine created by testing after its creator's published
// epoch when the goroutine first shows up (curSlow). The creator is then
// blocked in t.Run, or runs testing's own uninstrumented code, so the
// edge orders little beyond the go statement's own.

// startedBy returns how the calling goroutine was started, from the
// "created by F in goroutine N" line of its stack: byTesting if F is in
// package testing, and N (0 if the line is missing: the main goroutine and
// the runtime's own goroutines). It parses runtime.Stack, which costs
// microseconds, once per goroutine started by uninstrumented code.
func startedBy() (byTesting bool, creator uint64) {
	buf := make([]byte, 4096)
	for {
		n := runtime.Stack(buf, false)
		if n < len(buf) {
			buf = buf[:n]
			break
		}
		buf = make([]byte, 2*len(buf))
	}
	const created, testing, in = "\ncreated by ", "testing.", " in goroutine "
	i := lastIndex(buf, created)
	if i < 0 {
		return false, 0
	}
	line := buf[i+len(created):]
	if j := index(line, "\n"); j >= 0 {
		line = line[:j]
	}
	byTesting = hasPrefix(line, testing)
	if j := index(line, in); j >= 0 {
		for _, c := range line[j+len(in):] {
			if c < '0' || c > '9' {
				break
			}
			creator = creator*10 + uint64(c-'0')
		}
	}
	return byTesting, creator
}

// creatorEpoch returns the published epoch of the live goroutine whose
// goid is id, and whether there is one.
func creatorEpoch(id uint64) (shadow.Epoch, bool) {
	var e shadow.Epoch
	found := false
	if id == 0 {
		return e, false
	}
	registry.Range(func(_ uintptr, o *G) bool {
		if o.goid == id && !o.exited.Load() {
			e, found = shadow.Epoch(o.pub.Load()), true
			return false
		}
		return true
	})
	return e, found
}

// joinEpoch returns vc joined with epoch e.
func joinEpoch(vc []uint64, e shadow.Epoch) []uint64 {
	t := int(e.TID())
	if t >= len(vc) {
		vc = append(vc, make([]uint64, t+1-len(vc))...)
	}
	vc[t] = max(vc[t], e.Clock())
	return vc
}

// hasPrefix, index and lastIndex are the bytes functions, which may be
// instrumented (startedBy runs before the goroutine has a state).

func hasPrefix(b []byte, s string) bool {
	return len(b) >= len(s) && string(b[:len(s)]) == s
}

func index(b []byte, s string) int {
	for i := 0; i+len(s) <= len(b); i++ {
		if string(b[i:i+len(s)]) == s {
			return i
		}
	}
	return -1
}

func lastIndex(b []byte, s string) int {
	for i := len(b) - len(s); i >= 0; i-- {
		if string(b[i:i+len(s)]) == s {
			return i
		}
	}
	return -1
}
