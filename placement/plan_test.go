package placement

import (
	"testing"
	"time"
)

func TestDurationQuantile(t *testing.T) {
	ds := []time.Duration{5, 1, 4, 2, 3, 10, 9, 8, 7, 6}
	for _, tc := range []struct {
		q    float64
		want time.Duration
	}{{0, 1}, {0.5, 5}, {0.95, 10}, {1, 10}, {0.1, 1}, {0.11, 2}} {
		if got := DurationQuantile(append([]time.Duration(nil), ds...), tc.q); got != tc.want {
			t.Errorf("DurationQuantile(q=%v) = %v, want %v", tc.q, got, tc.want)
		}
	}
	if got := DurationQuantile(nil, 0.5); got != 0 {
		t.Errorf("empty: %v", got)
	}
}

// A guard built without a namer (as emitters and tests may) prints its
// raw terms instead of panicking.
func TestGuardStringWithoutNamer(t *testing.T) {
	g := &Guard{}
	if s := g.String(); s == "" {
		t.Error("empty guard string")
	}
}
