// Package appendassign appends values assignable to, but not of, the
// element type: an interface's implementations, untyped constants.
package appendassign

import "testing"

type I interface{ M() }

type T struct{ n int }

func (t *T) M() { t.n++ }

type F struct{ ps []I }

func build() (*F, []any) {
	f := &F{}
	f.ps = append(f.ps, &T{})
	var xs []any
	xs = append(xs, 1, "a")
	return f, xs
}

func TestRaceAppendAssignable(t *testing.T) {
	f, _ := build()
	done := make(chan bool)
	go func() {
		f.ps = append(f.ps, &T{})
		done <- true
	}()
	_ = f.ps
	<-done
}

func TestNoRaceAppendAssignable(t *testing.T) {
	f, xs := build()
	if len(f.ps) != 1 || len(xs) != 2 || xs[0] != 1 || xs[1] != "a" {
		t.Fatalf("got %v %v", f.ps, xs)
	}
}
