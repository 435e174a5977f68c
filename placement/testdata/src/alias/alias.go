// Package alias tests alias facts x = y.f (Rhodes' thesis §3.4–§3.5):
// two loads of s.p with no store, call or synchronization in between yield
// the same pointer, so s.p.x and s.p.y are one designator and coalesce.
package alias

type P struct{ x, y int }
type S struct{ p *P }

func same(s *S) int {
	a := s.p.x
	b := s.p.y
	return a + b // want "R s.p" "R s.p.x,s.p.y"
}

// A store to s.p in between redirects the extended path s.p.x: the pending
// read of the old s.p.x is checked before the store.
func broken(s *S, q *P) int {
	a := s.p.x
	s.p = q // want "R s.p.x"
	b := s.p.y
	return a + b // want "R s.p.y" "W s.p"
}
