package lib

import "sync"

// Counter is a mutex-guarded counter.
type Counter struct {
	mu sync.Mutex
	n  int
}

func NewCounter() *Counter { return &Counter{} }

func (c *Counter) Inc() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.n++
}

func (c *Counter) Value() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n
}
