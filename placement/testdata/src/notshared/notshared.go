// Package notshared holds the not-shared cases of TestSiteDecisions: each
// site comment states the site plan's decision on an access of kind R or
// W at its line, exactly. A load or store of memory no other goroutine
// can reach is no access: the plan states it not shared, so that the
// instrumenter leaves out the check its syntax would make.
package notshared

var sink []byte

type point struct{ x, y int }

// The address of a parameter that stays in the function.
func param(s, t []int) int {
	ps := &s
	*ps = t         // site "W not shared"
	return len(*ps) // site "R not shared"
}

// A fresh slice that never leaves the function.
func fresh(str string) byte {
	b := []byte(str)
	b[0] = 'x'  // site "W not shared"
	return b[1] // site "R not shared"
}

// The same slice, published: its elements are shared.
func published(str string) {
	b := []byte(str)
	b[0] = 'x'
	sink = b
}

// An array sliced only to be read by the function itself.
func array() int {
	var a [4]int
	s := a[:]
	s[1] = 2             // site "W not shared"
	return len(s) + a[1] // site "R not shared"
}

// A fresh object whose address stays in the function.
func object() int {
	p := &point{}
	p.x = 1    // site "W not shared"
	return p.y // site "R not shared"
}

// A captured variable is shared with the closure, which may run in
// another goroutine.
func captured() int {
	n := 0 // site "W unpublished"
	go func() { n = 1 }()
	return n
}

// A fresh map, and a fresh slice copied into and converted.
func freshMap(keys []string) (int, string) {
	m := map[string]int{}
	for _, k := range keys {
		m[k]++ // site "R not shared" "W not shared"
	}
	n := 0
	for range m { // site "R not shared"
		n++
	}
	b := make([]byte, 2)
	copy(b, "ab")                // site "W not shared"
	return len(m) + n, string(b) // site "R not shared" "R not shared"
}
