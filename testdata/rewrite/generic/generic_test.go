// Package generic accesses memory through operands whose type is a type
// parameter (index, map, dereference, range, through its core type) and
// through user generic containers; each racing access must be reported.
package generic

import (
	"slices"
	"testing"
)

func set[S ~[]E, E any](s S, v E) { s[0] = v }

func get[S ~[]E, E any](s S) E { return s[0] }

func put[M ~map[K]V, K comparable, V any](m M, k K, v V) { m[k] = v }

func load[P interface{ *T }, T any](p P) T { return *p }

func store[P interface{ *T }, T any](p P, v T) { *p = v }

// at indexes a type parameter without a core type.
func at[T ~string | ~[]byte](s T, i int) byte { return s[i] }

type number interface{ ~int | ~int64 }

func sum[S ~[]E, E number](s S) (t E) {
	for _, v := range s {
		t += v
	}
	return t
}

// Stack is a user generic container.
type Stack[T any] struct{ items []T }

func (s *Stack[T]) Push(v T) { s.items = append(s.items, v) }

func (s *Stack[T]) Top() T { return s.items[len(s.items)-1] }

type ints []int

// race runs f in a goroutine while g runs, and waits for both.
func race(f, g func()) {
	done := make(chan bool)
	go func() {
		f()
		done <- true
	}()
	g()
	<-done
}

// ordered runs f in a goroutine, then g after it.
func ordered(f, g func()) {
	done := make(chan bool)
	go func() {
		f()
		done <- true
	}()
	<-done
	g()
}

func TestRaceGenericIndex(t *testing.T) {
	s := ints{0}
	race(func() { set(s, 1) }, func() { s[0] = 2 })
}

func TestRaceGenericIndexRead(t *testing.T) {
	s := []string{""}
	race(func() { _ = get(s) }, func() { s[0] = "x" })
}

func TestRaceGenericMap(t *testing.T) {
	m := map[string]int{}
	race(func() { put(m, "a", 1) }, func() { _ = m["b"] })
}

func TestRaceGenericDeref(t *testing.T) {
	x := new(int)
	race(func() { store(x, 1) }, func() { _ = *x })
}

func TestRaceGenericDerefRead(t *testing.T) {
	x := new(int)
	race(func() { _ = load(x) }, func() { *x = 3 })
}

func TestRaceGenericRange(t *testing.T) {
	s := []int64{1, 2, 3}
	race(func() { _ = sum(s) }, func() { s[2] = 4 })
}

func TestRaceGenericContainer(t *testing.T) {
	st := &Stack[int]{}
	st.Push(1)
	race(func() { st.Push(2) }, func() { _ = st.Top() })
}

func TestRaceSlicesReverse(t *testing.T) {
	s := []int{1, 2, 3, 4}
	race(func() { slices.Reverse(s) }, func() { _ = s[0] })
}

func TestRaceByteString(t *testing.T) {
	b := []byte("ab")
	race(func() { _ = at(b, 1) }, func() { b[1] = 'x' })
}

func TestNoRaceByteString(t *testing.T) {
	b := []byte("ab")
	str := "ab"
	ordered(func() { _ = at(b, 1) + at(str, 0) }, func() { b[1] = 'x' })
	if at(b, 1) != 'x' || at(str, 1) != 'b' {
		t.Fatal("wrong results")
	}
}

func TestNoRaceGeneric(t *testing.T) {
	s := ints{0}
	m := map[string]int{}
	x := new(int)
	st := &Stack[int]{}
	st.Push(1)
	r := []int{1, 2, 3, 4}
	ordered(func() {
		set(s, 1)
		put(m, "a", 1)
		store(x, 1)
		_ = sum(s)
		st.Push(2)
		slices.Reverse(r)
	}, func() {
		s[0] = 2
		_ = m["a"]
		*x = 2
		_ = st.Top()
		r[0] = 5
	})
	if s[0] != 2 || load(x) != 2 || get(r) != 5 || sum(s) != 2 {
		t.Fatal("wrong results")
	}
}
