// Package bytespipe is modelled on moby/moby#39445 (ioutils: fixed a potential data
// race in bytespipe; the same fix as moby/moby#23317 on the other read):
// Read returned bp.closeErr after unlocking bp.mu, while CloseWithError
// wrote it under the lock. The fixed twin copies the error before
// unlocking.
package bytespipe

import (
	"sync"
	"testing"
	"time"
)

type bytesPipe struct {
	mu       sync.Mutex
	closed   bool
	closeErr error
}

type pipeErr string

func (e pipeErr) Error() string { return string(e) }

func (bp *bytesPipe) closeWithError(err error) {
	bp.mu.Lock()
	bp.closeErr = err
	bp.closed = true
	bp.mu.Unlock()
}

func (bp *bytesPipe) waitClosed() {
	bp.mu.Lock()
	for !bp.closed {
		bp.mu.Unlock()
		time.Sleep(50 * time.Microsecond)
		bp.mu.Lock()
	}
}

func (bp *bytesPipe) readRacy() error {
	bp.waitClosed()
	bp.mu.Unlock()
	return bp.closeErr
}

func (bp *bytesPipe) read() error {
	bp.waitClosed()
	err := bp.closeErr
	bp.mu.Unlock()
	return err
}

func closeTwice(bp *bytesPipe, read func() error) error {
	go bp.closeWithError(pipeErr("first"))
	done := make(chan struct{})
	go func() {
		time.Sleep(5 * time.Millisecond)
		bp.closeWithError(pipeErr("second"))
		close(done)
	}()
	err := read()
	<-done
	return err
}

func TestRaceBytesPipeCloseErr(t *testing.T) {
	bp := &bytesPipe{}
	closeTwice(bp, bp.readRacy)
}

func TestNoRaceBytesPipeCloseErr(t *testing.T) {
	bp := &bytesPipe{}
	if err := closeTwice(bp, bp.read); err == nil {
		t.Fatal("no error")
	}
}
