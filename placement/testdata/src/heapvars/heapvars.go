package heapvars

type T struct{ n int }

func (t *T) inc() { t.n++ }

type S struct {
	f int
	a [4]int
}

var sink *int

func cases() int {
	captured := 1 // heap
	f := func() int { return captured }
	taken := 2 // heap
	sink = &taken
	var arr [4]int // local
	s := arr[:]
	var recv T // heap
	recv.inc()
	var st S // heap
	sink = &st.a[2]
	var buf [8]byte // local
	_ = string(buf[:])
	var out [2]int // heap
	keep(out[:])
	plain := 3 // stack
	plain++
	var value T // stack
	value.n = plain
	return f() + len(s) + value.n
}

func keep(s []int) { _ = s }
