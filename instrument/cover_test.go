package instrument

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bigfoot-go/bigfoot/placement"
)

// coverSrc has a call placement covers and the instrumenter renders
// (main.go:14), one placement does not cover because an argument after
// the covered one calls (main.go:15), and one placement covers and the
// instrumenter refuses, nil being redeclared where it would render the
// record (main.go:24).
const coverSrc = `package main

type key struct{ a, b uint32 }

func round(r uint32, k *key) uint32 { return r ^ k.a ^ k.b }

func round2(k *key, r uint32) uint32 { return r ^ k.a }

func tag(j int) uint32 { return uint32(j) }

func rounds(ks []key) uint32 {
	r := uint32(0)
	for j := range ks {
		r = round(r, &ks[j])
		r ^= round2(&ks[j], tag(j))
	}
	return r
}

func shadow(ks []key) uint32 {
	nil := 0
	r := uint32(nil)
	for j := range ks {
		r = round(r, &ks[j])
	}
	return r
}

func main() {
	ks := make([]key, 8)
	println(rounds(ks), shadow(ks))
}
`

// TestCoveredCallsInPlan checks that the plan the instrumenter returns
// says what it did with each covered call: rendered (the call calls the
// copy), refused with the reason (the call keeps calling the original),
// and that a call placement does not cover is left alone.
func TestCoveredCallsInPlan(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte(coverSrc), 0o644); err != nil {
		t.Fatal(err)
	}
	w := newWorkspace(t, dir)
	w.mode = "bigfoot"
	res := w.instrument(t, false)
	calls := map[int]placement.SiteDecision{}
	for _, d := range res.Plan.Sites {
		if d.Decision == placement.EntryCall.String() {
			calls[d.Pos.Line] = d
		}
	}
	if d, ok := calls[14]; !ok || !d.Rendered {
		t.Errorf("main.go:14: %v, want a covered call rendered", d)
	}
	if d, ok := calls[15]; ok {
		t.Errorf("main.go:15: %v, want no covered call (an argument after the covered one calls)", d)
	}
	if d, ok := calls[24]; !ok || d.Refused != "nil is redeclared" {
		t.Errorf("main.go:24: %v, want a covered call refused: nil is redeclared", d)
	}
	lines := strings.Split(string(res.Replace[filepath.Join(w.mod, "main.go")]), "\n")
	for _, c := range []struct {
		line int
		want string
	}{{14, "round__bfnc("}, {15, "round2("}, {24, "round("}} {
		if got := lines[c.line-1]; !strings.Contains(got, c.want) || c.line != 14 && strings.Contains(got, placement.CoverSuffix) {
			t.Errorf("main.go:%d is %q, want a call of %s", c.line, got, c.want)
		}
	}
}
