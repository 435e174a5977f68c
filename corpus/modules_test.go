package corpus

import (
	"strings"
	"testing"
)

// The built-in list parses, names each module once with a version and a
// reason, holds at least 30 modules, and holds every bench suite.
func TestModules(t *testing.T) {
	ms := Modules()
	if len(ms) < 30 {
		t.Errorf("%d modules, want at least 30", len(ms))
	}
	seen := map[string]bool{}
	for _, m := range ms {
		if seen[m.Path] {
			t.Errorf("%s listed twice", m.Path)
		}
		seen[m.Path] = true
		if !strings.HasPrefix(m.Version, "v") || m.Why == "" {
			t.Errorf("%s: version %q, why %q", m.Path, m.Version, m.Why)
		}
	}
	for _, p := range BenchSuites {
		if !seen[p] {
			t.Errorf("bench suite %s is not in the corpus", p)
		}
	}
}

func TestParseModulesErrors(t *testing.T) {
	if _, err := ParseModules(strings.NewReader("# comment\n\nexample.com/m v1.0.0\n")); err == nil {
		t.Error("a line without a style parsed")
	}
	ms, err := ParseModules(strings.NewReader("example.com/m v1.0.0 cli a reason in words\n"))
	if err != nil || len(ms) != 1 || ms[0].Why != "a reason in words" || ms[0].Style != "cli" {
		t.Errorf("ParseModules = %+v, %v", ms, err)
	}
	if got := Select(ms, "nothing,m"); len(got) != 1 {
		t.Errorf("Select = %v", got)
	}
}
