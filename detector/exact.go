// Copyright 2026 The bigfoot Authors. All rights reserved.

package detector

import (
	"strconv"
	"strings"

	"github.com/bigfoot-go/bigfoot/shadow"
)

// Exact accesses of coalesced checks.
//
// A check the instrumenter coalesces stands for more than the access it is
// made at: a field group's check for every member of the group, a write
// check for the read of the same location it made redundant (RedCard).
// Its site's table entry says what it covers, after a tab:
//
//	line:col:fn<TAB>r<line>:<col>
//	line:col:fn<TAB>g<struct> <lo> <off>:<size>:<line>:<col>:<w|r> ...
//	line:col:fn<TAB>f<struct> <off>
//	line:col:fn<TAB>l<c> <elem> <d0> <rel>:<line>:<col>:<w|r> ...
//	line:col:fn<TAB>e<elem> <fn> <off>:<size>:<line>:<col>:<w|r> ...|<file>
//
// "r": a read of the same bytes, at line:col of the same function,
// precedes this write in the same epoch (the read's check was left out).
// "f": the check is its own access, of a field at offset <off> of a
// struct that field groups cover; it tells a report the struct's start
// (the racing address less <off>), and so the member of an earlier group
// check that raced.
// "g": the check covers the bytes [lo, hi) of a struct (identified by
// <struct>, a hash of its type); each member is one access of a field at
// offset <off> (from the struct's start) of <size> bytes, in execution
// order.
// "l": the check is a static loop range merged from the sites
// a[c·i+d+rel] (rel from the first site, whose constant term is d0) of
// elements of <elem> bytes; the racing element's index from a[d] names
// the site.
// "e": the check is a caller's range over the elements its loop passes
// to a callee (instrument/cover.go); the members are the callee's
// accesses of one element, as in "g", in function <fn> of <file>.
// The range being checked tells a report where its elements start
// (G.org). Nothing of this is read on the checking path: a report, once a
// race is found, resolves the racing address to the access that touched
// it (exactAccess).

// coverage is what a coalesced check covers (the entry's text after a
// tab), parsed with its table.
type coverage struct {
	readBefore *siteInfo // "r": the read the write check covers
	group      string    // "g": the struct's identity
	lo         uintptr   // "g": the group's first byte, from the struct's start
	members    []groupMember
	plain      bool    // "f": the check is of one field of a struct some group covers
	field      uintptr // "f": the field's offset
	elem       uintptr // "l", "e": the array's element size
	stride     int     // "l": the index coefficient c
	d0         int     // "l": the first site's constant index term
	grid       []loopMember
	fn, file   string // "e": the callee's function and file
}

// A loopMember is one site of a merged static loop range: its index is
// c·i + d + rel, d that of the range's first site.
type loopMember struct {
	rel       int
	line, col int
	write     bool
}

// A groupMember is one access of a field group.
type groupMember struct {
	off, size uintptr
	line, col int
	write     bool
}

// parseCoverage parses the text after the tab of a site's entry, items
// separated by tabs; nil if it says nothing this runtime knows. Of two
// items of a kind, the first counts.
func parseCoverage(s string) *coverage {
	var c *coverage
	for _, item := range strings.Split(s, "\t") {
		i := parseItem(item)
		switch {
		case i == nil:
		case c == nil:
			c = i
		case c.readBefore == nil && i.readBefore != nil:
			c.readBefore = i.readBefore
		case c.group == "" && i.group != "":
			i.readBefore = c.readBefore
			c = i
		}
	}
	return c
}

// parseItem parses one item of a site's coverage.
func parseItem(s string) *coverage {
	switch {
	case strings.HasPrefix(s, "r"):
		line, col, ok := lineCol(s[1:])
		if !ok {
			return nil
		}
		return &coverage{readBefore: &siteInfo{line: line, col: col}}
	case strings.HasPrefix(s, "f"):
		id, off, _ := strings.Cut(s[1:], " ")
		n, err := strconv.ParseUint(off, 10, 64)
		if err != nil {
			return nil
		}
		return &coverage{group: id, field: uintptr(n), plain: true}
	case strings.HasPrefix(s, "l"):
		f := strings.Fields(s[1:])
		if len(f) < 4 {
			return nil
		}
		stride, err1 := strconv.Atoi(f[0])
		elem, err2 := strconv.ParseUint(f[1], 10, 64)
		d0, err3 := strconv.Atoi(f[2])
		if err1 != nil || err2 != nil || err3 != nil || stride <= 0 || elem == 0 {
			return nil
		}
		c := &coverage{stride: stride, elem: uintptr(elem), d0: d0}
		for _, m := range f[3:] {
			p := strings.Split(m, ":")
			if len(p) != 4 {
				return nil
			}
			rel, err1 := strconv.Atoi(p[0])
			line, col, ok := lineCol(p[1] + ":" + p[2])
			if err1 != nil || !ok {
				return nil
			}
			c.grid = append(c.grid, loopMember{rel, line, col, p[3] == "w"})
		}
		return c
	case strings.HasPrefix(s, "e"):
		s, file, _ := strings.Cut(s[1:], "|")
		f := strings.Fields(s)
		if len(f) < 3 {
			return nil
		}
		elem, err := strconv.ParseUint(f[0], 10, 64)
		members, ok := parseMembers(f[2:])
		if err != nil || elem == 0 || !ok {
			return nil
		}
		return &coverage{elem: uintptr(elem), members: members, fn: f[1], file: file}
	case strings.HasPrefix(s, "g"):
		f := strings.Fields(s[1:])
		if len(f) < 3 {
			return nil
		}
		lo, err := strconv.ParseUint(f[1], 10, 64)
		if err != nil {
			return nil
		}
		members, ok := parseMembers(f[2:])
		if !ok {
			return nil
		}
		return &coverage{group: f[0], lo: uintptr(lo), members: members}
	}
	return nil
}

// parseMembers parses the members of a "g" or "e" entry,
// off:size:line:col:w|r each.
func parseMembers(f []string) ([]groupMember, bool) {
	var members []groupMember
	for _, m := range f {
		p := strings.Split(m, ":")
		if len(p) != 5 {
			return nil, false
		}
		off, err1 := strconv.ParseUint(p[0], 10, 64)
		size, err2 := strconv.ParseUint(p[1], 10, 64)
		line, err3 := strconv.Atoi(p[2])
		col, err4 := strconv.Atoi(p[3])
		if err1 != nil || err2 != nil || err3 != nil || err4 != nil {
			return nil, false
		}
		members = append(members, groupMember{uintptr(off), uintptr(size), line, col, p[4] == "w"})
	}
	return members, true
}

func lineCol(s string) (line, col int, ok bool) {
	a, b, ok := strings.Cut(s, ":")
	line, err1 := strconv.Atoi(a)
	col, err2 := strconv.Atoi(b)
	return line, col, ok && err1 == nil && err2 == nil
}

// An access is what a report names: a line of a function and a kind.
// fn and file are empty for the function and file of the check's site;
// an access of a callee whose checks the caller's loop makes ("e") names
// its own.
type access struct {
	line, col int
	write     bool
	fn, file  string
}

// exactAccess returns the access that the check at site s, of kind write,
// made to the racing bytes [addr, end), when the check covers several
// accesses; ok is false if the check is its own access or the racing
// access cannot be told.
//
// base is the start of the struct the check's group covers (0 if the
// check is no group's or its struct is unknown), group that struct's
// identity. conflict is the kind of the other access of the race: the
// access named is the first of the covered ones that conflicts with it,
// as the first is the one go -race reports, if current; the first of the
// check's kind, if not: the later ones of that kind were same-epoch
// accesses, which the shadow, as go -race's, does not record.
func exactAccess(s uint32, write bool, addr, end, base uintptr, group string, conflictWrite, current bool) (access, bool) {
	_, si, ok := site(s)
	if !ok || si.cov == nil {
		return access{}, false
	}
	c := si.cov
	if c.readBefore != nil {
		if current && write && conflictWrite {
			return access{line: c.readBefore.line, col: c.readBefore.col}, true
		}
		return access{}, false
	}
	if base == 0 || group != c.group || addr < base || c.elem != 0 {
		return access{}, false
	}
	return pickMember(c.members, addr-base, end-addr, write, conflictWrite, current)
}

// pickMember returns the member of a group or element coverage that
// touched the n racing bytes at offset off in its struct or element (see
// exactAccess).
func pickMember(members []groupMember, off, n uintptr, write, conflictWrite, current bool) (access, bool) {
	// The field the racing bytes are in. If they span several (fields
	// of one granule that the earlier access touched together, such as
	// two bools a group check wrote), the one at the racing address: the
	// shadow reports the first byte that conflicts.
	end := off + n
	field, fields, at := uintptr(0), 0, false
	for _, m := range members {
		if m.off < end && off < m.off+m.size && (fields == 0 || m.off != field) {
			field, fields = m.off, fields+1
		}
	}
	if fields > 1 {
		for _, m := range members {
			if m.off <= off && off < m.off+m.size {
				field, at = m.off, true
				break
			}
		}
		if !at {
			return access{}, false
		}
	}
	if fields == 0 {
		return access{}, false
	}
	for _, m := range members {
		if m.off == field && (current && (m.write || conflictWrite) || !current && m.write == write) {
			return access{line: m.line, col: m.col, write: m.write}, true
		}
	}
	return access{}, false
}

// gridAccess is exactAccess for the check of a range over an array's
// elements ("l", "e"): org is the address of the element the entry's
// offsets count from, and elem the element size, as the range being
// checked knows them (org 0: unknown, the earlier access's; the array
// is then taken to start its heap object).
func gridAccess(s uint32, write bool, addr, org, elem uintptr, conflictWrite, current bool) (access, bool) {
	_, si, ok := site(s)
	if !ok || si.cov == nil || si.cov.elem == 0 {
		return access{}, false
	}
	c := si.cov
	if org == 0 || elem != c.elem {
		b, _, heap := shadow.ObjectBounds(addr)
		if !heap {
			return access{}, false
		}
		org = b + uintptr(c.d0)*c.elem
	}
	d := int(addr - org) // two's complement: an element before org is negative
	if c.stride == 0 {
		// "e": a callee's accesses of one element.
		o := uintptr(mod(d, int(c.elem)))
		a, ok := pickMember(c.members, o, 8-addr&7, write, conflictWrite, current)
		if !ok && len(c.members) > 0 {
			// The racing bytes do not tell the field (the shadow
			// reports a granule holding several): the callee's first
			// access of the kind, as the check's site said before
			// entries listed the callee's accesses.
			a, ok = firstOfKind(c.members, write), true
		}
		a.fn, a.file = c.fn, c.file
		return a, ok
	}
	// "l": the element's index from org picks the merged sites whose
	// index it is.
	e := d / int(c.elem)
	if d < 0 && d%int(c.elem) != 0 {
		e--
	}
	var found access
	ok = false
	for _, m := range c.grid {
		if mod(e-m.rel, c.stride) != 0 {
			continue
		}
		a := access{line: m.line, col: m.col, write: m.write}
		if current && (m.write || conflictWrite) {
			return a, true
		}
		if !current && m.write == write {
			found, ok = a, true
		}
	}
	return found, ok
}

// restored is what restore found of a race's earlier access, and the
// grid of the range it was checked in (checkedOrigin); done is false if
// restore was not asked.
type restored struct {
	pcs       []uintptr
	commit    bool
	org, elem uintptr
	done      bool
}

// restoreOnGrid restores race r's earlier access when its site's entry
// counts elements ("l", "e"), which need its range's grid; a report
// restores the others once it knows it prints the race.
func restoreOnGrid(r shadow.Race) (x restored) {
	if _, si, ok := site(r.PrevSite); !ok || si.cov == nil || si.cov.elem == 0 {
		return x
	}
	var lo uintptr
	x.pcs, x.commit, lo, _ = restore(r.Prev, r.PrevSite, r.Addr)
	x.org, x.elem = checkedOrigin(r.PrevSite, lo)
	x.done = true
	return x
}

// checkedOrigin returns, for gridAccess, the element grid of the range
// that the earlier access at site s was checked in, from lo, the lowest
// byte its history entry touched (restore; 0: unknown): a range starts
// at an element of its first site's grid ("l": static ranges at the
// first site's first element, a footprint's at the access that began
// it, whose site's entry counts from it), at the covered fields' first
// byte ("e"). It tells the grid when the array is not at the start of a
// heap object (a global, a subslice), which gridAccess would assume.
func checkedOrigin(s uint32, lo uintptr) (org, elem uintptr) {
	_, si, ok := site(s)
	if !ok || si.cov == nil || si.cov.elem == 0 || lo == 0 {
		return 0, 0
	}
	c := si.cov
	if c.stride == 0 && len(c.members) > 0 {
		first := c.members[0].off
		for _, m := range c.members {
			first = min(first, m.off)
		}
		lo -= first
	}
	return lo, c.elem
}

// mod is x modulo m, in [0, m).
func mod(x, m int) int {
	r := x % m
	if r < 0 {
		r += m
	}
	return r
}

// structOf returns the start and identity of the struct whose field
// group (or grouped field, "f") the check at site s covers, if known.
// base is the start the check itself passed (0 if none); a field's check
// finds it from the racing address, at the field's start.
func structOf(s uint32, addr, base uintptr) (uintptr, string) {
	_, si, ok := site(s)
	if !ok || si.cov == nil || si.cov.group == "" {
		return 0, ""
	}
	if si.cov.plain {
		if addr < si.cov.field {
			return 0, ""
		}
		return addr - si.cov.field, si.cov.group
	}
	return base, si.cov.group
}

// racingBytes returns the bytes [lo, hi) of r's granule that raced,
// found by g's check at site, and the lowest byte of the earlier
// access's history entry (restore; 0 if unknown). The shadow reports
// where the check's bytes in the granule begin, which does not tell
// apart the members of a group of one granule (a byte slice's b[0..7]);
// the earlier access's own bytes do: a group's check races on the bytes
// of the granule the earlier access touched, and an access that races
// with an earlier group's check on its first byte, if the group touched
// it. Only a race involving a group's check ("g") asks.
func racingBytes(r shadow.Race, site uint32) (lo, hi, prevLo uintptr) {
	lo, hi = r.Addr, r.Addr&^7+8
	cur, prev := isGroup(site), isGroup(r.PrevSite)
	if !cur && !prev {
		return lo, hi, 0
	}
	_, _, plo, phi := restore(r.Prev, r.PrevSite, r.Addr)
	switch {
	case plo == 0 || plo >= hi || phi <= lo:
	case cur:
		lo, hi = max(lo, plo), min(hi, phi)
	case plo <= lo:
		hi = lo + 1
	}
	return lo, hi, plo
}

// isGroup reports whether the check at site s is a group's ("g").
func isGroup(s uint32) bool {
	_, si, ok := site(s)
	return ok && si.cov != nil && si.cov.group != "" && !si.cov.plain
}

// groupStart returns the start of the struct, or element 0, of the group
// the check at site s made with lowest byte lo (its history entry's), and
// the group's identity; ok is false if s is no group's check.
func groupStart(s uint32, lo uintptr) (base uintptr, group string, ok bool) {
	_, si, found := site(s)
	if !found || si.cov == nil || si.cov.group == "" || si.cov.plain || lo < si.cov.lo {
		return 0, "", false
	}
	return lo - si.cov.lo, si.cov.group, true
}

// firstOfKind returns the first of members whose kind is write's, or
// the first of them if none is.
func firstOfKind(members []groupMember, write bool) access {
	m := members[0]
	for _, x := range members {
		if x.write == write {
			m = x
			break
		}
	}
	return access{line: m.line, col: m.col, write: m.write}
}
