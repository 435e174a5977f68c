// Copyright 2026 The bigfoot Authors. All rights reserved.

package detector

import "github.com/bigfoot-go/bigfoot/shadow"

// Site changes: which of a footprint's sites touched an element.
//
// A footprint records the accesses of several sites into one range when
// their index progression is the same: s[i] in both branches of an if, a
// merge's dst[k] from either input. The range is checked under the site
// that began it, and the shadow keeps that one site for all its elements,
// as it keeps one for every range. Which branch touched an element is
// known only at the access. A site per element would cost the footprint's
// inline path a store per access and the shadow per-element state (a
// merge's ranges cut into its branches' runs); instead the emitted code
// records such a footprint's accesses with FM, whose inline path also
// compares the site with the last one recorded, and the goroutine logs
// each change of site: (address, clock, the range's site, the access's
// site). A run of one branch costs nothing more than F; a change costs a
// call and an entry.
//
// A report resolves a race found in such a range from the log: the later
// access from its own goroutine's, the earlier one from its thread id's
// (kept with its history, so it outlives the goroutine). The check of a
// range logs its end (an entry of site 0 at its last element), so the
// log is a sequence of runs, one per range of the footprint: the newest
// run of the range's site and clock whose elements span the racing
// address names it, by the change that covers the address in the run's
// direction. The log starts at changeMin entries and doubles, up to
// changeMax, while its oldest change is of the clock being logged; when
// it has moved on past the access, the report names the range's site.

const (
	changeBuf = 64  // entries a goroutine logs before it moves them to its history
	changeMin = 64  // entries of a history's log of changes when made
	changeMax = 256 // entries of it at most (8 KiB: mergesort has 1,000 thread ids)
)

// A siteChange says that from the access of addr (an element of size
// bytes) in clock, a footprint whose range is checked under site fsite
// recorded its accesses at site; site 0: the range ended at addr, its
// last element.
type siteChange struct {
	addr              uintptr
	clock             uint64
	fsite, site, size uint32
}

// changeLog is a goroutine's changes not yet in its history: only the
// goroutine reads and writes it.
type changeLog struct {
	ents [changeBuf]siteChange
	n    int
}

// siteChange logs that from the access of a, an element of size bytes,
// g's footprint whose range has site fsite records at site (0: the range
// ended at a).
func (g *G) siteChange(a, size uintptr, fsite, site uint32) {
	l := g.changes
	if l == nil {
		l = new(changeLog)
		g.changes = l
	}
	if l.n == changeBuf {
		g.flushChanges()
		if l.n == changeBuf { // no history to move them to: drop them
			l.n = 0
		}
	}
	l.ents[l.n] = siteChange{a, g.t.Epoch.Clock(), fsite, site, uint32(size)}
	l.n++
}

// flushChanges moves g's logged changes to its thread id's history, if
// it keeps one (BIGFOOT_OPTIONS=history=0: the goroutine's log is all
// there is). Called before g's checks of footprint ranges write the
// shadow, so that a later access's report finds the changes of every
// range the shadow holds.
func (g *G) flushChanges() {
	l, h := g.changes, g.hist
	if l == nil || l.n == 0 || h == nil {
		return
	}
	h.mu.Lock()
	if h.changes == nil {
		h.changes = make([]siteChange, changeMin)
	}
	for _, c := range l.ents[:l.n] {
		n := uint64(len(h.changes))
		if h.cn >= n && n < changeMax && h.changes[h.cn%n].clock == c.clock {
			h.growChanges() // the oldest change is of this clock: keep it
			n = uint64(len(h.changes))
		}
		h.changes[h.cn%n] = c
		h.cn++
	}
	h.mu.Unlock()
	l.n = 0
}

// growChanges doubles h's log of changes, keeping every change in it.
// h.mu is held.
func (h *history) growChanges() {
	old, n := h.changes, uint64(len(h.changes))
	h.changes = make([]siteChange, 2*n)
	for k := h.cn - min(h.cn, n); k < h.cn; k++ {
		h.changes[k%(2*n)] = old[k%n]
	}
}

// ownChangedSite returns the site of g's access of addr in the range
// checked under site fsite in clock, from g's log of changes.
func (g *G) ownChangedSite(fsite uint32, clock uint64, addr uintptr) (uint32, bool) {
	var cs []siteChange
	if h := g.hist; h != nil {
		h.mu.Lock()
		cs = h.changesOf(fsite, clock)
		h.mu.Unlock()
	}
	if l := g.changes; l != nil {
		cs = appendChanges(cs, l.ents[:l.n], fsite, clock)
	}
	return changedSite(cs, addr)
}

// changedSiteOf returns the site of the earlier access of a race, e at
// site fsite, to addr, from its thread id's log of changes.
func changedSiteOf(e shadow.Epoch, fsite uint32, addr uintptr) (uint32, bool) {
	tids.mu.Lock()
	var h *history
	if t := e.TID(); int(t) < len(tids.hists) {
		h = tids.hists[t]
	}
	tids.mu.Unlock()
	if h == nil {
		return 0, false
	}
	h.mu.Lock()
	cs := h.changesOf(fsite, e.Clock())
	h.mu.Unlock()
	return changedSite(cs, addr)
}

// changesOf returns h's logged changes of the ranges of site fsite in
// clock, oldest first. h.mu is held.
func (h *history) changesOf(fsite uint32, clock uint64) []siteChange {
	n := h.cn
	var cs []siteChange
	m := uint64(len(h.changes))
	for k := n - min(n, m); k < n; k++ {
		cs = appendChanges(cs, h.changes[k%m:k%m+1], fsite, clock)
	}
	return cs
}

// appendChanges appends the changes of src of the ranges of site fsite
// in clock to dst.
func appendChanges(dst, src []siteChange, fsite uint32, clock uint64) []siteChange {
	for _, c := range src {
		if c.fsite == fsite && c.clock == clock {
			dst = append(dst, c)
		}
	}
	return dst
}

// changedSite returns the site that touched addr by the changes cs of
// one range's site and clock, oldest first: in the newest run (the
// entries up to an end) whose elements span addr, the change that
// covers it.
func changedSite(cs []siteChange, addr uintptr) (site uint32, ok bool) {
	start := 0
	for i := 0; i <= len(cs); i++ {
		if i < len(cs) && cs[i].site != 0 {
			continue
		}
		var end *siteChange
		if i < len(cs) {
			end = &cs[i]
		}
		if s, found := runSite(cs[start:i], end, addr); found {
			site, ok = s, true
		}
		start = i + 1
	}
	return site, ok
}

// runSite returns the site that touched addr in one run of changes, the
// first made where the range began, if the run spans addr. end is the
// run's end (nil: the range was not checked yet). Ascending, change k
// covers its element up to change k+1's; descending, down to it.
func runSite(run []siteChange, end *siteChange, addr uintptr) (uint32, bool) {
	if len(run) == 0 {
		return 0, false
	}
	first, size := run[0].addr, uintptr(run[0].size)
	desc := end != nil && end.addr < first || end == nil && len(run) > 1 && run[1].addr < first
	if desc {
		if addr >= first+size || end != nil && addr < end.addr {
			return 0, false
		}
		for k := len(run) - 1; k >= 0; k-- {
			if addr < run[k].addr+size {
				return run[k].site, true
			}
		}
		return 0, false
	}
	if addr < first || end != nil && addr >= end.addr+uintptr(end.size) {
		return 0, false
	}
	for k := len(run) - 1; k >= 0; k-- {
		if addr >= run[k].addr {
			return run[k].site, true
		}
	}
	return 0, false
}
