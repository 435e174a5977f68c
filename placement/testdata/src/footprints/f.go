// Package footprints is TestFootprints' input: on a line marked `// fp X`
// every access of the kind that follows (R or W) records into footprint
// X; `// fp -` marks a line whose accesses record into none. Lines that
// share a letter share a footprint.
package footprints

const k = 3

type pt struct{ x, y int }

type buf struct {
	n   int
	arr [8]int
	b   []int
}

func progressions(a, c []int, s []pt, i0, n int) {
	for i := i0; i < n; i++ {
		_ = a[i]     // fp R A
		_ = a[i+1]   // fp R A
		_ = a[i-k]   // fp R A
		_ = a[1+i]   // fp R A
		a[i] = 1     // fp W B
		_ = a[2*i]   // fp R C
		_ = a[2*i+1] // fp R C
		_ = c[i]     // fp R D
		_ = s[i].x   // fp R E
		_ = s[i].y   // fp R F
	}
}

func merge(dst, a, b []int) {
	i, j := 0, 0
	for k := range dst {
		if a[i] < b[j] { // fp R G H
			dst[k] = a[i] // fp W I
			i++
		} else {
			dst[k] = b[j] // fp W I
			j++
		}
	}
}

func alias(s []pt) {
	for i := range s {
		p := &s[i]
		p.x = 1 // fp -
	}
}

func outside(a []int) int {
	return a[0] // fp -
}

func ranged(s []pt, arr *[4]int) (t int) {
	for _, v := range s { // fp R J
		t += v.x
	}
	for _, v := range arr { // fp R K
		t += v
	}
	return t
}

func fields(p *buf, q *buf) {
	for i := 0; i < 10; i++ {
		p.n++          // fp R L
		_ = p.arr[i]   // fp R M
		_ = p.b[i]     // fp R N O
		_ = p.b[i+1]   // fp R N O
		q = &buf{n: i} // fp -
	}
}

// seq is an iterator: a range over it runs the loop's body as a function
// of its own.
func seq(yield func(int) bool) {
	for i := 0; i < 3; i++ {
		if !yield(i) {
			return
		}
	}
}

// inIterator's range statement is in a range-over-func loop's body, a
// function without a loop of its own, in a function without one either.
func inIterator(s []pt) (t int) {
	for k := range seq {
		for _, v := range s { // fp R P
			t += v.x + k
		}
	}
	return t
}

// besideLoop's range statement is in a range-over-func loop's body in a
// function with a loop of its own: one footprint, the body's.
func besideLoop(s []pt, a []int) (t int) {
	for i := range a {
		t += a[i] // fp R Q
	}
	for range seq {
		for _, v := range s { // fp R S
			t += v.y
		}
	}
	return t
}

// appends: each call of append in a loop has a footprint of its own for
// the elements it adds, one range per backing array; one outside a loop
// has none.
func appends(src []byte) (dst []byte) {
	for i := range src {
		dst = append(dst, src[i]) // fp W T
		if src[i] == '"' {
			dst = append(dst, '\\', '"') // fp W U
		}
	}
	dst = append(dst, 0) // fp -
	return dst
}
