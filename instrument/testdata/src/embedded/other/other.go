// Package other declares types whose mutexes are reached through
// unexported embedded fields.
package other

import "sync"

type inner struct {
	sync.Mutex
	n int
}

// Counter embeds an unexported type that embeds a mutex: Counter's
// method set includes Lock and Unlock, promoted through inner.
type Counter struct {
	inner
}

func (c *Counter) Inc() { c.n++ }

func (c *Counter) N() int { return c.n }
