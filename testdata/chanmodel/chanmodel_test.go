// Package chanmodel holds channel and select programs whose races depend on
// which case of a select fired and which send a receive matched. Tests named
// TestRace* have a race that go test -race reports in every run; tests
// named TestNoRace* have none. cmd/bigfoot's TestChanModel runs each, in
// its own process, under go test -race and under bigfoot in every mode.
package chanmodel

import (
	"sync"
	"testing"
	"time"
)

// The program of issue 13: the select's send on stop does not publish R's
// write to S, which S's receive of stop would acquire only if the select
// also announced itself as a receiver (or a sender on done).
func TestRaceSelectSendDoesNotPublishOthers(t *testing.T) {
	var x int
	park, stop, done := make(chan struct{}), make(chan struct{}), make(chan struct{})
	go func() { // S
		go func() { // R
			x = 1
			select {
			case <-park:
			}
		}()
		time.Sleep(10 * time.Millisecond)
		<-stop
		_ = x // races with R's write
		close(park)
		close(done)
	}()
	select {
	case stop <- struct{}{}:
	case <-done:
	}
	<-done
}

// A select's send case that does not fire publishes nothing: R writes x
// and blocks in a select whose send case on c fires only at the end; S
// receives from c2 what main sends and reads x.
func TestRaceSelectUnfiredSend(t *testing.T) {
	var x int
	c, c2, park, done := make(chan int), make(chan int), make(chan int), make(chan struct{})
	go func() { // R
		x = 1
		select {
		case c <- 1:
		case <-park:
		}
	}()
	go func() { // S
		time.Sleep(10 * time.Millisecond)
		<-c2
		_ = x // races with R's write
		close(done)
	}()
	select {
	case c2 <- 2:
	case <-done:
	}
	<-done
	<-c // release R
}

// A select's receive case that does not fire is no receiver: R blocks in
// a select with receive cases on a and b, a sender on a acquires nothing
// of R, and R, woken by b, is not ordered before that sender's read.
func TestRaceSelectUnfiredReceive(t *testing.T) {
	var x int
	a, b, done := make(chan int, 1), make(chan int), make(chan struct{})
	go func() { // R
		x = 1
		select {
		case <-b:
		case <-done:
		}
	}()
	time.Sleep(10 * time.Millisecond)
	a <- 1 // the capacity rule orders no receive of b or done before this
	<-a
	_ = x // races with R's write
	close(done)
}

// A receive from a buffered channel acquires the send it got, not the
// sends after it: the producer's write between two sends races with the
// consumer's read after the first receive.
func TestRaceBufferedLaterSend(t *testing.T) {
	var x int
	jobs := make(chan int, 4)
	done := make(chan struct{})
	go func() {
		<-jobs
		_ = x // races with the write below
		close(done)
	}()
	jobs <- 1
	x = 1
	jobs <- 2
	<-done
}

// Two senders blocked on a full buffered channel at once: a receive gets
// the value of one of them and acquires that send only (Go's race runtime
// keeps a clock per buffer slot), so the other sender's write before its
// send races with the receiver's read, whichever sender came first. A
// known miss of bigfoot (docs/runtime.md, "Channels": both sends are in
// flight together, and the counts cannot tell which one the receive got),
// listed in cmd/bigfoot's chanModelMisses.
func TestRaceBlockedSendersOverlap(t *testing.T) {
	var x, y int
	ch := make(chan int, 1)
	ch <- 0
	go func() { x = 1; ch <- 1 }()
	go func() { time.Sleep(10 * time.Millisecond); y = 1; ch <- 2 }()
	time.Sleep(30 * time.Millisecond)
	<-ch
	<-ch
	_, _ = x, y // one of the two reads races with its sender's write
	<-ch
}

// A select with a default case in a loop, retracted each time, leaves no
// announcement behind that a later receive could acquire.
func TestRaceSelectDefaultLoop(t *testing.T) {
	var x int
	ch, park := make(chan int, 1), make(chan int)
	go func() {
		x = 1
		for i := 0; i < 50; i++ {
			select {
			case park <- i:
			default:
			}
		}
		<-park
	}()
	time.Sleep(10 * time.Millisecond)
	ch <- 1
	<-ch
	_ = x // races: nothing ordered the goroutine's write before
	park <- 0
}

// Receives do not order one another: two consumers of a buffered channel
// are unordered although both receive from it.
func TestRaceReceiversUnordered(t *testing.T) {
	var x int
	ch := make(chan int, 2)
	var wg sync.WaitGroup
	wg.Add(2)
	ch <- 1
	ch <- 2
	go func() {
		defer wg.Done()
		<-ch
		x = 1
	}()
	go func() {
		defer wg.Done()
		time.Sleep(10 * time.Millisecond)
		<-ch
		_ = x // races with the other consumer's write
	}()
	wg.Wait()
}

// A select's send that fired publishes the sender's past to the receiver.
func TestNoRaceSelectSend(t *testing.T) {
	var x int
	ch, other := make(chan int), make(chan int)
	go func() {
		x = 1
		select {
		case ch <- 1:
		case <-other:
		}
	}()
	<-ch
	_ = x
}

// A select's receive that fired acquires the sender's past; on an
// unbuffered channel the sender acquires the receiver's past.
func TestNoRaceSelectReceiveBothWays(t *testing.T) {
	var x, y int
	ch, other := make(chan int), make(chan int)
	done := make(chan struct{})
	go func() {
		y = 1
		select {
		case v := <-ch:
			x = v
		case other <- 1:
		}
		close(done)
	}()
	time.Sleep(5 * time.Millisecond)
	ch <- 2
	_ = y // the receive happens before the unbuffered send completes
	<-done
	_ = x
}

// The capacity rule: a buffered channel of capacity 1 used as a lock, with
// selects on both sides.
func TestNoRaceSelectSemaphore(t *testing.T) {
	var x int
	sem := make(chan struct{}, 1)
	quit := make(chan struct{})
	var wg sync.WaitGroup
	for i := 0; i < 4; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := 0; j < 20; j++ {
				select {
				case sem <- struct{}{}:
				case <-quit:
					return
				}
				x++
				select {
				case <-sem:
				case <-quit:
					return
				}
			}
		}()
	}
	wg.Wait()
	_ = x
}

// A close observed by a select's receive case orders the closer's past.
func TestNoRaceSelectClosed(t *testing.T) {
	var x int
	done, never := make(chan struct{}), make(chan int)
	go func() {
		x = 1
		close(done)
	}()
	select {
	case <-done:
	case <-never:
	}
	_ = x
}

// Many producers and consumers through a buffered channel, each value a
// pointer the producer initialized.
func TestNoRaceBufferedManyToMany(t *testing.T) {
	ch := make(chan *int, 3)
	var wg sync.WaitGroup
	for i := 0; i < 4; i++ {
		wg.Add(2)
		go func() {
			defer wg.Done()
			for j := 0; j < 50; j++ {
				p := new(int)
				*p = j
				select {
				case ch <- p:
				}
			}
		}()
		go func() {
			defer wg.Done()
			for j := 0; j < 50; j++ {
				*<-ch++
			}
		}()
	}
	wg.Wait()
}

// A select's send case reads the channel, and a close writes it: a close
// that nothing orders with the select races with it, whichever runs
// first (Go's TestRaceChanSendSelectClose; here the select's other case
// never fires, so its send case is always polled). A send on the closed
// channel panics; the test recovers.
func TestRaceSelectSendClose(t *testing.T) {
	c, never := make(chan int, 1), make(chan int)
	done := make(chan bool, 2)
	go func() {
		defer func() {
			recover()
			done <- true
		}()
		select {
		case c <- 1:
		case <-never:
		}
	}()
	go func() {
		close(c)
		done <- true
	}()
	<-done
	<-done
}

// A close after the select's send is ordered before it (the closer
// receives the value) does not race.
func TestNoRaceSelectSendThenClose(t *testing.T) {
	c, never := make(chan int, 1), make(chan int)
	go func() {
		select {
		case c <- 1:
		case <-never:
		}
	}()
	<-c
	close(c)
}

// A send racing with a close, the close usually first (Go's
// TestRaceChanSendClose with the sleep moved to the sender): the send
// reads the channel before it panics on the close, whichever runs first.
func TestRaceSendAfterClose(t *testing.T) {
	c := make(chan int, 1)
	done := make(chan bool, 2)
	go func() {
		defer func() {
			recover()
			done <- true
		}()
		time.Sleep(10 * time.Millisecond)
		c <- 1
	}()
	go func() {
		close(c)
		done <- true
	}()
	<-done
	<-done
}
