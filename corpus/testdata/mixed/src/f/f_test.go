package f

import "testing"

// FuzzSeed writes x before f.Fuzz and reads it in the seed runs.
func FuzzSeed(f *testing.F) {
	x := 0
	f.Add(1)
	x = 5
	f.Fuzz(func(t *testing.T, n int) {
		if x != 5 {
			t.Fatal(x)
		}
	})
}
