// Package promoted calls a method promoted through an embedded *testing.T,
// whose path to the method goes on through testing.T's unexported
// embedded field: the load of the embedded pointer is checked.
package promoted

import "testing"

type tt struct{ *testing.T }

func (x *tt) logf() { x.Log("x") }

func TestRacePromotedRecv(t *testing.T) {
	x := &tt{t}
	done := make(chan bool)
	go func() {
		x.T = t
		done <- true
	}()
	x.logf()
	<-done
}

func TestNoRacePromotedRecv(t *testing.T) {
	x := &tt{}
	x.T = t
	done := make(chan bool)
	go func() {
		x.logf()
		done <- true
	}()
	x.logf()
	<-done
}
