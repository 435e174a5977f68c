// Package sharedconfig is modelled on gohugoio/hugo#10966 (commands: fix data race,
// for gohugoio/hugo#10953): the server's rebuild goroutine replaced the
// shared configuration while request handlers read it. The fixed twin
// wraps every use of the shared config in a lock, as the pull request
// did.
package sharedconfig

import (
	"sync"
	"testing"
)

type config struct{ baseURL string }

type commandeer struct {
	mu     sync.RWMutex
	locked bool
	conf   *config
}

func (c *commandeer) config() *config {
	if c.locked {
		c.mu.RLock()
		defer c.mu.RUnlock()
	}
	return c.conf
}

func (c *commandeer) setConfig(conf *config) {
	if c.locked {
		c.mu.Lock()
		defer c.mu.Unlock()
	}
	c.conf = conf
}

func serve(locked bool) {
	c := &commandeer{locked: locked, conf: &config{"http://localhost/"}}
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); c.setConfig(&config{"http://localhost:1313/"}) }()
	go func() { defer wg.Done(); _ = c.config().baseURL }()
	wg.Wait()
}

func TestRaceSharedConfig(t *testing.T) { serve(false) }

func TestNoRaceSharedConfig(t *testing.T) { serve(true) }
