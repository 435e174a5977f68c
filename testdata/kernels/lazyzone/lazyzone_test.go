// Package lazyzone is modelled on apache/arrow#38795 ([Go] Data race of calling
// GetToTimeFunc of fixed timestamp data type): TimestampType initialised
// its location field lazily on first use, with no synchronization, and
// the type was a shared package-level value used by concurrent readers.
// The fixed twin initialises it under a sync.Once.
package lazyzone

import (
	"sync"
	"testing"
	"time"
)

type timestampType struct {
	zone string
	once sync.Once
	loc  *time.Location
}

func (t *timestampType) location() *time.Location {
	if t.loc == nil {
		t.loc = time.FixedZone(t.zone, 0)
	}
	return t.loc
}

func (t *timestampType) locationOnce() *time.Location {
	t.once.Do(func() { t.loc = time.FixedZone(t.zone, 0) })
	return t.loc
}

func readers(get func() *time.Location) {
	start := make(chan struct{})
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			_ = get().String()
		}()
	}
	close(start)
	wg.Wait()
}

func TestRaceLazyLocation(t *testing.T) {
	ts := &timestampType{zone: "UTC"}
	readers(ts.location)
}

func TestNoRaceLazyLocation(t *testing.T) {
	ts := &timestampType{zone: "UTC"}
	readers(ts.locationOnce)
}
