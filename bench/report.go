package bench

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/bigfoot-go/bigfoot/mode"
)

// Tool names. A tool is one column of the tables: the plain build, Go's
// race detector, one of bigfoot's modes (named as mode.Mode prints it), or
// the peer detector.
const (
	Plain     = "plain"
	Race      = "race"
	FastTrack = "fasttrack"
	RedCard   = "redcard"
	SlimState = "slimstate"
	BigFoot   = "bigfoot"
	Peer      = "racedetector"
)

// DefaultModes are the tools Run measures when Options.Modes is empty.
var DefaultModes = []string{Plain, Race, FastTrack, RedCard, SlimState, BigFoot, BigFoot + "+main"}

// isBigfootMode reports whether tool is built by bigfoot build: a mode,
// optionally followed by "+" and a -deps scope ("bigfoot+all" is
// bigfoot build -mode=bigfoot -deps=all) and by "@" and runtime options,
// comma-separated, that its runs get in BIGFOOT_OPTIONS
// ("bigfoot@history=0": the same build, run without the history).
func isBigfootMode(tool string) bool {
	m, deps := splitTool(tool)
	switch deps {
	case "", "main", "modules", "all":
	default:
		return false
	}
	_, err := mode.Parse(m)
	return err == nil
}

// splitTool splits a bigfoot tool into its mode and -deps scope ("" if
// none), without its runtime options (toolOptions).
func splitTool(tool string) (mode, deps string) {
	tool, _, _ = strings.Cut(tool, "@")
	mode, deps, _ = strings.Cut(tool, "+")
	return mode, deps
}

// toolOptions returns the BIGFOOT_OPTIONS value of a bigfoot tool's
// runs: the options after "@", space-separated ("" if none).
func toolOptions(tool string) string {
	_, opts, _ := strings.Cut(tool, "@")
	return strings.ReplaceAll(opts, ",", " ")
}

// Label returns the short column label of a tool, as in the paper's tables.
func Label(tool string) string {
	switch tool {
	case Plain:
		return "Base"
	case FastTrack:
		return "FT"
	case RedCard:
		return "RC"
	case SlimState:
		return "SS"
	case BigFoot:
		return "BF"
	case Peer:
		return "RD"
	}
	if base, opts, ok := strings.Cut(tool, "@"); ok && isBigfootMode(tool) {
		return Label(base) + "@" + opts
	}
	if mode, deps := splitTool(tool); deps != "" && isBigfootMode(tool) {
		return Label(mode) + "+" + deps
	}
	return tool
}

// A Report is the outcome of Run: every measurement, ready to render.
type Report struct {
	Started    time.Time
	Seconds    float64 // wall time of the whole run
	GoVersion  string
	GOOS       string
	GOARCH     string
	NumCPU     int
	GOMAXPROCS int
	Runs       int  // timed runs per workload and tool
	Short      bool // workloads ran at their -short size
	Quick      bool // workloads ran at their Quick size
	Tools      []string
	Workloads  []*WorkloadResult
	Notes      []string // about the run as a whole, e.g. a tool skipped
}

// A WorkloadResult holds the measurements of one workload.
type WorkloadResult struct {
	Name     string
	Pattern  string
	Checksum string // printed by the first plain run
	Tools    map[string]*ToolResult
	Errors   []string // checksum mismatches, failed builds and runs
}

// A ToolResult holds the measurements of one workload under one tool.
type ToolResult struct {
	Tool         string
	BuildSeconds float64 // wall time of the (timed) build
	// AnalysisSeconds is the static analysis time the build reported, or 0.
	AnalysisSeconds float64 `json:",omitempty"`
	// Functions is the number of functions the build reported analysing, or 0.
	Functions int `json:",omitempty"`
	// Checks and Accesses come from the counting build (bigfoot modes only;
	// Accesses is 0 when unknown).
	Checks   uint64 `json:",omitempty"`
	Accesses uint64 `json:",omitempty"`
	Runs     []RunResult
	Err      string `json:",omitempty"` // the build failed; no runs
}

// A RunResult is one timed run.
type RunResult struct {
	Rep        int // 1-based repetition
	Seconds    float64
	CPUSeconds float64 // user + system time of the process
	MaxRSSKiB  int64
	// HeapAllocs and GCCycles are the heap objects allocated and the
	// collections completed, as the workload reported them (runtime/metrics,
	// see package peak), or 0.
	HeapAllocs uint64 `json:",omitempty"`
	GCCycles   uint64 `json:",omitempty"`
	Checksum   string
	Err        string `json:",omitempty"`
}

// Err returns an error listing every workload error in the report, or nil.
func (r *Report) Err() error {
	var errs []error
	for _, w := range r.Workloads {
		for _, e := range w.Errors {
			errs = append(errs, fmt.Errorf("%s: %s", w.Name, e))
		}
	}
	return errors.Join(errs...)
}

// Tool returns the result of tool on the workload, or nil.
func (w *WorkloadResult) Tool(tool string) *ToolResult {
	if w == nil || w.Tools == nil {
		return nil
	}
	return w.Tools[tool]
}

// Time returns the median wall time in seconds of the tool's successful
// runs, or NaN.
func (t *ToolResult) Time() float64 {
	if t == nil {
		return math.NaN()
	}
	var xs []float64
	for _, r := range t.Runs {
		if r.Err == "" {
			xs = append(xs, r.Seconds)
		}
	}
	return Median(xs)
}

// CPU returns the median CPU time (user + system) in seconds of the
// tool's successful runs, or NaN.
func (t *ToolResult) CPU() float64 {
	return t.median(func(r RunResult) float64 { return r.CPUSeconds })
}

// Allocs returns the median number of heap objects the tool's successful
// runs allocated, or NaN.
func (t *ToolResult) Allocs() float64 {
	return t.median(func(r RunResult) float64 { return float64(r.HeapAllocs) })
}

// GCs returns the median number of collections of the tool's successful
// runs, or NaN.
func (t *ToolResult) GCs() float64 {
	return t.median(func(r RunResult) float64 { return float64(r.GCCycles) })
}

// median returns the median of f over the tool's successful runs for
// which f is positive, or NaN.
func (t *ToolResult) median(f func(RunResult) float64) float64 {
	if t == nil {
		return math.NaN()
	}
	var xs []float64
	for _, r := range t.Runs {
		if v := f(r); r.Err == "" && v > 0 {
			xs = append(xs, v)
		}
	}
	return Median(xs)
}

// MaxRSS returns the median peak resident set size in KiB of the tool's
// successful runs, or NaN.
func (t *ToolResult) MaxRSS() float64 {
	if t == nil {
		return math.NaN()
	}
	var xs []float64
	for _, r := range t.Runs {
		if r.Err == "" && r.MaxRSSKiB > 0 {
			xs = append(xs, float64(r.MaxRSSKiB))
		}
	}
	return Median(xs)
}

// CheckRatio returns checks / accesses from the counting build, or NaN if
// it is unknown.
func (t *ToolResult) CheckRatio() float64 {
	if t == nil || t.Accesses == 0 {
		return math.NaN()
	}
	return float64(t.Checks) / float64(t.Accesses)
}

// Overhead returns the overhead of tool on the workload relative to plain,
// or NaN.
func (w *WorkloadResult) Overhead(tool string) float64 {
	return Overhead(w.Tool(tool).Time(), w.Tool(Plain).Time())
}

// RelOverhead returns the overhead of tool divided by that of FastTrack,
// or NaN.
func (w *WorkloadResult) RelOverhead(tool string) float64 {
	ft := w.Overhead(FastTrack)
	if !(ft > 0) {
		return math.NaN()
	}
	return w.Overhead(tool) / ft
}

// Memory returns the peak RSS of tool divided by that of base, or NaN.
func (w *WorkloadResult) Memory(tool, base string) float64 {
	b := w.Tool(base).MaxRSS()
	if !(b > 0) {
		return math.NaN()
	}
	return w.Tool(tool).MaxRSS() / b
}
