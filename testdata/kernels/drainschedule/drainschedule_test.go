// Package drainschedule is modelled on planetlabs/draino#86 (data race in the drain
// scheduler), a Kubernetes node drainer: the time.AfterFunc callback of a
// schedule wrote its finish time while the event handler read it in
// HasSchedule. The fixed twin guards the schedule with a mutex.
package drainschedule

import (
	"sync"
	"testing"
	"time"
)

type schedule struct {
	mu       sync.Mutex
	finish   time.Time
	finished bool
}

func (s *schedule) start(locked bool, done chan<- struct{}) {
	time.AfterFunc(time.Millisecond, func() {
		if locked {
			s.mu.Lock()
			defer s.mu.Unlock()
		}
		s.finish = time.Now()
		s.finished = true
		close(done)
	})
}

func (s *schedule) hasSchedule(locked bool) bool {
	if locked {
		s.mu.Lock()
		defer s.mu.Unlock()
	}
	return !s.finished
}

func poll(locked bool) {
	s := &schedule{}
	done := make(chan struct{})
	s.start(locked, done)
	for range 4 {
		_ = s.hasSchedule(locked)
		time.Sleep(time.Millisecond)
	}
	<-done
}

func TestRaceDrainSchedule(t *testing.T) { poll(false) }

func TestNoRaceDrainSchedule(t *testing.T) { poll(true) }
