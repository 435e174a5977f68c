package g

import "testing"

type I interface{ M() }
type T struct{ n int }

func (t *T) M() { t.n++ }

type F struct{ ps []I }

// TestAppend appends a value assignable, not identical, to the element type.
func TestAppend(t *testing.T) {
	f := &F{}
	f.ps = append(f.ps, &T{})
	if len(f.ps) != 1 {
		t.Fatal(len(f.ps))
	}
}
