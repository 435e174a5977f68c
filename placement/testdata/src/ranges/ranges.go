// Package ranges tests range loops over slices, arrays, strings, maps,
// channels and functions.
package ranges

func slice(a []int) int {
	s := 0
	for _, v := range a {
		s += v
	}
	return s // want "R a[0..rangeindex+1]"
}

func array(a *[8]int) {
	for i := range a {
		a[i] = i
	}
} // want "W a[0..rangeindex+1]"

// Strings are immutable: no checks.
func str(s string) int {
	n := 0
	for _, r := range s {
		n += int(r)
	}
	return n
}

// The map is one object, read by each iteration.
func maps(m map[string]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n // want "R m{}"
}

// Each receive may synchronize.
func channel(ch chan int, t *T) {
	for v := range ch {
		t.n += v // want "W t.n"
	}
}

type T struct{ n int }

// The loop body of a range-over-func is a closure called by the iterator;
// t, which it only reads, is in the static safe class.
func fn(seq func(func(int) bool), t *T) {
	for v := range seq {
		t.n += v
	} // want "W t.n"
}

func intRange(a []int, n int) {
	for i := range n {
		a[i] = 0
	}
} // want "W a[0..rangeint.iter+1]"
