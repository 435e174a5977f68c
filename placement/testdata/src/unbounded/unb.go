// Package unbounded tests loops without a provable trip bound: checks are
// not deferred into or past them, and accesses inside them are checked on
// every iteration (see doc.go, "Termination").
package unbounded

type T struct{ n, m int }

func spin(t *T, stop *bool) {
	t.m = 1 // want "W t.m"
	for !*stop {
		t.n++ // want "R *stop" "W t.n"
	}
} // want "R *stop"

type Node struct {
	next *Node
	v    int
}

func sum(l *Node) int {
	s := 0
	for ; l != nil; l = l.next { // want "R l.next,l.v"
		s += l.v
	}
	return s
}
