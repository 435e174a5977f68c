// Package errcapture is modelled on golang/go#65045 (an errgroup whose
// functions all assign the error of the enclosing function, captured by
// their closures): the racy twin lets every worker write the shared err;
// the fixed twin gives each worker its own slot and joins them after Wait.
package errcapture

import (
	"errors"
	"fmt"
	"sync"
	"testing"
)

func fetch(i int) error {
	if i%2 == 1 {
		return fmt.Errorf("shard %d unavailable", i)
	}
	return nil
}

func TestRaceErrCapture(t *testing.T) {
	var err error
	var wg sync.WaitGroup
	for i := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if e := fetch(i); e != nil {
				err = e
			}
		}()
	}
	wg.Wait()
	if err == nil {
		t.Fatal("no error")
	}
}

func TestNoRaceErrCapture(t *testing.T) {
	errs := make([]error, 4)
	var wg sync.WaitGroup
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = fetch(i)
		}()
	}
	wg.Wait()
	if errors.Join(errs...) == nil {
		t.Fatal("no error")
	}
}
