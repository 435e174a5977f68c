// Package loopvar holds loops whose variables other goroutines access, in
// a module older than Go 1.22, where a loop has one variable for the whole
// loop, written by the range clause or the post statement at each
// iteration. cmd/bigfoot's TestLoopVars runs each test under go test -race
// and under bigfoot in every mode: TestRace* must report a race in every
// run, TestNoRace* never.
package loopvar

import (
	"sync"
	"testing"
	"time"
)

// The goroutines only read the loop variable: no lock or atomic orders
// one goroutine after another, which could order a later goroutine's read
// after the loop's write.

//go:noinline
func use[T any](T) {}

// Issue 13's program: the range clause writes pair, which the goroutines
// read.
func TestRaceRangeVarShared(t *testing.T) {
	var wg sync.WaitGroup
	tests := [][2][]byte{{[]byte("a"), []byte("b")}, {[]byte("c"), []byte("d")}}
	for _, pair := range tests {
		wg.Add(1)
		go func() {
			defer wg.Done()
			use(pair[0])
		}()
	}
	wg.Wait()
}

// The key of a range over a slice, and a range over a string.
func TestRaceRangeKeyShared(t *testing.T) {
	var wg sync.WaitGroup
	for i := range []int{1, 2, 3} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			use(i)
		}()
		time.Sleep(time.Millisecond)
	}
	wg.Wait()
}

// A range over a channel has one variable too.
func TestRaceRangeChanShared(t *testing.T) {
	var wg sync.WaitGroup
	ch := make(chan int, 3)
	ch <- 1
	ch <- 2
	ch <- 3
	close(ch)
	for v := range ch {
		wg.Add(1)
		go func() {
			defer wg.Done()
			use(v)
		}()
		time.Sleep(time.Millisecond)
	}
	wg.Wait()
}

// The post statement writes the one variable of a three-clause loop.
func TestRaceForVarShared(t *testing.T) {
	var wg sync.WaitGroup
	for i := 0; i < 3; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			use(i)
		}()
		time.Sleep(time.Millisecond)
	}
	wg.Wait()
}

// The usual fix: a copy per iteration.
func TestNoRaceRangeVarCopied(t *testing.T) {
	var wg sync.WaitGroup
	tests := [][2][]byte{{[]byte("a"), []byte("b")}, {[]byte("c"), []byte("d")}}
	for _, pair := range tests {
		pair := pair
		wg.Add(1)
		go func() {
			defer wg.Done()
			use(pair[0])
		}()
	}
	for i := 0; i < 3; i++ {
		i := i
		wg.Add(1)
		go func() {
			defer wg.Done()
			i++
		}()
	}
	wg.Wait()
}
