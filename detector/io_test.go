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

// fill is a reader bigfoot did not instrument: its Read writes p
// unchecked, after wait (if any) lets it.
type fill struct{ wait func() }

func (f *fill) Read(p []byte) (int, error) {
	if f.wait != nil {
		f.wait()
	}
	for i := range p {
		p[i] = 1
	}
	return len(p), nil
}

func (f *fill) ReadAt(p []byte, off int64) (int, error) { return f.Read(p) }

// selfChecked is an instrumented reader: it checks its own writes.
type selfChecked struct{ g *G }

func (s selfChecked) Read(p []byte) (int, error) {
	SelfRead(s.g)
	return len(p), nil
}

// TestReadInto: ReadInto checks the write of the bytes read, and orders
// the reads of one receiver as the reader orders them (one after the
// other, as a lock, a pipe's channels or a file's fdMutex do under go
// -race); the reads of two receivers into one buffer race.
func TestReadInto(t *testing.T) {
	both(t, func(g *G, synced bool) {
		buf := make([]byte, 8)
		r1, r2 := &fill{}, &fill{}
		if synced {
			r2 = r1
		}
		<-spawn(g, func(g *G) { ReadInto(g, 0, r1, buf) })
		<-spawn(g, func(g *G) { ReadAtInto(g, 0, r2, buf, 0) })
	})
	t.Run("plain", func(t *testing.T) {
		expect(t, true, func(g *G) {
			buf := make([]byte, 8)
			<-spawn(g, func(g *G) { R(g, &buf[3], 0) })
			<-spawn(g, func(g *G) { ReadInto(g, 0, &fill{}, buf) })
		})
	})
	t.Run("later", func(t *testing.T) {
		// A read that starts after another's check is checked.
		expect(t, true, func(g *G) {
			buf, other := make([]byte, 8), make([]byte, 8)
			r := &fill{}
			<-spawn(g, func(g *G) { ReadInto(g, 0, r, buf) })
			<-spawn(g, func(g *G) { R(g, &other[3], 0) })
			<-spawn(g, func(g *G) { ReadInto(g, 0, r, other) })
		})
	})
	t.Run("interface", func(t *testing.T) {
		expect(t, false, func(g *G) {
			buf := make([]byte, 8)
			var r interface{ Read([]byte) (int, error) } = &fill{}
			<-spawn(g, func(g *G) { ReadInto(g, 0, r, buf) })
			<-spawn(g, func(g *G) { ReadInto(g, 0, r, buf) })
		})
	})
}

// TestReadIntoOverlap: a read whose call another read of the receiver
// overlapped is not checked. The second read here checks first, though
// the reader may have written for the first one before: checking the
// first after it would report the pair the reader ordered the other way.
func TestReadIntoOverlap(t *testing.T) {
	expect(t, false, func(g *G) {
		buf := make([]byte, 8)
		entered, proceed := make(chan struct{}), make(chan struct{})
		r := &fill{}
		r.wait = func() {
			r.wait = nil
			close(entered)
			<-proceed
		}
		first := spawn(g, func(g *G) { ReadInto(g, 0, r, buf) })
		<-entered
		<-spawn(g, func(g *G) { ReadInto(g, 0, r, buf) })
		close(proceed)
		<-first
	})
}

// TestReadIntoSelfChecked: a Read method that is instrumented (SelfRead)
// checked its own writes, under its own synchronization: ReadInto checks
// nothing after it, and a ReadInto inside it leaves that state to it.
func TestReadIntoSelfChecked(t *testing.T) {
	expect(t, false, func(g *G) {
		buf := make([]byte, 8)
		<-spawn(g, func(g *G) { ReadInto(g, 0, selfChecked{g}, buf) })
		<-spawn(g, func(g *G) { ReadInto(g, 0, selfChecked{g}, buf) })
	})
	expect(t, false, func(g *G) {
		SelfRead(g)
		ReadInto(g, 0, &fill{}, make([]byte, 1))
		if !g.selfRead {
			t.Error("ReadInto did not restore selfRead")
		}
		g.selfRead = false
	})
}
