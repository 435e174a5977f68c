// Package errsappend is modelled on kubernetes/kubernetes#134107 (fix: resolve data
// race in concurrent slice append, issue #134083): goroutines appended
// their errors to a shared slice. The fixed twin takes a mutex around the
// append, as the pull request did.
package errsappend

import (
	"sync"
	"testing"
)

type failure int

func (f failure) Error() string { return "failed" }

func check(nodes int, mu *sync.Mutex) []error {
	var errs []error
	var wg sync.WaitGroup
	for i := range nodes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if mu != nil {
				mu.Lock()
				defer mu.Unlock()
			}
			errs = append(errs, failure(i))
		}()
	}
	wg.Wait()
	return errs
}

func TestRaceErrorsAppend(t *testing.T) { check(3, nil) }

func TestNoRaceErrorsAppend(t *testing.T) {
	if n := len(check(3, new(sync.Mutex))); n != 3 {
		t.Fatalf("%d errors, want 3", n)
	}
}
