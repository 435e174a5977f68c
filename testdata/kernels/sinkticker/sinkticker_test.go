// Package sinkticker is modelled on grpc/grpc-go#4604 (binarylog's
// bufferedSink): Write starts the flush ticker lazily under the sink's
// mutex, while Close stopped it without taking the mutex, so a Write and a
// Close in parallel race on the ticker field. The fixed twin locks in
// Close too, as the pull request did.
package sinkticker

import (
	"sync"
	"testing"
	"time"
)

type sink struct {
	mu     sync.Mutex
	buf    []byte
	ticker *time.Ticker
}

func (s *sink) Write(p []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ticker == nil {
		s.ticker = time.NewTicker(time.Hour)
	}
	s.buf = append(s.buf, p...)
}

func (s *sink) closeBare() {
	if s.ticker != nil {
		s.ticker.Stop()
	}
}

func (s *sink) closeLocked() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closeBare()
}

func writeAndClose(s *sink, close func()) {
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); s.Write([]byte("entry")) }()
	go func() { defer wg.Done(); close() }()
	wg.Wait()
	s.closeLocked()
}

func TestRaceSinkTicker(t *testing.T) {
	s := &sink{}
	writeAndClose(s, s.closeBare)
}

func TestNoRaceSinkTicker(t *testing.T) {
	s := &sink{}
	writeAndClose(s, s.closeLocked)
}
