// Package pushcontext is modelled on istio/istio#28878 (Istiod data race): two ADS
// streams initialised the shared PushContext at once; InitContext checked
// whether it was initialised before taking its lock, a double-checked
// lock whose unlocked read raced with the initialising write. The fixed
// twin reads the flag under the lock.
package pushcontext

import (
	"sync"
	"testing"
)

type pushContext struct {
	mu          sync.Mutex
	initDone    bool
	serviceByID map[string]int
}

func (ps *pushContext) initRacy() {
	if ps.initDone {
		return
	}
	ps.mu.Lock()
	defer ps.mu.Unlock()
	if ps.initDone {
		return
	}
	ps.serviceByID = map[string]int{"reviews": 1}
	ps.initDone = true
}

func (ps *pushContext) init() {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	if ps.initDone {
		return
	}
	ps.serviceByID = map[string]int{"reviews": 1}
	ps.initDone = true
}

func streams(ps *pushContext, init func()) {
	var wg sync.WaitGroup
	for range 3 {
		wg.Add(1)
		go func() { defer wg.Done(); init() }()
	}
	wg.Wait()
}

func TestRacePushContextInit(t *testing.T) {
	ps := &pushContext{}
	streams(ps, ps.initRacy)
}

func TestNoRacePushContextInit(t *testing.T) {
	ps := &pushContext{}
	streams(ps, ps.init)
	if ps.serviceByID["reviews"] != 1 {
		t.Fatal("not initialised")
	}
}
