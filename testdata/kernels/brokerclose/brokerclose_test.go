// Package brokerclose is modelled on influxdata/influxdb#2324 (race in
// Broker.Close()/Broker.RunContinousQueryProcessing()): the broker's
// continuous-query loop, a select on a ticker and a done channel, read
// the broker's state that Close reset without synchronizing with the
// loop. The fixed twin waits for the loop to exit before Close resets.
package brokerclose

import (
	"testing"
	"time"
)

type broker struct {
	done   chan struct{}
	exited chan struct{}
	leader string
}

func (b *broker) loop() {
	defer close(b.exited)
	tick := time.NewTicker(100 * time.Microsecond)
	defer tick.Stop()
	for {
		select {
		case <-tick.C:
			_ = b.leader // requestContinuousQueryProcessing
		case <-b.done:
			return
		}
	}
}

func open() *broker {
	b := &broker{done: make(chan struct{}), exited: make(chan struct{}), leader: "n1"}
	go b.loop()
	time.Sleep(time.Millisecond)
	return b
}

func TestRaceBrokerClose(t *testing.T) {
	b := open()
	b.leader = "" // Close resets the state first
	close(b.done)
	<-b.exited
}

func TestNoRaceBrokerClose(t *testing.T) {
	b := open()
	close(b.done)
	<-b.exited
	b.leader = ""
}
