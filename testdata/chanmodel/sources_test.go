package chanmodel

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"testing"
	"time"
)

// Synchronization whose sending side runs in code bigfoot does not
// instrument: timers, time.AfterFunc, and package context. Each orders
// only what Go's race runtime orders (docs/runtime.md, "Values from
// uninstrumented code"), not everything instrumented goroutines did.

// A time.AfterFunc callback is ordered after the call of AfterFunc, not
// after what the caller does next.
func TestRaceAfterFuncCallerReads(t *testing.T) {
	var x int
	done := make(chan struct{})
	time.AfterFunc(time.Millisecond, func() {
		x = 1
		close(done)
	})
	_ = x
	<-done
}

// A goroutine's write and a receive from a timer's channel are unordered:
// the timer orders only its creation before the receive.
func TestRaceTimerReceive(t *testing.T) {
	var x int
	wrote := make(chan struct{})
	go func() {
		x = 1
		close(wrote)
	}()
	tm := time.NewTimer(5 * time.Millisecond)
	<-tm.C
	_ = x
	<-wrote
}

// A receive from a context's Done channel acquires the cancel, not the
// past of a goroutine that never synchronized with the canceller.
func TestRaceContextDoneUnrelatedWriter(t *testing.T) {
	var x int
	ctx, cancel := context.WithCancel(context.Background())
	wrote, read := make(chan struct{}), make(chan struct{})
	go func() {
		x = 1
		close(wrote)
	}()
	go func() {
		<-ctx.Done()
		_ = x
		close(read)
	}()
	cancel()
	<-read
	<-wrote
}

// A time.AfterFunc callback is ordered after the call of AfterFunc.
func TestNoRaceAfterFuncCallerWrote(t *testing.T) {
	var x int
	done := make(chan struct{})
	x = 1
	time.AfterFunc(time.Millisecond, func() {
		_ = x
		close(done)
	})
	<-done
	x = 2
}

// The cancel happens before a receive from Done that observes it.
func TestNoRaceContextCancelDone(t *testing.T) {
	var x int
	ctx, cancel := context.WithCancel(context.Background())
	read := make(chan struct{})
	go func() {
		<-ctx.Done()
		_ = x
		close(read)
	}()
	time.Sleep(time.Millisecond)
	x = 1
	cancel()
	<-read
}

// Err returning an error observes the cancel (Done is called only after
// it: the context hands out its shared closed channel).
func TestNoRaceContextCancelErr(t *testing.T) {
	var x int
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		x = 1
		cancel()
	}()
	for ctx.Err() == nil {
		time.Sleep(100 * time.Microsecond)
	}
	<-ctx.Done()
	_ = x
}

// Cancelling a parent cancels its children in the canceller's goroutine.
func TestNoRaceContextParentCancel(t *testing.T) {
	var x int
	parent, cancel := context.WithCancel(context.Background())
	child, cancelChild := context.WithTimeout(parent, time.Hour)
	defer cancelChild()
	read := make(chan struct{})
	go func() {
		<-child.Done()
		_ = x
		close(read)
	}()
	time.Sleep(time.Millisecond)
	x = 1
	cancel()
	<-read
}

// context.AfterFunc's function runs on a goroutine the cancel starts.
func TestNoRaceContextAfterFunc(t *testing.T) {
	var x int
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	context.AfterFunc(ctx, func() {
		_ = x
		close(done)
	})
	x = 1
	cancel()
	<-done
}

// customCtx is a context whose Done channel its own code closes: package
// context watches it from a goroutine of its own.
type customCtx struct {
	context.Context
	done chan struct{}
}

func (c *customCtx) Done() <-chan struct{} { return c.done }

func (c *customCtx) Err() error {
	select {
	case <-c.done:
		return context.Canceled
	default:
		return nil
	}
}

// A child of a foreign context is cancelled by context's watching
// goroutine after it observed the parent's close.
func TestNoRaceContextForeignParent(t *testing.T) {
	var x int
	parent := &customCtx{Context: context.Background(), done: make(chan struct{})}
	child, cancel := context.WithCancel(parent)
	defer cancel()
	read := make(chan struct{})
	go func() {
		<-child.Done()
		_ = x
		close(read)
	}()
	time.Sleep(time.Millisecond)
	x = 1
	close(parent.done)
	<-read
}

// A handler runs on a goroutine net/http starts inside Serve, which Go's
// race runtime orders after the call of Serve; the client here started
// before the write and did not synchronize with it.
func TestNoRaceHTTPHandlerAfterServe(t *testing.T) {
	var data int
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Skip(err)
	}
	client := make(chan string)
	go func() {
		time.Sleep(10 * time.Millisecond)
		resp, err := http.Get("http://" + ln.Addr().String())
		if err != nil {
			client <- err.Error()
			return
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		client <- string(b)
	}()
	data = 42
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, data)
	})}
	go srv.Serve(ln)
	if got := <-client; got != "42" {
		t.Errorf("got %q, want 42", got)
	}
	srv.Close()
}
