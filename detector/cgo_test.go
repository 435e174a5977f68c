// Copyright 2026 The bigfoot Authors. All rights reserved.

package detector

import "testing"

// TestCgo: a C call (release before, acquire after) orders what the
// caller did before it before what another goroutine does after a later C
// call, as Go's race runtime orders C calls through racecgosync; a Go
// function called from C acquires at entry and releases at exit.
func TestCgo(t *testing.T) {
	both(t, func(g *G, synced bool) {
		x := new(int)
		<-spawn(g, func(g *G) { *W(g, x, 0) = 1; _ = CgoRet(g, CgoArg(g, 7)) })
		<-spawn(g, func(g *G) {
			if synced {
				_ = CgoRet(CgoPre(g), 8)
			}
			*W(g, x, 0) = 2
		})
	})
	t.Run("statements", func(t *testing.T) {
		both(t, func(g *G, synced bool) {
			x := new(int)
			<-spawn(g, func(g *G) { *W(g, x, 0) = 1; CgoRelease(g); CgoAcquire(g) })
			<-spawn(g, func(g *G) {
				if synced {
					CgoRelease(g)
					CgoAcquire(g)
				}
				*W(g, x, 0) = 2
			})
		})
	})
	t.Run("callback", func(t *testing.T) {
		both(t, func(g *G, synced bool) {
			x := new(int)
			<-spawn(g, func(g *G) {
				CgoCallback(g)
				*W(g, x, 0) = 1
				CgoCallbackEnd(g)
			})
			<-spawn(g, func(g *G) {
				if synced {
					_ = CgoRet(CgoPre(g), 0)
				}
				*W(g, x, 0) = 2
			})
		})
	})
	t.Run("release-only", func(t *testing.T) {
		// A goroutine that only releases (its C call has not returned)
		// is not ordered after another's C call.
		expect(t, true, func(g *G) {
			x := new(int)
			<-spawn(g, func(g *G) { *W(g, x, 0) = 1; CgoRelease(g) })
			<-spawn(g, func(g *G) { CgoRelease(g); *W(g, x, 0) = 2 })
		})
	})
}
