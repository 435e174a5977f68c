// Package fig33 renders Figure 3.3 (Rhodes' thesis §3.1, 707-718,
// 768-772): three accesses of y.f around a release and an acquire, covered
// by the single check before the acquire. The first access is forgotten at
// the release because the second is anticipated; the third is covered by
// the check (no release in between), so the final release needs none.
package fig33

import "sync"

type Obj struct{ f int }

func fig33(y *Obj, m *sync.Mutex) int {
	a := y.f   // access 1 (read)
	m.Unlock() // release: y.f anticipated, no check
	y.f = a + 1
	m.Lock() // want "W y.f"
	b := y.f // access 3: covered by the check above
	m.Unlock()
	return b
}
