// Copyright 2026 The bigfoot Authors. All rights reserved.

package detector

import (
	"sync"
	"testing"
)

// TestIO: a write to the OS (IOWrite) happens before a later read
// (IORead); writes alone order nothing, so goroutines that only print stay
// unordered.
func TestIO(t *testing.T) {
	both(t, func(g *G, synced bool) {
		x := new(int)
		<-spawn(g, func(g *G) { *W(g, x, 0) = 1; IOWrite(g) })
		<-spawn(g, func(g *G) {
			if synced {
				IORead(g)
			}
			*W(g, x, 0) = 2
		})
	})
	t.Run("writes-only", func(t *testing.T) {
		expect(t, true, func(g *G) {
			x := new(int)
			<-spawn(g, func(g *G) { *W(g, x, 0) = 1; IOWrite(g) })
			<-spawn(g, func(g *G) { IOWrite(g); *W(g, x, 0) = 2 })
		})
	})
	t.Run("pass-through", func(t *testing.T) {
		expect(t, false, func(g *G) {
			x := new(int)
			<-spawn(g, func(g *G) { *W(g, x, 0) = 1; _ = IOW(g, 3) })
			<-spawn(g, func(g *G) {
				if a, b := IOR2(1, "x"); a != 1 || b != "x" {
					t.Error("IOR2 changed its operands")
				}
				*W(g, x, 0) = 2
			})
		})
	})
}

// TestHelpers runs the generic helpers of emitted code.
func TestHelpers(t *testing.T) {
	expect(t, false, func(g *G) {
		c := make(chan int, 1)
		Chan(c).Send(g, 4)
		if v := Recv(g, c); v != 4 {
			t.Errorf("Recv = %d", v)
		}
		close(c)
		if _, ok := Recv2(g, c); ok {
			t.Error("Recv2 on a closed channel: ok")
		}
		s := Append(g, 0, []int(nil)).Add(1, 2)
		s = Append(g, 0, s).AddSlice(s...)
		if n := Copy(g, 0, s, []int{9}); n != 1 || len(s) != 4 || s[0] != 9 {
			t.Errorf("Append/Copy: %v", s)
		}
		b := AppendString(g, 0, []byte("a"), "bc")
		if n := CopyString(g, 0, b, "x"); n != 1 || string(ReadAll(g, 0, b)) != "xbc" {
			t.Errorf("AppendString/CopyString: %q", b)
		}
		called := false
		MV(Lock).Bind(new(sync.Mutex))()
		Async(g, func() { called = true })()
		if !called {
			t.Error("Async did not call")
		}
	})
}
