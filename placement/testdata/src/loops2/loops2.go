// Package loops2 tests loop corner cases: a release in the body, an early
// return, a conditional access, builtins that access ranges, and a
// counted loop whose body calls an unknown function.
package loops2

import "sync"

func releaseInBody(a []int, mu *sync.Mutex) {
	for i := range a {
		a[i] = 1
		mu.Unlock() // want "W a[rangeindex+1]"
		mu.Lock()
	}
}

func earlyReturn(a []int, x int) int {
	for i := 0; i < len(a); i++ {
		if a[i] == x {
			return i // want "R a[0..i+1]"
		}
	}
	return -1 // want "R a[0..i]"
}

func conditional(a []int, n int) {
	for i := 0; i < n; i++ {
		if i%2 == 0 {
			a[i] = 0 // want "W a[i]"
		}
	}
}

// copy reads src[0..n] and writes dst[0..n] (n = t0, its result); append
// writes its result t4 past len(s) and reads the fresh varargs array (not
// checked: it never escapes).
func builtins(dst, src []byte, s []int) []int {
	n := copy(dst, src)
	s = append(s, n)
	return s // want "R src[0..t0]" "W dst[0..t0]" "W t4[len(s)..len(t4)]"
}

func unknownCall(a []int, f func(int)) {
	for i := range a {
		f(a[i]) // want "R a[rangeindex+1]"
	}
}
