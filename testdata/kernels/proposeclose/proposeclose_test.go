// Package proposeclose is modelled on etcd-io/etcd#14095 (fix the DATA RACE issue of
// TestCloseProposerInflight): the test's goroutine sent proposals on
// proposeC while cluster.Close closed it, and the race detector reported
// the close against the send. The fixed twin waits for the proposer to
// finish before closing.
package proposeclose

import (
	"testing"
	"time"
)

type cluster struct {
	proposeC chan string
}

func TestRaceCloseProposerInflight(t *testing.T) {
	c := &cluster{proposeC: make(chan string, 2)}
	sent := make(chan struct{})
	go func() {
		c.proposeC <- "foo"
		close(sent)
	}()
	time.Sleep(2 * time.Millisecond)
	close(c.proposeC) // Close, with no order from the send
	<-sent
}

func TestNoRaceCloseProposerInflight(t *testing.T) {
	c := &cluster{proposeC: make(chan string, 2)}
	sent := make(chan struct{})
	go func() {
		c.proposeC <- "foo"
		close(sent)
	}()
	<-sent
	close(c.proposeC)
	if p := <-c.proposeC; p != "foo" {
		t.Fatalf("proposal %q", p)
	}
}
