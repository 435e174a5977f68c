// Package watchclose is modelled on etcd-io/etcd#6188 (proxy/grpcproxy: fix data race
// in watch close): when recvLoop returned it ran the stream's close,
// which ranged over the watchers map, while the client's requests, handled
// on another goroutine, still added watchers to it. The fixed twin takes
// the stream's mutex in both.
package watchclose

import (
	"sync"
	"testing"
)

type serverWatchStream struct {
	mu       sync.Mutex
	locked   bool
	watchers map[int]string
}

func (s *serverWatchStream) lock() func() {
	if !s.locked {
		return func() {}
	}
	s.mu.Lock()
	return s.mu.Unlock
}

func (s *serverWatchStream) close() int {
	defer s.lock()()
	n := 0
	for range s.watchers {
		n++
	}
	return n
}

func (s *serverWatchStream) recvLoop(reqs <-chan int) {
	defer s.close()
	for range reqs {
	}
}

func (s *serverWatchStream) addWatcher(id int) {
	defer s.lock()()
	s.watchers[id] = "key"
}

func stream(locked bool) {
	s := &serverWatchStream{locked: locked, watchers: map[int]string{}}
	reqs := make(chan int)
	done := make(chan struct{})
	go func() { s.recvLoop(reqs); close(done) }()
	close(reqs)
	s.addWatcher(1)
	<-done
}

func TestRaceWatchStreamClose(t *testing.T) { stream(false) }

func TestNoRaceWatchStreamClose(t *testing.T) { stream(true) }
