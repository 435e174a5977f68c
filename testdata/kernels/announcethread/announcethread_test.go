// Package announcethread is modelled on celo-org/celo-blockchain#1586 (data race in
// WaitGroup caused by calling Add in goroutine): announceThread, started
// with a go statement, called wg.Add itself and ran a select loop until
// told to quit, so StopAnnouncing's wg.Wait could return before it and
// read the state the thread wrote on its way out. The fixed twin adds
// before the go statement.
package announcethread

import (
	"sync"
	"testing"
	"time"
)

type backend struct {
	wg       sync.WaitGroup
	quit     chan struct{}
	announce chan int
	sent     int
}

func (b *backend) loop() {
	for {
		select {
		case <-b.announce:
			b.sent++
		case <-b.quit:
			b.sent = -b.sent
			return
		}
	}
}

func (b *backend) announceThreadLate() {
	time.Sleep(time.Millisecond)
	b.wg.Add(1)
	defer b.wg.Done()
	b.loop()
}

func newBackend() *backend {
	return &backend{quit: make(chan struct{}), announce: make(chan int)}
}

func TestRaceAnnounceThreadAdd(t *testing.T) {
	b := newBackend()
	exited := make(chan struct{})
	go func() { b.announceThreadLate(); close(exited) }()
	close(b.quit)
	b.wg.Wait()
	_ = b.sent
	<-exited
}

func TestNoRaceAnnounceThreadAdd(t *testing.T) {
	b := newBackend()
	b.wg.Add(1)
	go func() { defer b.wg.Done(); b.loop() }()
	b.announce <- 1
	close(b.quit)
	b.wg.Wait()
	if b.sent != -1 {
		t.Fatalf("sent %d, want -1", b.sent)
	}
}
