// Package errprinted is modelled on kubernetes/kubernetes#71614 (kubelet panic:
// concurrent map write): the remote runtime service recorded in a map
// which container errors it had already logged, and concurrent
// ContainerStatus calls wrote it with no lock. The fixed twin guards the
// map with the service's mutex.
package errprinted

import (
	"sync"
	"testing"
)

type remoteRuntime struct {
	mu           sync.Mutex
	errorPrinted map[string]bool
}

func (r *remoteRuntime) containerStatus(id string) {
	if !r.errorPrinted[id] {
		r.errorPrinted[id] = true
	}
}

func (r *remoteRuntime) containerStatusLocked(id string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.containerStatus(id)
}

func statuses(status func(string)) {
	var wg sync.WaitGroup
	for _, id := range []string{"a", "b", "c"} {
		wg.Add(1)
		go func() { defer wg.Done(); status(id) }()
	}
	wg.Wait()
}

func TestRaceErrorPrintedMap(t *testing.T) {
	r := &remoteRuntime{errorPrinted: map[string]bool{}}
	statuses(r.containerStatus)
}

func TestNoRaceErrorPrintedMap(t *testing.T) {
	r := &remoteRuntime{errorPrinted: map[string]bool{}}
	statuses(r.containerStatusLocked)
	if len(r.errorPrinted) != 3 {
		t.Fatalf("%d entries, want 3", len(r.errorPrinted))
	}
}
