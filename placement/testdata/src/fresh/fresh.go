// Package fresh tests memory the function allocates and never lets escape:
// it is thread-local, so its accesses need no checks (fasttrack would not
// check them either). Memory that escapes (returned, passed to a call,
// stored) is checked.
package fresh

func local(n int) int {
	buf := make([]int, n)
	for i := range buf {
		buf[i] = i
	}
	m := map[int]int{}
	m[1] = buf[0]
	b := []byte("abc")
	b[0] = 'x'
	return m[1] + int(b[0])
}

func escapes(n int) []int {
	buf := make([]int, n)
	buf[0] = 1 // want "unpub W t0[0]"
	return buf // (make(...) has no source name: t0 is its SSA value)
}
