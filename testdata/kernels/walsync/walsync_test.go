// Package walsync is modelled on prometheus-junkyard/tsdb#174 (data race in wal
// sync): the WAL's run goroutine synced the current segment from a select
// loop on a ticker, while cut closed that segment in a goroutine of its
// own. The fixed twin closes the old segment from the run loop.
package walsync

import (
	"testing"
	"time"
)

type segment struct {
	fd     int
	closed bool
}

func (s *segment) sync() int { return s.fd }

func (s *segment) close() { s.closed = true; s.fd = -1 }

type wal struct {
	cur    *segment
	cutCh  chan *segment
	stopCh chan struct{}
	done   chan struct{}
}

func (w *wal) run() {
	defer close(w.done)
	tick := time.NewTicker(100 * time.Microsecond)
	defer tick.Stop()
	for {
		select {
		case <-tick.C:
			_ = w.cur.sync()
		case old := <-w.cutCh:
			old.close()
		case <-w.stopCh:
			return
		}
	}
}

func newWAL() *wal {
	w := &wal{cur: &segment{fd: 3}, cutCh: make(chan *segment), stopCh: make(chan struct{}), done: make(chan struct{})}
	go w.run()
	return w
}

func TestRaceWALSyncCut(t *testing.T) {
	w := newWAL()
	time.Sleep(time.Millisecond)
	old := w.cur
	closed := make(chan struct{})
	go func() { old.close(); close(closed) }() // cut closes the segment run still syncs
	time.Sleep(time.Millisecond)
	close(w.stopCh)
	<-w.done
	<-closed
}

func TestNoRaceWALSyncCut(t *testing.T) {
	w := newWAL()
	time.Sleep(time.Millisecond)
	w.cutCh <- w.cur
	close(w.stopCh)
	<-w.done
	if !w.cur.closed {
		t.Fatal("segment not closed")
	}
}
