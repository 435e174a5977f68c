// Package poolwait is modelled on knative/serving#3120 (pkg/pool): the worker pool's
// Wait started goroutines that called Add on the pool's WaitGroup, from
// another goroutine than Go's callers, and gathered the first error
// through a channel; the first error was read while a late worker still
// wrote it. The fixed twin records the first error under a sync.Once and
// adds each task before starting it, as the pull request did.
package poolwait

import (
	"sync"
	"testing"
	"time"
)

type pool struct {
	wg    sync.WaitGroup
	once  sync.Once
	first error
}

type taskErr int

func (e taskErr) Error() string { return "task failed" }

func (p *pool) goLate(i int, exited chan<- int) {
	go func() {
		defer func() { exited <- i }()
		time.Sleep(time.Millisecond)
		p.wg.Add(1)
		defer p.wg.Done()
		p.first = taskErr(i)
	}()
}

func (p *pool) goFixed(i int) {
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		p.once.Do(func() { p.first = taskErr(i) })
	}()
}

func TestRacePoolWait(t *testing.T) {
	p := &pool{}
	exited := make(chan int)
	for i := range 2 {
		p.goLate(i, exited)
	}
	p.wg.Wait()
	_ = p.first
	<-exited
	<-exited
}

func TestNoRacePoolWait(t *testing.T) {
	p := &pool{}
	for i := range 2 {
		p.goFixed(i)
	}
	p.wg.Wait()
	if p.first == nil {
		t.Fatal("no error recorded")
	}
}
