package instrument

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// footprintSitesSrc records one array from two sites of one loop, as
// a[2*i] and a[2*i+1], in a plain and in a generic function.
const footprintSitesSrc = `package main

func pairs(a []int) {
	for i := 0; 2*i+1 < len(a); i++ {
		a[2*i] = i
		a[2*i+1] = -i
	}
}

func pairsOf[E any](a []E, v E) {
	for i := 0; 2*i+1 < len(a); i++ {
		a[2*i] = v
		a[2*i+1] = v
	}
}

func main() {
	a := make([]int, 8)
	pairs(a)
	pairsOf(a, 1)
}
`

// TestFootprintSites: in slimstate mode, the records of one footprint
// at a[2*i] and a[2*i+1] get "l" entries, each counting from its own
// site, so that a report names the site of the racing element. A generic
// function's records get none (its element size is the instantiation's)
// and its file is still instrumented: an entry made from a type
// parameter's size once panicked in go/types, which left the file, and
// so the standard library's sort, unchecked.
func TestFootprintSites(t *testing.T) {
	src := t.TempDir()
	if err := os.WriteFile(filepath.Join(src, "main.go"), []byte(footprintSitesSrc), 0o644); err != nil {
		t.Fatal(err)
	}
	w := newWorkspace(t, src)
	w.mode = "slimstate"
	res := w.instrument(t, false)
	for _, n := range res.Notes {
		if strings.Contains(n, "internal error") {
			t.Errorf("note: %s", n)
		}
	}
	out := string(res.Replace[filepath.Join(w.mod, "main.go")])
	for _, want := range []string{
		`5:3:pairs\tl2 8 0 0:5:3:w 1:6:3:w`,
		`6:3:pairs\tl2 8 1 -1:5:3:w 0:6:3:w`,
		"__bf.F(__bfF2_0, &a[2*i], ",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("instrumented main.go lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, `:pairsOf\tl`) {
		t.Errorf("a generic function's records have an \"l\" entry:\n%s", out)
	}
}
