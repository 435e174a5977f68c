// Package workerstop is modelled on milvus-io/milvus#25188 (data race in waitgroup
// for graceful stop): the workers of a pool, each ranging over the task
// channel, called wg.Add(1) on their own goroutine, so the graceful stop's
// wg.Wait raced with them and could return before the last results were
// written. The fixed twin adds before starting the workers.
package workerstop

import (
	"sync"
	"testing"
	"time"
)

type pool struct {
	wg    sync.WaitGroup
	tasks chan int
	done  []int
}

func newPool() *pool { return &pool{tasks: make(chan int), done: make([]int, 2)} }

func (p *pool) worker(i int) {
	for task := range p.tasks {
		p.done[i] += task
	}
	p.done[i]++
}

func TestRaceWorkerPoolStop(t *testing.T) {
	p := newPool()
	exited := make(chan int)
	for i := range 2 {
		go func() {
			defer func() { exited <- i }()
			time.Sleep(time.Millisecond)
			p.wg.Add(1)
			defer p.wg.Done()
			p.worker(i)
		}()
	}
	close(p.tasks)
	p.wg.Wait()
	_ = p.done[0] + p.done[1]
	<-exited
	<-exited
}

func TestNoRaceWorkerPoolStop(t *testing.T) {
	p := newPool()
	for i := range 2 {
		p.wg.Add(1)
		go func() { defer p.wg.Done(); p.worker(i) }()
	}
	for task := range 4 {
		p.tasks <- task
	}
	close(p.tasks)
	p.wg.Wait()
	if n := p.done[0] + p.done[1]; n != 8 {
		t.Fatalf("done %d, want 8", n)
	}
}
