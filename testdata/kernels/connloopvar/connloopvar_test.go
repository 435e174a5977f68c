// Package connloopvar is modelled on syncthing/syncthing#8321 (lib/connections:
// correct race on loop variable, fixes #8320): the connection variable c
// was declared outside the loop and assigned in each iteration, while a
// goroutine started in the previous iteration still read it. The fixed
// twin declares c inside the loop.
package connloopvar

import (
	"sync"
	"testing"
)

type conn struct{ id int }

func (c *conn) close() int { return c.id }

func closeAllShared(conns []*conn) {
	var wg sync.WaitGroup
	var c *conn
	for i := range conns {
		c = conns[i]
		wg.Add(1)
		go func() { defer wg.Done(); _ = c.close() }()
	}
	wg.Wait()
}

func closeAll(conns []*conn) int {
	var wg sync.WaitGroup
	ids := make([]int, len(conns))
	for i := range conns {
		c := conns[i]
		wg.Add(1)
		go func() { defer wg.Done(); ids[i] = c.close() }()
	}
	wg.Wait()
	return ids[0] + ids[1] + ids[2]
}

func TestRaceSharedLoopConn(t *testing.T) {
	closeAllShared([]*conn{{1}, {2}, {3}})
}

func TestNoRaceSharedLoopConn(t *testing.T) {
	if n := closeAll([]*conn{{1}, {2}, {3}}); n != 6 {
		t.Fatalf("sum %d, want 6", n)
	}
}
