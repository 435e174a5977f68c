// Copyright 2026 The bigfoot Authors. All rights reserved.

package detector

import "testing"

// changedSite names the site of the newest change at or below the
// address that the next change does not pass.
func TestChangedSite(t *testing.T) {
	// One ascending range from 100, 8-byte elements: sites 1, 2, 1, 2
	// from elements 0, 1, 3, 4; then a second pass from 100 (a later
	// call of the same loop in the clock) with site 2 to its end.
	cs := []siteChange{{100, 5, 9, 1}, {108, 5, 9, 2}, {124, 5, 9, 1}, {132, 5, 9, 2}}
	for _, c := range []struct {
		addr uintptr
		want uint32
		ok   bool
	}{
		{96, 0, false}, // below the range
		{100, 1, true}, {104, 1, true},
		{108, 2, true}, {116, 2, true}, {123, 2, true},
		{124, 1, true}, {131, 1, true},
		{132, 2, true}, {400, 2, true},
	} {
		if s, ok := changedSite(cs, c.addr); s != c.want || ok != c.ok {
			t.Errorf("one pass: changedSite(%d) = %d, %v; want %d, %v", c.addr, s, ok, c.want, c.ok)
		}
	}
	second := append(cs, siteChange{100, 5, 9, 2})
	for _, addr := range []uintptr{100, 116, 124, 140} {
		if s, ok := changedSite(second, addr); s != 2 || !ok {
			t.Errorf("second pass: changedSite(%d) = %d, %v; want 2, true", addr, s, ok)
		}
	}
}

// FM logs a change of site, and only a change, keeps one range for the
// accesses of both sites, and the log names each element's site: the
// goroutine's own until its range is checked (moved to the pending
// checks at the return, checked at the next synchronization), its
// history's after.
func TestFMLogsChanges(t *testing.T) {
	a := make([]int64, 16)
	sites := func(i int) uint32 { // 1 1 2 1 1 2 ...
		if i%3 == 2 {
			return 2
		}
		return 1
	}
	expect(t, false, func(g *G) {
		f := g.Footprint(1, true)
		for i := range a {
			*FM(f, &a[i], sites(i)) = 1
		}
		if s, k, n := pending(f, a); s != 0 || k != 1 || n != len(a) {
			t.Errorf("range: start %d step %d n %d, want 0 1 %d", s, k, n, len(a))
		}
		if n, want := g.changes.n, 1+2*(len(a)/3); n != want {
			t.Errorf("%d changes logged, want %d", n, want)
		}
		clock := g.t.Epoch.Clock()
		for i := range a {
			if s, ok := g.ownChangedSite(1, clock, addr(&a[i])+3); s != sites(i) || !ok {
				t.Errorf("own log: element %d: site %d, %v; want %d", i, s, ok, sites(i))
			}
		}
		if _, ok := g.ownChangedSite(1, clock+1, addr(&a[0])); ok {
			t.Errorf("a change of another clock names a site")
		}
		g.PopFootprints(f) // the range moves to the pending checks
		if g.changes.n == 0 {
			t.Errorf("changes moved before the range was checked")
		}
		g.commitFootprints() // the goroutine's synchronization checks it
		if g.hist == nil {
			t.Fatal("the history is off; it is on by default")
		}
		if g.changes.n != 0 {
			t.Errorf("%d changes not moved to the history by the commit", g.changes.n)
		}
		for i := range a {
			if s, ok := changedSiteOf(g.t.Epoch, 1, addr(&a[i])); s != sites(i) || !ok {
				t.Errorf("history: element %d: site %d, %v; want %d", i, s, ok, sites(i))
			}
		}
	})
}
