// Package crosspkg calls the functions of package dep, whose bodies its
// SSA program lacks (as in the build): their effect summaries say which
// calls kill pending checks (summary_test.go).
package crosspkg

import "bigfoottest/dep"

type T struct{ x, y float64 }

// A pure call of another package keeps the range: one check after the
// loop.
func pureLoop(a []float64, n int) {
	for i := 0; i < n; i++ {
		a[i] = dep.Pure(float64(i))
	}
} // want "W a[0..i]"

// A sync-free call with a loop of its own keeps it too.
func mixLoop(a []uint64, h uint64) uint64 {
	for i := range a {
		h = dep.Mix(h, a[i])
	}
	return h // want "R a[0..rangeindex+1]"
}

// A call that locks a mutex (in a helper of its package) kills the range:
// checks before the call, every iteration.
func lockLoop(a []int, n int) {
	for i := 0; i < n; i++ {
		a[i] = 1
		dep.Locks(i) // want "W a[i]"
	}
}

// Mutual recursion without synchronization is sync-free.
func recursion(t *T, n int) bool {
	t.x = 1
	ok := dep.Even(n)
	t.y = 2
	return ok // want "W t.x,t.y"
}

// Recursion down to a lock synchronizes.
func recursionLocks(t *T, n int) {
	t.x = 1
	dep.Down(n) // want "W t.x"
	t.y = 2
} // want "W t.y"

// A call through an interface inside dep is unknown.
func iface(t *T, s dep.Shape) {
	t.x = 1
	dep.AreaOf(s) // want "W t.x"
	t.y = 2
} // want "W t.y"

// So is a call of a func value inside dep.
func funcValue(t *T) {
	t.x = 1
	dep.Apply(func(x int) int { return x }, 1) // want "W t.x"
	t.y = 2
} // want "W t.y"

// A go statement inside dep releases.
func spawn(t *T) {
	t.x = 1
	dep.Spawn(func() {}) // want "W t.x"
	t.y = 2
} // want "W t.y"

// A value method of dep is pure; a pointer method that locks is not.
func methods(t *T, v dep.V, c *dep.Counter) {
	t.x = v.Dot(v)
	t.y = 1
	c.Inc() // want "W t.x,t.y"
	t.x = 2
} // want "W t.x"
