// Package ttyclose is modelled on moby/moby#13788 (add lock while writing to console
// and closing it, for the race of moby/moby#6148): TtyConsole.Close
// closed and dropped the console while the attach goroutine still wrote
// to it. The fixed twin takes the console's mutex in Close and in the
// writer.
package ttyclose

import (
	"sync"
	"testing"
)

type console struct {
	buf    []byte
	closed bool
}

type ttyConsole struct {
	mu      sync.Mutex
	console *console
}

func (t *ttyConsole) write(p []byte, locked bool) {
	if locked {
		t.mu.Lock()
		defer t.mu.Unlock()
	}
	if c := t.console; c != nil && !c.closed {
		c.buf = append(c.buf, p...)
	}
}

func (t *ttyConsole) close(locked bool) {
	if locked {
		t.mu.Lock()
		defer t.mu.Unlock()
	}
	t.console.closed = true
	t.console = nil
}

func attach(locked bool) {
	t := &ttyConsole{console: &console{}}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for range 5 {
			t.write([]byte("x"), locked)
		}
	}()
	t.close(locked)
	<-done
}

func TestRaceTtyConsoleClose(t *testing.T) { attach(false) }

func TestNoRaceTtyConsoleClose(t *testing.T) { attach(true) }
