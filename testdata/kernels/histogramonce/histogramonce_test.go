// Package histogramonce is modelled on istio/istio#10036 (set of fixes to various data
// races): every gRPC server start called grpc-prometheus's
// EnableHandlingTimeHistogram, which wrote a package-level flag that
// concurrently starting servers also wrote and read; the review replaced
// the call by a sync.Once, as the fixed twin does.
package histogramonce

import (
	"sync"
	"testing"
)

var histogramEnabled bool

var enableOnce sync.Once

func enableHandlingTimeHistogram() {
	if !histogramEnabled {
		histogramEnabled = true
	}
}

func startServers(enable func()) {
	var wg sync.WaitGroup
	for range 2 {
		wg.Add(1)
		go func() { defer wg.Done(); enable() }()
	}
	wg.Wait()
}

func TestRaceHistogramFlag(t *testing.T) {
	histogramEnabled = false
	startServers(enableHandlingTimeHistogram)
}

func TestNoRaceHistogramFlag(t *testing.T) {
	startServers(func() { enableOnce.Do(enableHandlingTimeHistogram) })
	if !histogramEnabled {
		t.Fatal("histogram not enabled")
	}
}
