package a

import "testing"

// TestParallel's subtest reads x before t.Parallel: the parent's write
// after t.Run is ordered after it (go -race sees t.Parallel's sync).
func TestParallel(t *testing.T) {
	x := 1
	t.Run("sub", func(t *testing.T) {
		_ = x
		t.Parallel()
	})
	x = 2
	_ = x
}

// TestRace races under both tools.
func TestRace(t *testing.T) {
	x := 0
	done := make(chan bool)
	go func() { x = 1; done <- true }()
	x = 2
	<-done
	_ = x
}

func TestOK(t *testing.T) {}
