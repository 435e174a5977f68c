// Package cleanups holds programs whose races depend on how finalizers and
// cleanups are ordered: Go's race runtime orders the start of each batch
// of finalizers or cleanups after everything every goroutine has done
// (racefingo), runs the finalizers of a batch one after another on the
// finalizer goroutine, and each cleanup of a batch in a race context of
// its own (runCleanups in the runtime's mcleanup.go), so that two
// cleanups of one batch are not ordered. Tests named TestRace* have a race
// that go test -race reports in every run; tests named TestNoRace* have
// none. cmd/bigfoot's TestCleanups runs each, in its own process, under go
// test -race and under bigfoot in every mode.
package cleanups

import (
	"runtime"
	"testing"
)

// T holds a pointer, so that it is not allocated by the tiny allocator
// and is freed by the first GC cycle after it is dropped.
type T struct {
	v int
	p *int
}

// Two cleanups of one batch write the same variable: they run one after
// the other on the cleanup goroutine, but in race contexts of their own
// (Go's TestRaceBetweenCleanups). Each signals done on a buffered channel,
// which orders each before the test's end but not one before the other.
func TestRaceBetweenCleanups(t *testing.T) {
	shared := new(int)
	done := make(chan bool, 2)
	cleanup := func(x int) {
		*shared = x
		done <- true
	}
	v0, v1 := new(T), new(T)
	runtime.AddCleanup(v0, cleanup, 1)
	runtime.AddCleanup(v1, cleanup, 2)
	v0, v1 = nil, nil
	runtime.GC()
	<-done
	<-done
}

// The same with the cleanups' arguments read by both: two reads do not
// race.
func TestNoRaceCleanupsRead(t *testing.T) {
	shared := new(int)
	*shared = 7
	done := make(chan int, 2)
	cleanup := func(x int) { done <- *shared + x }
	v0, v1 := new(T), new(T)
	runtime.AddCleanup(v0, cleanup, 1)
	runtime.AddCleanup(v1, cleanup, 2)
	v0, v1 = nil, nil
	runtime.GC()
	<-done
	<-done
}

// A cleanup is ordered after what the registering goroutine did after
// registering it, up to the GC cycle that found its object unreachable
// (Go's TestNoRaceCleanup): the batch's start acquires it.
func TestNoRaceCleanupAfterRegister(t *testing.T) {
	c := make(chan bool)
	done := make(chan bool)
	go func() {
		x, y := new(T), new(string)
		runtime.AddCleanup(x, func(y *string) {
			*y = "foo"
			done <- true
		}, y)
		*y = "bar"
		runtime.KeepAlive(x)
		c <- true
	}()
	<-c
	runtime.GC()
	<-done
}

// Two cleanups of batches that run one after the other are ordered: the
// second batch's start acquires the first cleanup's context, which ended.
// Here the test's goroutine waits for the first before it drops the
// second object, so it orders them too; the cleanups' contexts must not
// lose that edge.
func TestNoRaceCleanupsOfTwoCycles(t *testing.T) {
	shared := new(int)
	done := make(chan bool, 2)
	cleanup := func(x int) {
		*shared += x
		done <- true
	}
	v0, v1 := new(T), new(T)
	runtime.AddCleanup(v0, cleanup, 1)
	runtime.AddCleanup(v1, cleanup, 2)
	v0 = nil
	runtime.GC()
	<-done
	runtime.KeepAlive(v1)
	v1 = nil
	runtime.GC()
	<-done
	if *shared != 3 {
		t.Errorf("shared = %d, want 3", *shared)
	}
}

// Two finalizers of one batch run one after the other on the finalizer
// goroutine, in its one race context: they are ordered.
func TestNoRaceBetweenFinalizers(t *testing.T) {
	shared := new(int)
	done := make(chan bool, 2)
	fin := func(v *T) {
		*shared += v.v
		done <- true
	}
	v0, v1 := &T{v: 1}, &T{v: 2}
	runtime.SetFinalizer(v0, fin)
	runtime.SetFinalizer(v1, fin)
	v0, v1 = nil, nil
	runtime.GC()
	<-done
	<-done
}
