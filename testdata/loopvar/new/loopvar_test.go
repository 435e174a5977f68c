// Package loopvar holds loops whose variables other goroutines access, in
// a module of Go 1.22 or later, where each iteration of a three-clause loop
// has its own variables, initialized by copying (reading) the previous
// iteration's. cmd/bigfoot's TestLoopVars runs each test under go test
// -race and under bigfoot in every mode: TestRace* must report a race in
// every run, TestNoRace* never.
package loopvar

import (
	"sync"
	"testing"
	"time"
)

// The copy into the next iteration reads i, which the goroutine writes.
func TestRaceLoopVarCopy(t *testing.T) {
	var wg sync.WaitGroup
	for i := 0; i < 3; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			i += 100
		}()
	}
	wg.Wait()
}

// A loop without a condition copies its variable too.
func TestRaceLoopVarCopyNoCond(t *testing.T) {
	var wg sync.WaitGroup
	for i, n := 0, 0; ; i++ {
		if n == 3 {
			break
		}
		n++
		wg.Add(1)
		go func() {
			defer wg.Done()
			i = -1
		}()
		time.Sleep(time.Millisecond)
	}
	wg.Wait()
}

// The last iteration's copy, before the condition fails, is a read too.
func TestRaceLoopVarLastCopy(t *testing.T) {
	done := make(chan struct{})
	for i := 0; i < 1; i++ {
		go func() {
			i = 5
			close(done)
		}()
		time.Sleep(10 * time.Millisecond)
	}
	<-done
}

// Goroutines that only read their iteration's variable do not race with
// the copy, a read.
func TestNoRaceLoopVarRead(t *testing.T) {
	var wg sync.WaitGroup
	var mu sync.Mutex
	sum := 0
	for i := 0; i < 4; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			mu.Lock()
			sum += i
			mu.Unlock()
		}()
	}
	wg.Wait()
	if sum != 6 {
		t.Fatal(sum)
	}
}

// A range loop's variables are new in each iteration: a goroutine writing
// its own does not race with the loop.
func TestNoRaceRangeVarWrite(t *testing.T) {
	var wg sync.WaitGroup
	tests := [][2][]byte{{[]byte("a"), []byte("b")}, {[]byte("c"), []byte("d")}}
	for _, pair := range tests {
		wg.Add(1)
		go func() {
			defer wg.Done()
			pair[0] = nil
		}()
	}
	for k := range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			k++
		}()
	}
	ch := make(chan int, 3)
	ch <- 1
	ch <- 2
	close(ch)
	for v := range ch {
		wg.Add(1)
		go func() {
			defer wg.Done()
			v++
		}()
	}
	wg.Wait()
}
