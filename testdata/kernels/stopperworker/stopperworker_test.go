// Package stopperworker is modelled on cockroachdb/cockroach#636: util.Stopper's
// AddWorker (wg.Add) ran on the worker's goroutine, concurrent with
// Stopper.Stop (wg.Wait), so Stop could return while a worker still
// wrote the stopper's state. The fixed twin adds the worker before starting
// it.
package stopperworker

import (
	"sync"
	"testing"
	"time"
)

type stopper struct {
	wg      sync.WaitGroup
	stopper chan struct{}
	ran     int
}

func (s *stopper) runWorkerLate(exited chan<- struct{}) {
	go func() {
		defer close(exited)
		time.Sleep(time.Millisecond)
		s.wg.Add(1)
		defer s.wg.Done()
		s.ran++
	}()
}

func (s *stopper) runWorker() {
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		time.Sleep(time.Millisecond)
		s.ran++
	}()
}

func (s *stopper) stop() int {
	close(s.stopper)
	s.wg.Wait()
	return s.ran
}

func TestRaceStopperAddWorker(t *testing.T) {
	s := &stopper{stopper: make(chan struct{})}
	exited := make(chan struct{})
	s.runWorkerLate(exited)
	_ = s.stop()
	<-exited
}

func TestNoRaceStopperAddWorker(t *testing.T) {
	s := &stopper{stopper: make(chan struct{})}
	s.runWorker()
	if n := s.stop(); n != 1 {
		t.Fatalf("ran %d workers, want 1", n)
	}
}
