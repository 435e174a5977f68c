// Package lessorloop is modelled on etcd's lessor (etcd-io/etcd#8194, as
// extracted in the GoBench kernels, timmyyuan/gobench#8): a run loop
// selects on a ticker and a stop channel and reads a field that the test
// changes after the loop started, without the lessor's mutex. The fixed
// twin takes the mutex on both sides.
package lessorloop

import (
	"sync"
	"testing"
	"time"
)

type lessor struct {
	mu          sync.Mutex
	minLeaseTTL int64
	expired     int
	stopc       chan struct{}
	donec       chan struct{}
}

func newLessor() *lessor {
	return &lessor{minLeaseTTL: 5, stopc: make(chan struct{}), donec: make(chan struct{})}
}

// runLoop reads minLeaseTTL under the mutex if locked, else bare.
func (le *lessor) runLoop(locked bool) {
	defer close(le.donec)
	tick := time.NewTicker(time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-tick.C:
			if locked {
				le.mu.Lock()
			}
			if le.minLeaseTTL > 3 {
				le.expired++
			}
			if locked {
				le.mu.Unlock()
			}
		case <-le.stopc:
			return
		}
	}
}

func (le *lessor) stop() {
	close(le.stopc)
	<-le.donec
}

func TestRaceLessorLoop(t *testing.T) {
	le := newLessor()
	go le.runLoop(false)
	time.Sleep(10 * time.Millisecond)
	le.minLeaseTTL = 2 // the test's extension, racing with runLoop
	time.Sleep(10 * time.Millisecond)
	le.stop()
}

func TestNoRaceLessorLoop(t *testing.T) {
	le := newLessor()
	go le.runLoop(true)
	time.Sleep(10 * time.Millisecond)
	le.mu.Lock()
	le.minLeaseTTL = 2
	le.mu.Unlock()
	time.Sleep(10 * time.Millisecond)
	le.stop()
	_ = le.expired // after stop: ordered by donec
}
