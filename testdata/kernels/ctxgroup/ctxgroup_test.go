// Package ctxgroup is modelled on ipfs/kubo#878 (context: always call returned
// cancel funcs): go-ctxgroup's AddChildFunc called wg.Add on the child's
// goroutine while closeLogic, run once by Close, waited on the same
// WaitGroup; the race detector reported the Add and the Wait. The fixed
// twin adds the child before Close can run.
package ctxgroup

import (
	"context"
	"sync"
	"testing"
	"time"
)

type contextGroup struct {
	ctx      context.Context
	cancel   context.CancelFunc
	children sync.WaitGroup
	closed   int
}

func newGroup() *contextGroup {
	ctx, cancel := context.WithCancel(context.Background())
	return &contextGroup{ctx: ctx, cancel: cancel}
}

func (g *contextGroup) child() {
	defer g.children.Done()
	<-g.ctx.Done()
	g.closed++
}

func (g *contextGroup) close() int {
	g.cancel()
	g.children.Wait()
	return g.closed
}

func TestRaceContextGroupAddChild(t *testing.T) {
	g := newGroup()
	exited := make(chan struct{})
	go func() {
		defer close(exited)
		time.Sleep(time.Millisecond)
		g.children.Add(1)
		g.child()
	}()
	_ = g.close()
	<-exited
}

func TestNoRaceContextGroupAddChild(t *testing.T) {
	g := newGroup()
	g.children.Add(1)
	go g.child()
	if n := g.close(); n != 1 {
		t.Fatalf("closed %d children, want 1", n)
	}
}
