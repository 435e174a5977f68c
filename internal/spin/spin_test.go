package spin

import (
	"sync"
	"testing"
)

// TestMutualExclusion increments a counter from several goroutines under
// the lock; with the lock broken the race detector (make test runs the
// runtime's packages under -race) or the final count catches it.
func TestMutualExclusion(t *testing.T) {
	var m Mutex
	n := 0
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 2000; i++ {
				m.Lock()
				n++
				m.Unlock()
			}
		}()
	}
	wg.Wait()
	if n != 8*2000 {
		t.Fatalf("n = %d, want %d", n, 8*2000)
	}
}

func TestTryLock(t *testing.T) {
	var m Mutex
	if !m.TryLock() {
		t.Fatal("TryLock of an unlocked Mutex failed")
	}
	if m.TryLock() {
		t.Fatal("TryLock of a locked Mutex succeeded")
	}
	m.Unlock()
	if !m.TryLock() {
		t.Fatal("TryLock after Unlock failed")
	}
}

func TestUnlockUnlocked(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Fatal("Unlock of an unlocked Mutex did not panic")
		}
	}()
	var m Mutex
	m.Unlock()
}
