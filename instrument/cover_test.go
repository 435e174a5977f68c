package instrument

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestCoverRefusedNote checks that a call placement covers and the
// rendering refuses is noted (-bfv): in the callees corpus, dist(&bs[i],
// x) whose later argument calls fmt.Sprint keeps calling dist.
func TestCoverRefusedNote(t *testing.T) {
	w := newWorkspace(t, filepath.Join("testdata", "src", "callees"))
	w.mode = "bigfoot"
	res := w.instrument(t, false)
	want := "covered call of dist not rendered: an argument after the covered one calls"
	found := false
	for _, n := range res.Notes {
		found = found || strings.Contains(n, "main.go:118:") && strings.Contains(n, want)
	}
	if !found {
		t.Errorf("no note %q at main.go:118; notes:\n%s", want, strings.Join(res.Notes, "\n"))
	}
	src := string(res.Replace[filepath.Join(w.mod, "main.go")])
	if !strings.Contains(src, "dist(&bs[i], float64(len(") {
		t.Errorf("the refused call does not call dist itself")
	}
}
