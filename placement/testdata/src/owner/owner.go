// Package owner holds the golden cases of the decisions placement makes
// across functions (owner.go): covered calls and their F__bfnc copies,
// unpublished accesses (no check), calls that keep an object unpublished
// and their F__bfup<i> copies, and the hazards that refuse each.
package owner

import "sync"

type key struct{ a, b uint32 }

// round reads k.a and k.b on every call and is otherwise harmless: a call
// in a loop is covered.
func round(r uint32, k *key) uint32 { // want "copy round__bfnc"
	return r ^ k.a ^ k.b // want "R k.a,k.b"
}

func rounds(ks []key, r uint32) uint32 {
	for j := range ks {
		r = round(r, &ks[j]) // want "call round__bfnc covers param 1: R [0,8)"
	}
	return r
}

// once calls round outside a loop: no cover, round's checks stay.
func once(k *key) uint32 {
	return round(1, k)
}

// roundsLater's calls of round have arguments after the covered one
// that call (tag) or receive: the record of the covered argument would
// precede them, and they may synchronize. Not covered.
func roundsLater(ks []key, c chan uint32) uint32 {
	r := uint32(0)
	for j := range ks {
		r ^= round2(&ks[j], tag(j))
		r ^= round2(&ks[j], <-c)
		r ^= round2(&ks[j], uint32(j)) // want "call round2__bfnc covers param 0: R [0,8)"
	}
	return r
}

func round2(k *key, r uint32) uint32 { // want "copy round2__bfnc"
	return r ^ k.a ^ k.b // want "R k.a,k.b"
}

func tag(j int) uint32 { return uint32(j) }

// roundsGoto's loop is a goto's, no loop statement: the call is in a
// cycle of the CFG, but no loop statement holds it. Not covered.
func roundsGoto(ks []key) uint32 {
	r, j := uint32(0), 0
again:
	if j < len(ks) {
		r = round(r, &ks[j])
		j++
		goto again
	}
	return r
}

// divide may panic other than by a nil k (division by zero): refused.
func divide(r uint32, k *key) uint32 {
	return r / k.a // want "R k.a"
}

func divides(ks []key, r uint32) uint32 {
	for j := range ks {
		r = divide(r, &ks[j])
	}
	return r
}

var mu sync.Mutex

// locked synchronizes: refused.
func locked(r uint32, k *key) uint32 {
	mu.Lock()
	r ^= k.a
	mu.Unlock() // want "R k.a"
	return r
}

func lockeds(ks []key, r uint32) uint32 {
	for j := range ks {
		r = locked(r, &ks[j])
	}
	return r
}

// fill only writes through k: a caller's unpublished object stays
// unpublished across the call.
func fill(k *key, v uint32) { // want "copy fill__bfup0"
	k.a = v
	k.b = v + 1
} // want "W k.a,k.b"

// fresh builds an object and publishes it by returning it.
func fresh(v uint32) *key {
	k := &key{}
	k.a = v    // want "unpub W complit.a"
	fill(k, v) // want "call fill__bfup0 unpublished arg 0"
	k.b++      // want "unpub R complit.b" "unpub W complit.b"
	return k
}

var sink *key

// stored publishes k through a store before the last access.
func stored(v uint32) uint32 {
	k := &key{}
	k.a = v // want "unpub W complit.a"
	sink = k
	return k.b // want "R complit.b" "W *sink"
}

// sent publishes k through a channel send.
func sent(v uint32, c chan *key) uint32 {
	k := &key{}
	k.a = v // want "unpub W complit.a"
	c <- k
	return k.b // want "R complit.b"
}

// spawned publishes k to a goroutine.
func spawned(v uint32) uint32 {
	k := &key{}
	k.a = v                  // want "unpub W k.a"
	go func() { sink = k }() // want "W *sink"
	return k.b               // want "R k.b"
}

// publish publishes its argument.
func publish(k *key) { sink = k } // want "W *sink"

// passed publishes k through a call.
func passed(v uint32) uint32 {
	k := &key{}
	k.a = v // want "unpub W complit.a"
	publish(k)
	return k.b // want "R complit.b"
}
