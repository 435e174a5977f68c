// Copyright 2026 The bigfoot Authors. All rights reserved.

package detector

import "testing"

// changedSite names the site of the change that covers the address in
// the newest run that spans it.
func TestChangedSite(t *testing.T) {
	ch := func(addr uintptr, site uint32) siteChange { return siteChange{addr, 5, 9, site, 8} }
	// One ascending range from 100 to 140 (elements 0..5): sites 1, 2,
	// 1, 2 from elements 0, 1, 3, 4; its check logged its end.
	one := []siteChange{ch(100, 1), ch(108, 2), ch(124, 1), ch(132, 2), ch(140, 0)}
	// The same loop again over 100..116 with site 2 only (a later
	// call in the clock), and a range still open from 200.
	two := append(append([]siteChange(nil), one...), ch(100, 2), ch(116, 0), ch(200, 1))
	// A descending range from 156 down to 100: 1 from 156, 2 from 140.
	down := []siteChange{ch(156, 1), ch(140, 2), ch(100, 0)}
	for _, c := range []struct {
		name string
		cs   []siteChange
		addr uintptr
		want uint32 // 0: no site
	}{
		{"one", one, 96, 0}, {"one", one, 100, 1}, {"one", one, 107, 1},
		{"one", one, 108, 2}, {"one", one, 123, 2}, {"one", one, 124, 1},
		{"one", one, 132, 2}, {"one", one, 147, 2}, {"one", one, 148, 0},
		{"two", two, 100, 2}, {"two", two, 123, 2}, {"two", two, 124, 1},
		{"two", two, 140, 2}, {"two", two, 199, 0}, {"two", two, 200, 1}, {"two", two, 900, 1},
		{"down", down, 163, 1}, {"down", down, 156, 1}, {"down", down, 148, 1}, {"down", down, 147, 2},
		{"down", down, 100, 2}, {"down", down, 99, 0}, {"down", down, 164, 0},
	} {
		s, ok := changedSite(c.cs, c.addr)
		if s != c.want || ok != (c.want != 0) {
			t.Errorf("%s: changedSite(%d) = %d, %v; want %d", c.name, c.addr, s, ok, c.want)
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

// A history's log of changes grows while its oldest change is of the
// clock being logged, and otherwise overwrites it.
func TestChangesGrow(t *testing.T) {
	h := &history{}
	g := &G{hist: h} // clock 0
	for i := range 200 {
		g.siteChange(uintptr(1000+8*i), 8, 9, uint32(1+i%2))
	}
	g.flushChanges()
	if n := len(h.changes); n != 256 {
		t.Errorf("%d entries after 200 changes of one clock, want 256", n)
	}
	if n := len(h.changesOf(9, 0)); n != 200 {
		t.Errorf("%d changes of the clock kept, want 200", n)
	}
	for i := range 200 {
		g.siteChange(uintptr(1000+8*i), 8, 9, uint32(1+i%2))
	}
	g.flushChanges()
	if n, m := len(h.changes), len(h.changesOf(9, 0)); n != changeMax || m != changeMax {
		t.Errorf("%d entries, %d changes kept after 400 changes, want %d of each", n, m, changeMax)
	}

	old := &history{changes: make([]siteChange, changeMin), cn: changeMin}
	for i := range old.changes {
		old.changes[i] = siteChange{clock: 7, fsite: 9, site: 1}
	}
	g = &G{hist: old}
	for i := range changeBuf {
		g.siteChange(uintptr(1000+8*i), 8, 9, 2)
	}
	g.flushChanges()
	if n := len(old.changes); n != changeMin {
		t.Errorf("%d entries, want %d: the oldest changes were of another clock", n, changeMin)
	}
	if a, b := len(old.changesOf(9, 0)), len(old.changesOf(9, 7)); a != changeBuf || b != changeMin-changeBuf {
		t.Errorf("changes of clock 0, 7: %d, %d; want %d, %d", a, b, changeBuf, changeMin-changeBuf)
	}
}
