// Package dnsmap is modelled on kubernetes/kubernetes#44711 (concurrent map writes
// in pkg/dns): the endpoints and service event handlers ran on their own
// goroutines and both updated the DNS cache map without a lock. The fixed
// twin takes the cache's mutex in both handlers.
package dnsmap

import (
	"sync"
	"testing"
)

type kubeDNS struct {
	mu    sync.Mutex
	cache map[string]string
}

func (k *kubeDNS) add(name, ip string, locked bool) {
	if locked {
		k.mu.Lock()
		defer k.mu.Unlock()
	}
	k.cache[name] = ip
}

func handlers(k *kubeDNS, locked bool) {
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); k.add("svc.default", "10.0.0.1", locked) }()
	go func() { defer wg.Done(); k.add("ep.default", "10.0.0.2", locked) }()
	wg.Wait()
}

func TestRaceDNSCacheMap(t *testing.T) {
	handlers(&kubeDNS{cache: map[string]string{}}, false)
}

func TestNoRaceDNSCacheMap(t *testing.T) {
	k := &kubeDNS{cache: map[string]string{}}
	handlers(k, true)
	if len(k.cache) != 2 {
		t.Fatalf("%d entries, want 2", len(k.cache))
	}
}
