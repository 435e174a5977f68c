// Package cancelfunc is modelled on oasisprotocol/oasis-core#3024 (go/runtime/host/
// sandbox: fix possible data race): the cancel function of the
// initialisation context, read through the sandbox by a goroutine waiting
// for initialisation, was overwritten by the next start. The fixed twin
// gives the goroutine its own copy.
package cancelfunc

import (
	"context"
	"testing"
	"time"
)

type sandbox struct {
	cancel context.CancelFunc
}

func (s *sandbox) start(own bool) (context.CancelFunc, <-chan struct{}) {
	ctx, cancel := context.WithCancel(context.Background())
	s.cancel = cancel
	fired := make(chan struct{})
	go func() {
		defer close(fired)
		time.Sleep(time.Millisecond)
		if own {
			cancel()
		} else {
			s.cancel()
		}
		<-ctx.Done()
	}()
	return cancel, fired
}

func restart(own bool) {
	s := &sandbox{}
	c1, f1 := s.start(own)
	c2, f2 := s.start(own)
	go c1() // the first start's context may have been missed
	go c2()
	<-f1
	<-f2
}

func TestRaceCancelFuncOverwritten(t *testing.T) { restart(false) }

func TestNoRaceCancelFuncOverwritten(t *testing.T) { restart(true) }
