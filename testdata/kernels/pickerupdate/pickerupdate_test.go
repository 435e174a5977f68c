// Package pickerupdate is modelled on grpc/grpc-go#4551 (xds/clusterimpl: fix race
// between picker update and ClientConn state update, fixes #4550): the
// balancer's run goroutine handled picker updates in a select loop and
// read the drop configuration, which UpdateClientConnState wrote on the
// caller's goroutine. The fixed twin sends the configuration to the run
// loop, which alone touches it.
package pickerupdate

import (
	"testing"
)

type balancer struct {
	pickerCh chan int
	configCh chan []string
	done     chan struct{}
	drops    []string
	picks    int
}

func newBalancer() *balancer {
	b := &balancer{pickerCh: make(chan int), configCh: make(chan []string), done: make(chan struct{})}
	go b.run()
	return b
}

func (b *balancer) run() {
	defer close(b.done)
	for {
		select {
		case p, ok := <-b.pickerCh:
			if !ok {
				return
			}
			b.picks += p + len(b.drops)
		case d := <-b.configCh:
			b.drops = d
		}
	}
}

func TestRacePickerConfigUpdate(t *testing.T) {
	b := newBalancer()
	b.pickerCh <- 1
	b.drops = []string{"throttle"} // UpdateClientConnState, on the caller
	b.pickerCh <- 1
	close(b.pickerCh)
	<-b.done
}

func TestNoRacePickerConfigUpdate(t *testing.T) {
	b := newBalancer()
	b.pickerCh <- 1
	b.configCh <- []string{"throttle"}
	b.pickerCh <- 1
	close(b.pickerCh)
	<-b.done
	if b.picks != 3 {
		t.Fatalf("picks %d, want 3", b.picks)
	}
}
