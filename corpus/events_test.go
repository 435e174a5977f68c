package corpus

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// parseFile parses a recorded go test -json output in testdata.
func parseFile(t *testing.T, name string) map[string]*Package {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	pkgs, err := ParseEvents(f)
	if err != nil {
		t.Fatal(err)
	}
	return pkgs
}

func TestParseEventsRecorded(t *testing.T) {
	type want struct {
		status        string
		races, failed []string
	}
	for _, tc := range []struct {
		file string
		want map[string]want
	}{
		{"mixed/race.json", map[string]want{
			"a": {StatusFail, []string{"TestRace"}, []string{"TestRace"}},
			"b": {StatusOK, nil, nil},
			"c": {StatusNoTests, nil, nil},
			"d": {StatusFail, nil, []string{"TestFails"}},
			"e": {StatusOK, nil, nil},
			"f": {StatusOK, nil, nil},
			"g": {StatusOK, nil, nil},
		}},
		{"mixed/bigfoot.json", map[string]want{
			"a": {StatusFail, []string{"TestRace"}, []string{"TestRace"}},
			"b": {StatusOK, nil, nil},
			"c": {StatusNoTests, nil, nil},
			"d": {StatusFail, nil, []string{"TestFails"}},
			"e": {StatusFail, nil, []string{"TestPanicNil"}},
			"f": {StatusOK, nil, nil},
			"g": {StatusBuildFailed, nil, nil},
		}},
	} {
		pkgs := parseFile(t, tc.file)
		if len(pkgs) != len(tc.want) {
			t.Errorf("%s: %d packages, want %d", tc.file, len(pkgs), len(tc.want))
		}
		for name, w := range tc.want {
			p := pkgs["example.com/rec/"+name]
			if p == nil {
				t.Errorf("%s: no package %s", tc.file, name)
				continue
			}
			if p.Status != w.status || !slices.Equal(p.Races, w.races) || !slices.Equal(p.Failed, w.failed) {
				t.Errorf("%s: %s: status %q races %q failed %q, want %q %q %q",
					tc.file, name, p.Status, p.Races, p.Failed, w.status, w.races, w.failed)
			}
		}
	}
}

// A run killed before a package finished leaves it missing; lines that
// are not events (a tool's own messages) are skipped.
func TestParseEventsUnfinished(t *testing.T) {
	in := `bigfoot: a message that is not an event
{"Action":"start","Package":"m/p"}
{"Action":"run","Package":"m/p","Test":"TestDone"}
{"Action":"pass","Package":"m/p","Test":"TestDone"}
{"Action":"run","Package":"m/p","Test":"TestSlow"}
{"Action":"output","Package":"m/p","Test":"TestSlow","Output":"=== RUN   TestSlow\n"}
`
	pkgs, err := ParseEvents(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	if p := pkgs["m/p"]; p == nil || p.Status != StatusMissing || p.Built() || !slices.Equal(p.Running, []string{"TestSlow"}) {
		t.Errorf("m/p = %+v, want status %q, not built, running TestSlow", p, StatusMissing)
	}
}

// The verifier's summary line of each test binary is summed per package.
func TestParseEventsVerify(t *testing.T) {
	in := `{"Action":"start","Package":"m/p"}
{"Action":"output","Package":"m/p","Output":"bigfoot verify: accesses=10 checks=4 uncovered=2 illegitimate=1 spans=3 unverified_spans=0\n"}
{"Action":"output","Package":"m/p","Output":"bigfoot verify: accesses=5 checks=5 uncovered=0 illegitimate=3 spans=1 unverified_spans=0\n"}
{"Action":"fail","Package":"m/p","Elapsed":0.1}
`
	pkgs, err := ParseEvents(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	want := Verify{Lines: 2, Uncovered: 2, Illegitimate: 4}
	if got := pkgs["m/p"].Verify; got != want {
		t.Errorf("Verify = %+v, want %+v", got, want)
	}
}
