package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestDottedPackageFrames: a race in a package whose import path has a
// dot in its last element (gopkg.in/yaml.v3, lumberjack.v2) is reported
// with go -race's frames, each once: the linker writes that dot as %2e
// in the package's symbols, and runtime.Frame.Function shows it so. When
// the site table kept the path as written, the frames taken from it
// named the function apart from the stack's, which then repeated it.
func TestDottedPackageFrames(t *testing.T) {
	if bigfootBin == "" {
		t.Skip("end-to-end test; skipped with -short")
	}
	dir := writeModule(t, map[string]string{
		"go.mod": "module example.com/dot.v2\n\ngo 1.23\n",
		"dot.go": `package dot

var counter int

func bump() { counter++ }

// Race increments counter from two goroutines without synchronization.
func Race() int {
	done := make(chan bool)
	go func() {
		bump()
		done <- true
	}()
	bump()
	<-done
	return counter
}
`,
		"cmd/m/main.go": `package main

import (
	"fmt"

	dot "example.com/dot.v2"
)

func main() { fmt.Println(dot.Race()) }
`,
	})
	pkg := filepath.Join(dir, "cmd", "m")
	var want []reportedAccess
	for _, tool := range append([]string{"race"}, modes...) {
		bin := filepath.Join(dir, tool)
		buildBinary(t, pkg, tool, bin)
		_, r := raceRuns(t, bin, 1)
		got := reportedAccesses(r.stderr)
		if len(got) != 2 {
			t.Fatalf("%s: want one race with two accesses; got\n%s", tool, r.stderr)
		}
		for _, a := range got {
			for i, f := range a.frames {
				if strings.Contains(f, "example.com/dot.v2.") {
					t.Errorf("%s: frame %q names the package as written, not as its symbols do (example.com/dot%%2ev2)", tool, f)
				}
				if i > 0 && a.frames[i-1] == f {
					t.Errorf("%s: frame %q repeated:\n%s", tool, f, r.stderr)
				}
			}
		}
		if tool == "race" {
			want = got
			continue
		}
		for i := range got {
			if got[i].frames[0] != want[i].frames[0] {
				t.Errorf("%s: access %d's first frame %q, go -race's %q", tool, i, got[i].frames[0], want[i].frames[0])
			}
		}
	}
}
