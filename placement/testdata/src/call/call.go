// Package call tests [Call] (Rhodes' thesis §3.3.3): the kill
// sets of the whole-program pass. A callee that may synchronize (directly
// or transitively) forces checks before the call; a sync-free callee does
// not.
package call

import "sync"

var mu sync.Mutex

type T struct{ x, y int }

func pure(n int) int { return n * 2 }

func locks() { mu.Lock(); mu.Unlock() }

func indirectly() { locks() }

func noSync(t *T) {
	t.x = pure(t.x)
	t.y = pure(t.y)
} // want "W t.x,t.y"

func syncing(t *T) {
	t.x = 1
	indirectly() // want "W t.x"
	t.y = 2
} // want "W t.y"
