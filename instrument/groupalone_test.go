package instrument

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// TestGroupAloneWithdrawn: a field group whose anchor's check the
// renderer makes alone (here every group's: testHookGroupAlone) is
// withdrawn with its members, which are then checked where they are, and
// a note says so (-bfv). A
// member is never left out without its group's check (a tuple assignment
// from a synchronizing call once checked the anchor alone and left a
// member unchecked: the verifier's uncovered write).
func TestGroupAloneWithdrawn(t *testing.T) {
	render := func(alone bool) *Result {
		if alone {
			testHookGroupAlone = func() bool { return true }
			defer func() { testHookGroupAlone = nil }()
		}
		w := newWorkspace(t, filepath.Join("testdata", "src", "groups"))
		w.mode = "bigfoot"
		return w.instrument(t, false)
	}
	// sitesOn counts the site table entries on each line: the table is
	// one string literal of lines "line:col:function".
	sitesOn := func(res *Result) map[int]int {
		n := map[int]int{}
		for _, b := range res.Replace {
			for _, e := range strings.Split(string(b), `\n`) {
				var line, col int
				e = e[strings.LastIndexByte(e, '"')+1:] // the table's first, after its quote
				if _, err := fmt.Sscanf(e, "%d:%d:", &line, &col); err == nil {
					n[line]++
				}
			}
		}
		return n
	}
	plain, alone := render(false), render(true)
	before, after := sitesOn(plain), sitesOn(alone)
	members := map[int]int{}
	for _, d := range plain.Plan.Sites {
		if d.Decision == "member" && d.Rendered {
			members[d.Pos.Line]++
		}
	}
	if len(members) == 0 {
		t.Fatal("the testdata's plan leaves no member out")
	}
	for _, d := range alone.Plan.Sites {
		if (d.Decision == "group" || d.Decision == "member") && d.Rendered {
			t.Errorf("%v: %s rendered; want its group withdrawn", d.Pos, d.Decision)
		}
	}
	for line, n := range members {
		if after[line] < before[line]+n {
			t.Errorf("line %d: %d sites with its groups withdrawn, %d with them; want %d more, one per member", line, after[line], before[line], n)
		}
	}
	if !strings.Contains(strings.Join(alone.Notes, "\n"), "field group not checked as one") {
		t.Errorf("no note of the withdrawn groups (-bfv): %q", alone.Notes)
	}
	for _, b := range alone.Replace {
		if s := string(b); strings.Contains(s, "__bf.WG(") || strings.Contains(s, "__bf.RG(") || strings.Contains(s, "__bf.FG(") {
			t.Errorf("a group check is rendered:\n%s", s)
		}
	}
}
