// Copyright 2026 The bigfoot Authors. All rights reserved.

package detector

import (
	"os"
	"strings"
	"testing"
)

// TestCutCopy: the "c" item of a site's coverage marks a copy, wherever
// it stands among the others, and only a whole item does.
func TestCutCopy(t *testing.T) {
	for _, c := range []struct {
		in, rest string
		copy     bool
	}{
		{"", "", false},
		{"c", "", true},
		{"c\tr3:4", "r3:4", true},
		{"r3:4\tc", "r3:4", true},
		{"r3:4\tc\tf1234 8", "r3:4\tf1234 8", true},
		{"l1 8 0 0:3:4:w", "l1 8 0 0:3:4:w", false},
		{"cx", "cx", false},
	} {
		rest, copy := cutCopy(c.in)
		if rest != c.rest || copy != c.copy {
			t.Errorf("cutCopy(%q) = %q, %v; want %q, %v", c.in, rest, copy, c.rest, c.copy)
		}
	}
}

// TestSlicecopyPos: the frame go -race prints for a copy is the line of
// runtime.slicecopy's declaration in the toolchain's source.
func TestSlicecopyPos(t *testing.T) {
	file, line := slicecopyPos()
	if line == 0 {
		t.Skip("the runtime's source is not beside its files' names (-trimpath?)")
	}
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(data), "\n")
	if line > len(lines) || !strings.HasPrefix(lines[line-1], "func slicecopy(") {
		t.Errorf("slicecopyPos() = %s:%d, which is not slicecopy's declaration", file, line)
	}
}

// TestCopySiteFrame: a race at a copy's site prints runtime.slicecopy's
// frame above the copy's line, as go -race does; another site does not.
func TestCopySiteFrame(t *testing.T) {
	if _, line := slicecopyPos(); line == 0 {
		t.Skip("the runtime's source is not beside its files' names (-trimpath?)")
	}
	base := RegisterSites("p", "copyframe.go", "7:2:f\tc\n8:2:f\n")
	for _, c := range []struct {
		site  uint32
		frame bool
	}{{base, true}, {base + 1, false}} {
		a := make([]byte, 16)
		b := make([]byte, 16)
		out := expect(t, true, func(g *G) {
			<-spawn(g, func(g *G) { W(g, &a[3], base+1); a[3] = 1 })
			Copy(g, c.site, b, a)
		})
		if got := strings.Contains(out, "runtime.slicecopy()"); got != c.frame {
			t.Errorf("site %d: slicecopy frame printed: %v, want %v:\n%s", c.site-base, got, c.frame, out)
		}
	}
}
