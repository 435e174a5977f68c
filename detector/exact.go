// Copyright 2026 The bigfoot Authors. All rights reserved.

package detector

import (
	"strconv"
	"strings"
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
// order. Nothing of this is read on the checking path: a report, once a
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
	case strings.HasPrefix(s, "g"):
		f := strings.Fields(s[1:])
		if len(f) < 3 {
			return nil
		}
		lo, err := strconv.ParseUint(f[1], 10, 64)
		if err != nil {
			return nil
		}
		c := &coverage{group: f[0], lo: uintptr(lo)}
		for _, m := range f[2:] {
			p := strings.Split(m, ":")
			if len(p) != 5 {
				return nil
			}
			off, err1 := strconv.ParseUint(p[0], 10, 64)
			size, err2 := strconv.ParseUint(p[1], 10, 64)
			line, err3 := strconv.Atoi(p[2])
			col, err4 := strconv.Atoi(p[3])
			if err1 != nil || err2 != nil || err3 != nil || err4 != nil {
				return nil
			}
			c.members = append(c.members, groupMember{uintptr(off), uintptr(size), line, col, p[4] == "w"})
		}
		return c
	}
	return nil
}

func lineCol(s string) (line, col int, ok bool) {
	a, b, ok := strings.Cut(s, ":")
	line, err1 := strconv.Atoi(a)
	col, err2 := strconv.Atoi(b)
	return line, col, ok && err1 == nil && err2 == nil
}

// An access is what a report names: a line of a function and a kind.
type access struct {
	line, col int
	write     bool
}

// exactAccess returns the access that the check at site s, of kind write,
// made to the racing address addr, when the check covers several
// accesses; ok is false if the check is its own access or the racing
// access cannot be told.
//
// base is the start of the struct the check's group covers (0 if the
// check is no group's or its struct is unknown), group that struct's
// identity. conflict is the kind of the other access of the race: the
// access named is the first of the covered ones that conflicts with it,
// as the first is the one go -race reports, if current; the last of the
// check's kind (the one the shadow keeps), if not.
func exactAccess(s uint32, write bool, addr, base uintptr, group string, conflictWrite, current bool) (access, bool) {
	_, si, ok := site(s)
	if !ok || si.cov == nil {
		return access{}, false
	}
	c := si.cov
	if c.readBefore != nil {
		if current && write && conflictWrite {
			return access{c.readBefore.line, c.readBefore.col, false}, true
		}
		return access{}, false
	}
	if base == 0 || group != c.group || addr < base {
		return access{}, false
	}
	off := addr - base
	// The field the racing address is in; one field of the bytes the
	// shadow reported from (addr up to the granule's end), or the race
	// cannot be told from the address.
	end := off + (8 - addr&7)
	field, n := uintptr(0), 0
	for _, m := range c.members {
		if m.off < end && off < m.off+m.size && (n == 0 || m.off != field) {
			field, n = m.off, n+1
		}
	}
	if n != 1 {
		return access{}, false
	}
	var found access
	ok = false
	for _, m := range c.members {
		if m.off != field {
			continue
		}
		if current && (m.write || conflictWrite) {
			return access{m.line, m.col, m.write}, true
		}
		if !current && m.write == write {
			found, ok = access{m.line, m.col, m.write}, true
		}
	}
	return found, ok
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
