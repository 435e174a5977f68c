// Package servershutdown is modelled on gofr-dev/gofr#3929: the serve
// goroutine creates the server (Run writes the field) while Shutdown, on
// the caller's goroutine, reads the field with no synchronization. The
// fixed twin guards the field with a mutex, as the fix of the sibling
// field (gofr-dev/gofr#3762) did.
package servershutdown

import (
	"sync"
	"testing"
	"time"
)

type server struct{ stopped chan struct{} }

type app struct {
	mu     sync.Mutex
	locked bool
	srv    *server
	served chan struct{}
}

func (a *app) lock() {
	if a.locked {
		a.mu.Lock()
	}
}

func (a *app) unlock() {
	if a.locked {
		a.mu.Unlock()
	}
}

func (a *app) Run() {
	defer close(a.served)
	a.lock()
	a.srv = &server{stopped: make(chan struct{})}
	s := a.srv
	a.unlock()
	<-s.stopped
}

func (a *app) Shutdown() {
	a.lock()
	s := a.srv
	a.unlock()
	if s != nil {
		close(s.stopped)
		<-a.served
	}
}

func run(locked bool) {
	a := &app{locked: locked, served: make(chan struct{})}
	go a.Run()
	time.Sleep(10 * time.Millisecond)
	a.Shutdown()
}

func TestRaceServerShutdown(t *testing.T) { run(false) }

func TestNoRaceServerShutdown(t *testing.T) { run(true) }
