package bench

import (
	"encoding/csv"
	"encoding/json"
	"encoding/xml"
	"errors"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// synthetic returns a report with made-up numbers: plain takes 1 s (crypt)
// and 2 s (sor); the checkers take fixed multiples of that.
func synthetic() *Report {
	mk := func(tool string, secs []float64, rss int64, sum string) *ToolResult {
		tr := &ToolResult{Tool: tool, BuildSeconds: 0.5}
		for i, s := range secs {
			tr.Runs = append(tr.Runs, RunResult{Rep: i + 1, Seconds: s, MaxRSSKiB: rss, Checksum: sum})
		}
		return tr
	}
	crypt := &WorkloadResult{Name: "crypt", Pattern: "blocks", Checksum: "aa", Tools: map[string]*ToolResult{
		Plain:     mk(Plain, []float64{1.1, 0.9, 1.0}, 10240, "aa"),
		Race:      mk(Race, []float64{6, 6, 6}, 40960, "aa"),
		FastTrack: mk(FastTrack, []float64{11, 11, 11}, 102400, "aa"),
		BigFoot:   mk(BigFoot, []float64{2, 2, 2}, 20480, "aa"),
	}}
	crypt.Tools[FastTrack].Checks, crypt.Tools[FastTrack].Accesses = 100, 100
	crypt.Tools[BigFoot].Checks, crypt.Tools[BigFoot].Accesses = 25, 100
	crypt.Tools[BigFoot].AnalysisSeconds = 0.75
	sor := &WorkloadResult{Name: "sor", Pattern: "stencil", Checksum: "bb", Tools: map[string]*ToolResult{
		Plain:     mk(Plain, []float64{2, 2, 2}, 20480, "bb"),
		Race:      mk(Race, []float64{4, 4, 4}, 40960, "bb"),
		FastTrack: mk(FastTrack, []float64{42, 42, 42}, 81920, "bb"),
		BigFoot:   {Tool: BigFoot, Err: "build failed"},
	}}
	sor.Tools[Race].Runs[1].Checksum = "cc"
	sor.Tools[Race].Runs[1].Err = "checksum cc, plain printed bb"
	sor.Errors = []string{"bigfoot: build: build failed", "race: run 2: checksum cc, plain printed bb"}
	return &Report{
		Started:    time.Date(2026, 1, 2, 3, 4, 0, 0, time.UTC),
		Seconds:    99,
		GoVersion:  "go1.26",
		GOOS:       "linux",
		GOARCH:     "amd64",
		NumCPU:     2,
		GOMAXPROCS: 2,
		Runs:       3,
		Tools:      []string{Plain, Race, FastTrack, BigFoot},
		Workloads:  []*WorkloadResult{crypt, sor},
		Notes:      []string{"a note"},
	}
}

func TestDerived(t *testing.T) {
	r := synthetic()
	crypt, sor := r.Workloads[0], r.Workloads[1]
	for _, tc := range []struct {
		name      string
		got, want float64
	}{
		{"crypt plain time", crypt.Tool(Plain).Time(), 1},
		{"crypt FT overhead", crypt.Overhead(FastTrack), 10},
		{"crypt BF overhead", crypt.Overhead(BigFoot), 1},
		{"crypt BF/FT", crypt.RelOverhead(BigFoot), 0.1},
		{"crypt BF ratio", crypt.Tool(BigFoot).CheckRatio(), 0.25},
		{"crypt FT mem", crypt.Memory(FastTrack, Plain), 10},
		{"crypt BF mem vs FT", crypt.Memory(BigFoot, FastTrack), 0.2},
		{"sor race time (bad run left out)", sor.Tool(Race).Time(), 4},
		{"sor FT overhead", sor.Overhead(FastTrack), 20},
	} {
		if !near(tc.got, tc.want) {
			t.Errorf("%s = %v, want %v", tc.name, tc.got, tc.want)
		}
	}
	if v := sor.Overhead(BigFoot); !math.IsNaN(v) {
		t.Errorf("overhead of a failed build = %v, want NaN", v)
	}
	if err := r.Err(); err == nil || !strings.Contains(err.Error(), "sor: race: run 2: checksum cc") {
		t.Errorf("Err() = %v", err)
	}
}

func TestMarkdown(t *testing.T) {
	var b strings.Builder
	if err := synthetic().Markdown(&b); err != nil {
		t.Fatal(err)
	}
	md := b.String()
	for _, want := range []string{
		"## bigfoot against go -race",
		"| Program | plain (s) | go -race | bigfoot | bigfoot / go -race | go -race MiB | bigfoot MiB | memory bigfoot / go -race |",
		"| crypt | 1.00 | 6.00x | 2.00x | 0.33 | 40.0 | 20.0 | 0.50 |",
		"| sor | 2.00 | 2.00x | — | — | 40.0 | — | — |",
		// sqrt(6*2) for go -race; bigfoot only on crypt.
		"Geometric means: slowdown go -race 3.46x, bigfoot 2.00x; time bigfoot / go -race 0.33; memory bigfoot / go -race 0.50.",
		"## Time overhead (Table 3.1)",
		"| Program | BF build (s) | BF analysis (s) | Check ratio FT | Check ratio BF | Base time (s) | race | FT | BF | (race/FT) | (BF/FT) |",
		"| crypt | 0.50 | 0.75 | 1 | 0.25 | 1.000 | 5.00x | 10.00x | 1.00x | (0.50) | (0.10) |",
		"| sor | fail | fail | — | fail | 2.000 | 1.00x | 20.00x | fail | (0.05) | fail |",
		// Geometric means: race sqrt(5*1), FT sqrt(10*20), BF 1; race/FT sqrt(0.5*0.05).
		"| **Mean** | 0.50 | 0.75 | 1 | 0.25 |  | 2.24x | 14.14x | 1.00x | (0.16) | (0.10) |",
		"## Peak memory (Table 3.2)",
		"| Program | Base mem (MiB) | race/Base | FT/Base | BF/Base | (race/FT) | (BF/FT) |",
		"| crypt | 10.0 | 4.00 | 10.00 | 2.00 | (0.40) | (0.20) |",
		"| sor | 20.0 | 2.00 | 4.00 | fail | (0.50) | fail |",
		"## Build time (s)",
		"- sor: race: run 2: checksum cc, plain printed bb",
		"- a note",
		"go1.26 linux/amd64, 2 CPUs, GOMAXPROCS=2; 3 timed run(s)",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("Markdown lacks %q; got:\n%s", want, md)
		}
	}
	// Every table row has as many cells as its header.
	var cols int
	for _, line := range strings.Split(md, "\n") {
		if !strings.HasPrefix(line, "|") {
			cols = 0
			continue
		}
		n := strings.Count(line, "|")
		if cols == 0 {
			cols = n
		} else if n != cols {
			t.Errorf("row has %d bars, header %d: %s", n, cols, line)
		}
	}
}

// TestDominant: the workload left out of the second mean is the one whose
// removal moves the geometric mean most, however far it is from the rest.
func TestDominant(t *testing.T) {
	for _, tc := range []struct {
		xs   []float64
		want int
	}{
		{[]float64{1, 1, 50, 1}, 2},
		{[]float64{0.5, 0.5, 0.01, 0.5}, 2},
		{[]float64{2, 2, 2}, -1}, // removing any one changes nothing
		{[]float64{3}, -1},       // no mean is left without it
	} {
		if got := dominant(tc.xs); got != tc.want {
			t.Errorf("dominant(%v) = %d, want %d", tc.xs, got, tc.want)
		}
	}
	if g := geoMean([]float64{2, 8, math.NaN()}); !near(g, 4) {
		t.Errorf("geoMean(2, 8, NaN) = %v, want 4", g)
	}
}

func TestCSV(t *testing.T) {
	var b strings.Builder
	if err := synthetic().CSV(&b); err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(strings.NewReader(b.String())).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	// Header, crypt 4 tools x 3 runs, sor 3 tools x 3 runs.
	if len(recs) != 1+12+9 {
		t.Fatalf("got %d records, want 22", len(recs))
	}
	if got := strings.Join(recs[0], ","); got != "workload,tool,rep,seconds,cpu_seconds,maxrss_kib,heap_allocs,gc_cycles,checksum,error" {
		t.Errorf("header = %s", got)
	}
	if got := strings.Join(recs[1], ","); got != "crypt,plain,1,1.1000,0.0000,10240,0,0,aa," {
		t.Errorf("first record = %s", got)
	}
}

func TestJSON(t *testing.T) {
	var b strings.Builder
	if err := synthetic().JSON(&b); err != nil {
		t.Fatal(err)
	}
	var back Report
	if err := json.Unmarshal([]byte(b.String()), &back); err != nil {
		t.Fatal(err)
	}
	if len(back.Workloads) != 2 || back.Workloads[0].Tool(BigFoot).Checks != 25 {
		t.Errorf("JSON did not round-trip: %+v", back)
	}
}

func TestSVG(t *testing.T) {
	var b strings.Builder
	if err := synthetic().SVG(&b); err != nil {
		t.Fatal(err)
	}
	svg := b.String()
	// Well-formed XML.
	dec := xml.NewDecoder(strings.NewReader(svg))
	rects := 0
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("SVG is not well-formed XML: %v\n%s", err, svg)
		}
		if se, ok := tok.(xml.StartElement); ok && se.Name.Local == "rect" {
			rects++
		}
	}
	// Background + 3 legend swatches + bars: crypt 3, sor 2 (BF failed),
	// geo mean 3.
	if want := 1 + 3 + 8; rects != want {
		t.Errorf("SVG has %d rects, want %d", rects, want)
	}
	for _, want := range []string{"crypt, fasttrack: 10.00x", "sor, race: 1.00x", "geo mean", ">10x<", ">100x<"} {
		if !strings.Contains(svg, want) {
			t.Errorf("SVG lacks %q", want)
		}
	}
}

func TestWriteFiles(t *testing.T) {
	dir := t.TempDir()
	if err := WriteFiles(synthetic(), dir); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{MarkdownFile, SVGFile, CSVFile, JSONFile} {
		if st, err := os.Stat(filepath.Join(dir, f)); err != nil || st.Size() == 0 {
			t.Errorf("%s: %v", f, err)
		}
	}
}
