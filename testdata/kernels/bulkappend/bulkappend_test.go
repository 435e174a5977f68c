// Package bulkappend is modelled on dapr/dapr#3323 (race condition in grpc/api.go):
// the bulk state handler appended each goroutine's result to one slice
// with no synchronization. The fixed twin collects the results over a
// channel, as the issue proposed.
package bulkappend

import (
	"sync"
	"testing"
)

type item struct{ key, value string }

func getBulkRacy(keys []string) []item {
	var items []item
	var wg sync.WaitGroup
	for _, k := range keys {
		wg.Add(1)
		go func() {
			defer wg.Done()
			items = append(items, item{k, "v"})
		}()
	}
	wg.Wait()
	return items
}

func getBulk(keys []string) []item {
	ch := make(chan item)
	for _, k := range keys {
		go func() { ch <- item{k, "v"} }()
	}
	items := make([]item, 0, len(keys))
	for range keys {
		items = append(items, <-ch)
	}
	return items
}

func TestRaceBulkAppend(t *testing.T) { getBulkRacy([]string{"a", "b", "c", "d"}) }

func TestNoRaceBulkAppend(t *testing.T) {
	if n := len(getBulk([]string{"a", "b", "c", "d"})); n != 4 {
		t.Fatalf("%d items, want 4", n)
	}
}
