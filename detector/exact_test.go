// Copyright 2026 The bigfoot Authors. All rights reserved.

package detector

import (
	"reflect"
	"testing"
)

// TestExactAccess: a report of a coalesced check names the access that
// touched the racing bytes (exact.go): a field group's member, by the
// racing address's offset in the struct, the first conflicting one for
// the access that found the race and the last of the shadow's kind for
// the earlier one; a write check's covered read when the earlier access
// was a write.
func TestExactAccess(t *testing.T) {
	if got := firstSites("3:1:main\tr2:5\n4:2:main\n9:1:f\tg1 0 0:8:9:1:w\n"); !reflect.DeepEqual(got, []uint32{0, 0, 2}) {
		t.Errorf("firstSites with coverage = %v, want [0 0 2]", got)
	}
	base := RegisterSites("p", "f.go",
		"12:4:set\tg7 0 0:8:10:4:w 8:8:11:4:r 8:8:11:4:w 16:8:12:4:w\n"+
			"26:2:bump\tr25:7\n"+
			"30:1:small\tg8 0 0:4:28:1:w 4:4:29:1:w\n"+
			"40:3:plain\tf7 8\n")
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
		{"two fields in the racing granule", base + 2, true, obj, obj, "8", true, true, false, access{}},
	} {
		got, ok := exactAccess(tc.site, tc.write, tc.addr, tc.base, tc.group, tc.conflictWrite, tc.cur)
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
