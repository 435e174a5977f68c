// Package selectcase tests select: every select may both acquire and
// release (a receive completes after its send, an unbuffered send after
// its receive), so pending accesses are checked before it.
package selectcase

type T struct{ n int }

func sel(t *T, a, b chan int) int {
	t.n = 1
	select { // want "W t.n"
	case v := <-a:
		return v + t.n // want "R t.n"
	case b <- 1:
		t.n = 2
	}
	return 0 // want "W t.n"
}
