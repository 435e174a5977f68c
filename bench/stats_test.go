package bench

import (
	"math"
	"testing"
)

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(b)) }

func TestMedian(t *testing.T) {
	for _, tc := range []struct {
		xs   []float64
		want float64
	}{
		{[]float64{3}, 3},
		{[]float64{3, 1, 2}, 2},
		{[]float64{4, 1, 3, 2}, 2.5},
		{[]float64{5, 5, 1, 9, 7}, 5},
	} {
		in := append([]float64(nil), tc.xs...)
		if got := Median(tc.xs); !near(got, tc.want) {
			t.Errorf("Median(%v) = %v, want %v", in, got, tc.want)
		}
		for i := range in {
			if in[i] != tc.xs[i] {
				t.Fatalf("Median modified its argument: %v, was %v", tc.xs, in)
			}
		}
	}
	if got := Median(nil); !math.IsNaN(got) {
		t.Errorf("Median(nil) = %v, want NaN", got)
	}
}

func TestMean(t *testing.T) {
	if got := Mean([]float64{1, 2, math.NaN(), 6}); !near(got, 3) {
		t.Errorf("Mean = %v, want 3", got)
	}
	if got := Mean([]float64{math.NaN()}); !math.IsNaN(got) {
		t.Errorf("Mean(NaN) = %v, want NaN", got)
	}
}

func TestOverhead(t *testing.T) {
	for _, tc := range []struct {
		t, base, want float64
	}{
		{2, 1, 1},
		{5.2, 1, 4.2},
		{1, 1, 0},
		{0.9, 1, -0.1},
		{3, 0, math.NaN()},
		{math.NaN(), 1, math.NaN()},
		{1, math.NaN(), math.NaN()},
	} {
		got := Overhead(tc.t, tc.base)
		if math.IsNaN(tc.want) != math.IsNaN(got) || !math.IsNaN(got) && !near(got, tc.want) {
			t.Errorf("Overhead(%v, %v) = %v, want %v", tc.t, tc.base, got, tc.want)
		}
	}
}

func TestGeoMean(t *testing.T) {
	for _, tc := range []struct {
		xs   []float64
		want float64
	}{
		{[]float64{4}, 4},
		{[]float64{1, 4}, 2},
		{[]float64{2, 8, math.NaN()}, 4},
		{[]float64{-0.5, 1}, math.Sqrt(GeoMeanFloor)}, // a negative overhead counts as the floor
		{[]float64{0, 100}, 1},
	} {
		if got := GeoMean(tc.xs); !near(got, tc.want) {
			t.Errorf("GeoMean(%v) = %v, want %v", tc.xs, got, tc.want)
		}
	}
	if got := GeoMean([]float64{math.NaN()}); !math.IsNaN(got) {
		t.Errorf("GeoMean(NaN) = %v, want NaN", got)
	}
}

func TestParseStats(t *testing.T) {
	stderr := []byte("some output\nbigfoot stats: accesses=1000 checks=250 ranges=3 syncs=12 goroutines=5 races=0 shadow_pages=7\n")
	st, ok := parseStats(stderr)
	if !ok || st["checks"] != 250 || st["accesses"] != 1000 || st["goroutines"] != 5 {
		t.Errorf("parseStats = %v, %v", st, ok)
	}
	if _, ok := parseStats([]byte("checksum: 12\n")); ok {
		t.Error("parseStats found a stats line in output without one")
	}
}

func TestParseChecksum(t *testing.T) {
	if got := parseChecksum([]byte("hello\nchecksum: 00ff\n")); got != "00ff" {
		t.Errorf("parseChecksum = %q, want 00ff", got)
	}
	if got := parseChecksum([]byte("no sum\n")); got != "" {
		t.Errorf("parseChecksum = %q, want empty", got)
	}
}

func TestParseAnalysis(t *testing.T) {
	secs, funcs := parseAnalysis([]byte("bigfoot: 0.1s: loading\nbigfoot analysis: time=1.5s functions=42\n"))
	if !near(secs, 1.5) || funcs != 42 {
		t.Errorf("parseAnalysis = %v, %v; want 1.5, 42", secs, funcs)
	}
	secs, _ = parseAnalysis([]byte("static analysis time: 250ms\n"))
	if !near(secs, 0.25) {
		t.Errorf("parseAnalysis = %v, want 0.25", secs)
	}
	if secs, funcs := parseAnalysis([]byte("nothing\n")); secs != 0 || funcs != 0 {
		t.Errorf("parseAnalysis = %v, %v; want zeros", secs, funcs)
	}
}

// TestToolWithDeps: a bigfoot tool may name a -deps scope after "+" and
// runtime options after "@".
func TestToolWithDeps(t *testing.T) {
	for _, tc := range []struct {
		tool, label string
		bigfoot     bool
	}{
		{"bigfoot", "BF", true},
		{"bigfoot+all", "BF+all", true},
		{"fasttrack+main", "FT+main", true},
		{"bigfoot+some", "bigfoot+some", false},
		{"race", "race", false},
		{"bigfoot@history=0", "BF@history=0", true},
		{"slimstate+main@history=0,dedup=0", "SS+main@history=0,dedup=0", true},
		{"race@history=0", "race@history=0", false},
	} {
		if got := isBigfootMode(tc.tool); got != tc.bigfoot {
			t.Errorf("isBigfootMode(%q) = %v, want %v", tc.tool, got, tc.bigfoot)
		}
		if got := Label(tc.tool); got != tc.label {
			t.Errorf("Label(%q) = %q, want %q", tc.tool, got, tc.label)
		}
	}
	if got := toolOptions("slimstate+main@history=0,dedup=0"); got != "history=0 dedup=0" {
		t.Errorf("toolOptions = %q, want %q", got, "history=0 dedup=0")
	}
	if mode, deps := splitTool("slimstate+main@history=0"); mode != "slimstate" || deps != "main" {
		t.Errorf("splitTool = %q, %q; want slimstate, main", mode, deps)
	}
}
