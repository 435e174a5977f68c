package eachtest

import (
	"fmt"
	"testing"
	"time"
)

func TestPass(t *testing.T) {
	if got := Count(8); got != 8 {
		t.Fatalf("Count(8) = %d", got)
	}
	t.Run("sub", func(t *testing.T) {})
}

func TestSkip(t *testing.T) { t.Skip("always") }

func TestFail(t *testing.T) { t.Fatal("always") }

// TestNeverEnds sleeps until it is killed.
func TestNeverEnds(t *testing.T) {
	for {
		time.Sleep(time.Hour)
	}
}

func FuzzCount(f *testing.F) {
	f.Add(3)
	f.Fuzz(func(t *testing.T, n int) {
		if n >= 0 && n < 100 && Count(n) != n {
			t.Fatal(n)
		}
	})
}

// BenchmarkCount is listed by -test.list and not run.
func BenchmarkCount(b *testing.B) {
	for range b.N {
		Count(2)
	}
}

func ExampleCount() {
	fmt.Println(Count(2))
	// Output: 2
}

// TestUnselected is left out by the runner's -run.
func TestUnselected(t *testing.T) { t.Fatal("run, not selected") }
