// Package methodvalue tests method values and method expressions: a bound
// method value is a closure of the synthetic wrapper (*T).Inc$bound and a
// method expression calls a thunk; the kill-set pass resolves both
// statically and computes the wrappers' effects on demand, so calling Inc
// (which does not synchronize) forces no check.
package methodvalue

type T struct{ n int }

func (t *T) Inc() { t.n++ } // want "W t.n"

func bound(t *T) {
	f := t.Inc
	t.n = 0
	f()
	t.n = 2
} // want "W t.n"

func expr(t *T) {
	t.n = 0
	(*T).Inc(t)
	t.n = 2
} // want "W t.n"
