// Copyright 2026 The bigfoot Authors. All rights reserved.

package detector

import (
	"sync"
	"testing"

	"github.com/bigfoot-go/bigfoot/shadow"
)

// Each FastTrack rule, driven from real goroutines through the public API.
// ruleCount reads a goroutine's own counter of a rule.
func ruleCount(g *G, r shadow.Rule) uint64 { return g.t.Stats.Rules[r] }

// applied runs f in g and reports whether rule r applied during it.
func applied(g *G, r shadow.Rule, f func()) bool {
	n := ruleCount(g, r)
	f()
	return ruleCount(g, r) > n
}

func TestRuleReadSameEpoch(t *testing.T) {
	x := new(int64)
	var ok bool
	expect(t, false, func(g *G) {
		*W(g, x, 0) = 1
		<-spawn(g, func(g *G) {
			_ = *R(g, x, 0)
			ok = applied(g, shadow.ReadSameEpoch, func() { _ = *R(g, x, 0) })
		})
	})
	if !ok {
		t.Error("read-same-epoch did not apply")
	}
}

func TestRuleReadSharedSameEpoch(t *testing.T) {
	x := new(int64)
	var ok bool
	expect(t, false, func(g *G) {
		*W(g, x, 0) = 1
		a := spawn(g, func(g *G) { _ = *R(g, x, 0) })
		<-a
		<-spawn(g, func(g *G) {
			_ = *R(g, x, 0) // concurrent with a's read: read-share
			ok = applied(g, shadow.ReadSharedSameEpoch, func() { _ = *R(g, x, 0) })
		})
	})
	if !ok {
		t.Error("read-shared-same-epoch did not apply")
	}
}

func TestRuleReadExclusive(t *testing.T) {
	var ok bool
	both(t, func(g *G, synced bool) {
		x, mu := new(int64), new(sync.Mutex)
		<-spawn(g, func(g *G) {
			Lock(g, mu)
			*W(g, x, 0) = 1
			Unlock(g, mu)
		})
		<-spawn(g, func(g *G) {
			if synced {
				Lock(g, mu)
				defer Unlock(g, mu)
			}
			ok = applied(g, shadow.ReadExclusive, func() { _ = *R(g, x, 0) })
		})
	})
	if !ok {
		t.Error("read-exclusive did not apply")
	}
}

func TestRuleReadShare(t *testing.T) {
	var ok bool
	expect(t, false, func(g *G) {
		x := new(int64)
		*W(g, x, 0) = 1
		<-spawn(g, func(g *G) { _ = *R(g, x, 0) })
		<-spawn(g, func(g *G) {
			ok = applied(g, shadow.ReadShare, func() { _ = *R(g, x, 0) })
		})
	})
	if !ok {
		t.Error("read-share did not apply")
	}
	// A read-share after a concurrent write is still a write-read race.
	expect(t, true, func(g *G) {
		x := new(int64)
		<-spawn(g, func(g *G) { *W(g, x, 0) = 1; _ = *R(g, x, 0) })
		<-spawn(g, func(g *G) { _ = *R(g, x, 0) })
	})
}

func TestRuleReadShared(t *testing.T) {
	var ok bool
	expect(t, false, func(g *G) {
		x := new(int64)
		*W(g, x, 0) = 1
		<-spawn(g, func(g *G) { _ = *R(g, x, 0) })
		<-spawn(g, func(g *G) { _ = *R(g, x, 0) })
		<-spawn(g, func(g *G) {
			ok = applied(g, shadow.ReadShared, func() { _ = *R(g, x, 0) })
		})
	})
	if !ok {
		t.Error("read-shared did not apply")
	}
	expect(t, true, func(g *G) {
		x := new(int64)
		<-spawn(g, func(g *G) { _ = *R(g, x, 0) })
		<-spawn(g, func(g *G) { _ = *R(g, x, 0) })
		<-spawn(g, func(g *G) { *W(g, x, 0) = 1 })
		<-spawn(g, func(g *G) { _ = *R(g, x, 0) }) // read-shared, racing with the write
	})
}

func TestRuleWriteSameEpoch(t *testing.T) {
	var ok bool
	expect(t, false, func(g *G) {
		x := new(int64)
		<-spawn(g, func(g *G) {
			*W(g, x, 0) = 1
			ok = applied(g, shadow.WriteSameEpoch, func() { *W(g, x, 0) = 2 })
		})
	})
	if !ok {
		t.Error("write-same-epoch did not apply")
	}
}

func TestRuleWriteExclusive(t *testing.T) {
	var ok bool
	// Write after write.
	both(t, func(g *G, synced bool) {
		x, mu := new(int64), new(sync.Mutex)
		<-spawn(g, func(g *G) { Lock(g, mu); *W(g, x, 0) = 1; Unlock(g, mu) })
		<-spawn(g, func(g *G) {
			if synced {
				Lock(g, mu)
				defer Unlock(g, mu)
			}
			ok = applied(g, shadow.WriteExclusive, func() { *W(g, x, 0) = 2 })
		})
	})
	if !ok {
		t.Error("write-exclusive did not apply")
	}
	// Write after read.
	both(t, func(g *G, synced bool) {
		x, mu := new(int64), new(sync.Mutex)
		<-spawn(g, func(g *G) { Lock(g, mu); _ = *R(g, x, 0); Unlock(g, mu) })
		<-spawn(g, func(g *G) {
			if synced {
				Lock(g, mu)
				defer Unlock(g, mu)
			}
			*W(g, x, 0) = 2
		})
	})
}

func TestRuleWriteShared(t *testing.T) {
	var ok bool
	both(t, func(g *G, synced bool) {
		x, mu := new(int64), new(sync.Mutex)
		<-spawn(g, func(g *G) { Lock(g, mu); _ = *R(g, x, 0); Unlock(g, mu) })
		<-spawn(g, func(g *G) {
			_ = *R(g, x, 0) // unsynchronized read: concurrent with the first
			if synced {
				Lock(g, mu)
				Unlock(g, mu)
			}
		})
		<-spawn(g, func(g *G) {
			Lock(g, mu) // orders after the first reader, and after the second if synced
			defer Unlock(g, mu)
			ok = applied(g, shadow.WriteShared, func() { *W(g, x, 0) = 1 })
		})
	})
	if !ok {
		t.Error("write-shared did not apply")
	}
}
