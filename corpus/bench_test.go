package corpus

import (
	"bytes"
	"strings"
	"testing"
)

func TestOverheadRatio(t *testing.T) {
	for _, tc := range []struct{ bigfoot, race, plain, want float64 }{
		{30, 50, 10, 0.5},
		{9, 50, 10, 0.01}, // faster than plain: within noise
		{30, 50, 0, 0},    // no plain time
		{30, 10, 10, 0},   // no go -race overhead
	} {
		if got := overheadRatio(tc.bigfoot, tc.race, tc.plain); got != tc.want {
			t.Errorf("overheadRatio(%v, %v, %v) = %v, want %v", tc.bigfoot, tc.race, tc.plain, got, tc.want)
		}
	}
}

func TestBenchMarkdown(t *testing.T) {
	pkgs := func() map[string]*Package { return map[string]*Package{"m/p": {ImportPath: "m/p", Status: StatusOK}} }
	res := &ModuleResult{Module: Module{Path: "example.com/m"}, Runs: []*SuiteRun{
		{Tool: ToolPlain, Wall: 10, CPU: 8, PeakRSSKiB: 10 << 10, Packages: pkgs()},
		{Tool: ToolRace, Wall: 30, CPU: 28, PeakRSSKiB: 100 << 10, Packages: pkgs()},
		{Tool: ToolBigfoot, Wall: 20, CPU: 13, PeakRSSKiB: 50 << 10, Packages: pkgs()},
	}}
	res.compare(false)
	rep := &Report{Runs: 1, Modules: []*ModuleResult{res}}
	var b bytes.Buffer
	if err := rep.BenchMarkdown(&b); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{
		"| example.com/m | 10.0 | 30.0 | 20.0 | 0.50 | 8.0 | 28.0 | 13.0 | 0.25 | 100 | 50 | 0.50 | ok |",
		"Geometric means: wall overhead 0.50x, CPU overhead 0.25x, peak RSS 0.50x go -race's.",
	} {
		if !strings.Contains(b.String(), s) {
			t.Errorf("BenchMarkdown lacks %q:\n%s", s, b.String())
		}
	}
}
