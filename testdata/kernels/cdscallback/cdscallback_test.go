// Package cdscallback is modelled on grpc/grpc-go#6786 (race between CDS handling for
// security configuration and new SubConn): handleSecurityConfig ran as a
// callback on the callback serializer's goroutine and wrote the balancer's
// security config, while NewSubConn, called by the child policy on
// another goroutine, read it. The fixed twin guards the field with a
// mutex.
package cdscallback

import (
	"sync"
	"testing"
)

type cdsBalancer struct {
	mu      sync.Mutex
	locked  bool
	xdsHI   string
	updates chan func()
}

func (b *cdsBalancer) run() {
	for f := range b.updates {
		f()
	}
}

func (b *cdsBalancer) handleSecurityConfig(cfg string) {
	b.updates <- func() {
		if b.locked {
			b.mu.Lock()
			defer b.mu.Unlock()
		}
		b.xdsHI = cfg
	}
}

func (b *cdsBalancer) newSubConn() string {
	if b.locked {
		b.mu.Lock()
		defer b.mu.Unlock()
	}
	return b.xdsHI
}

func scenario(locked bool) {
	b := &cdsBalancer{locked: locked, updates: make(chan func())}
	done := make(chan struct{})
	go func() { b.run(); close(done) }()
	b.handleSecurityConfig("tls")
	_ = b.newSubConn()
	close(b.updates)
	<-done
}

func TestRaceSecurityConfigCallback(t *testing.T) { scenario(false) }

func TestNoRaceSecurityConfigCallback(t *testing.T) { scenario(true) }
