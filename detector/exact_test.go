// Copyright 2026 The bigfoot Authors. All rights reserved.

package detector

import (
	"reflect"
	"testing"
	"unsafe"
)

// TestExactAccess: a report of a coalesced check names the access that
// touched the racing bytes (exact.go): a field group's member, by the
// racing address's offset in the struct, the first conflicting one for
// the access that found the race and the first of the shadow's kind for
// the earlier one (the racing bytes, not only the granule, tell the
// elements of a byte group apart); a write check's covered read when the earlier access
// was a write.
func TestExactAccess(t *testing.T) {
	if got := firstSites("3:1:main\tr2:5\n4:2:main\n9:1:f\tg1 0 0:8:9:1:w\n"); !reflect.DeepEqual(got, []uint32{0, 0, 2}) {
		t.Errorf("firstSites with coverage = %v, want [0 0 2]", got)
	}
	base := RegisterSites("p", "f.go",
		"12:4:set\tg7 0 0:8:10:4:w 8:8:11:4:r 8:8:11:4:w 16:8:12:4:w\n"+
			"26:2:bump\tr25:7\n"+
			"30:1:small\tg8 0 0:4:28:1:w 4:4:29:1:w\n"+
			"40:3:plain\tf7 8\n"+
			"50:2:le32\tgb 0 3:1:49:7:r 0:1:50:10:r 1:1:50:24:r 2:1:50:41:r 3:1:50:58:r\n")
	const obj = 0x10000
	for _, tc := range []struct {
		name                   string
		site                   uint32
		write                  bool
		addr, base             uintptr
		group                  string
		conflictWrite, cur, ok bool
		want                   access
	}{
		{"first field, current", base, true, obj, obj, "7", false, true, true, access{line: 10, col: 4, write: true}},
		{"middle field, prev write: its read", base, true, obj + 8, obj, "7", true, true, true, access{line: 11, col: 4, write: false}},
		{"middle field, prev read: its write", base, true, obj + 8, obj, "7", false, true, true, access{line: 11, col: 4, write: true}},
		{"middle field, earlier access", base, true, obj + 8, obj, "7", false, false, true, access{line: 11, col: 4, write: true}},
		{"unknown struct start", base, true, obj + 8, 0, "", false, false, false, access{}},
		{"another struct", base, true, obj + 8, obj, "9", false, false, false, access{}},
		{"covered read", base + 1, true, obj, 0, "", true, true, true, access{line: 25, col: 7, write: false}},
		{"covered read, prev read", base + 1, true, obj, 0, "", false, true, false, access{}},
		{"covered read, earlier access", base + 1, true, obj, 0, "", true, false, false, access{}},
		// Racing bytes over two fields the earlier access touched
		// together: the field at the racing address (the first byte
		// that conflicts).
		{"two fields in the racing granule", base + 2, true, obj, obj, "8", true, true, true, access{line: 28, col: 1, write: true}},
		{"two fields, the second at the racing address", base + 2, true, obj + 4, obj, "8", true, false, true, access{line: 29, col: 1, write: true}},
		// An element group of one granule: the racing bytes (n) tell
		// its elements apart; of two reads of b[3] (the hint _ = b[3],
		// then b[3]), the current access is the first that conflicts
		// with the earlier write, the earlier access the first read.
		{"elements in the granule", base + 4, false, obj, obj, "b", true, true, true, access{line: 50, col: 10}},
		{"element 3, current", base + 4, false, obj + 3, obj, "b", true, true, true, access{line: 49, col: 7}},
		{"element 3, earlier access", base + 4, false, obj + 3, obj, "b", true, false, true, access{line: 49, col: 7}},
		{"element 1, earlier access", base + 4, false, obj + 1, obj, "b", true, false, true, access{line: 50, col: 24}},
	} {
		n := uintptr(8) - tc.addr&7
		if tc.site == base+4 && tc.addr != obj {
			n = 1
		}
		got, ok := exactAccess(tc.site, tc.write, tc.addr, tc.addr+n, tc.base, tc.group, tc.conflictWrite, tc.cur)
		if ok != tc.ok || got != tc.want {
			t.Errorf("%s: exactAccess = %v, %v; want %v, %v", tc.name, got, ok, tc.want, tc.ok)
		}
	}
	// A plain check of a grouped field: the struct's start is the racing
	// address less the field's offset; the group's own start is what
	// its check passed.
	if b, id := structOf(base+3, obj+8, 0); b != obj || id != "7" {
		t.Errorf("structOf(field at 8) = %#x, %q; want %#x, \"7\"", b, id, obj)
	}
	if b, id := structOf(base, obj+8, obj); b != obj || id != "7" {
		t.Errorf("structOf(group) = %#x, %q; want %#x, \"7\"", b, id, obj)
	}
	if b, id := structOf(base+1, obj, 0); b != 0 || id != "" {
		t.Errorf("structOf(covered read) = %#x, %q; want 0, \"\"", b, id)
	}
}

// TestGridAccess: a report of a range over an array's elements names the
// site that touched the racing element: of a loop range merged from
// a[2i] and a[2i+1] ("l"), by the element's index from the range's
// origin; of a callee's accesses checked by its caller's loop ("e"), by
// the racing field of the element, in the callee's function and file.
// Without the range's origin (the earlier access), the array is taken to
// start its heap object.
func TestGridAccess(t *testing.T) {
	base := RegisterSites("p", "grid.go",
		"12:3:fill\tl2 8 0 0:12:3:w 1:13:3:w\n"+
			"20:4:cells\te16 setCell 0:8:30:2:w 8:8:31:2:w|other.go\n")
	gridHeap = make([]int64, 8)
	org := uintptr(unsafe.Pointer(&gridHeap[0]))
	for _, tc := range []struct {
		name          string
		site          uint32
		addr, org     uintptr
		elem          uintptr
		conflictWrite bool
		cur, ok       bool
		want          access
	}{
		{"even element", base, org + 4*8, org, 8, true, true, true, access{line: 12, col: 3, write: true}},
		{"odd element", base, org + 5*8, org, 8, true, true, true, access{line: 13, col: 3, write: true}},
		{"odd element, earlier access", base, org + 5*8, 0, 0, false, false, true, access{line: 13, col: 3, write: true}},
		{"odd element from an origin past it", base, org + 1*8, org + 2*8, 8, true, true, true, access{line: 13, col: 3, write: true}},
		{"second field", base + 1, org + 16 + 8, org, 16, true, true, true, access{line: 31, col: 2, write: true, fn: "setCell", file: "other.go"}},
		{"first field, earlier access", base + 1, org + 32, 0, 0, false, false, true, access{line: 30, col: 2, write: true, fn: "setCell", file: "other.go"}},
		{"not in the heap", base, uintptr(unsafe.Pointer(&gridGlobal[1])), 0, 0, false, false, false, access{}},
	} {
		got, ok := gridAccess(tc.site, true, tc.addr, tc.org, tc.elem, tc.conflictWrite, tc.cur)
		if ok != tc.ok || ok && got != tc.want {
			t.Errorf("%s: gridAccess = %+v, %v; want %+v, %v", tc.name, got, ok, tc.want, tc.ok)
		}
	}
}

// TestCheckedOrigin: the grid of the range an earlier access was checked
// in comes from the lowest byte its history entry touched: the range's
// first element for a merged loop range ("l"), less the covered fields'
// offset for a callee's accesses ("e"); a global's or a subslice's
// elements are then told apart as the range's own.
func TestCheckedOrigin(t *testing.T) {
	base := RegisterSites("p", "origin.go",
		"12:3:fill\tl2 8 0 0:12:3:w 1:13:3:w\n"+
			"20:4:cells\te24 setCell 8:8:30:2:w 16:8:31:2:w|other.go\n"+
			"25:4:plain\n")
	g0 := uintptr(unsafe.Pointer(&gridGlobal[0]))
	if org, elem := checkedOrigin(base, g0+8); org != g0+8 || elem != 8 {
		t.Errorf("checkedOrigin(l) = %#x, %d; want %#x, 8", org, elem, g0+8)
	}
	if org, elem := checkedOrigin(base+1, g0+8); org != g0 || elem != 24 {
		t.Errorf("checkedOrigin(e) = %#x, %d; want %#x, 24", org, elem, g0)
	}
	if org, _ := checkedOrigin(base+2, g0); org != 0 {
		t.Errorf("checkedOrigin(no entry) = %#x, want 0", org)
	}
	if org, _ := checkedOrigin(base, 0); org != 0 {
		t.Errorf("checkedOrigin(no history) = %#x, want 0", org)
	}
	// A range of a subslice from element 1 of the global: element 3 of
	// the global is the subslice's element 2, a[2*i]'s.
	org, elem := checkedOrigin(base, g0+8)
	if a, ok := gridAccess(base, true, g0+3*8, org, elem, false, false); !ok || a.line != 12 {
		t.Errorf("gridAccess from the checked origin = %+v, %v; want line 12", a, ok)
	}
}

var (
	gridGlobal [4]int64
	gridHeap   []int64 // a heap array: its object starts with element 0
)
